"""What a front end shows of each plan item occurrence besides its changes, decided here
once so that no client re-derives it: the name messages and titles give it, whether
"revert to before it" has anything to take back, and which row of the current plan shows
it.

- **Name.** 'plan item #2 "Format the code"' (the text's first line, cut at NAME_CHARS),
  'plan item #2' without a text, 'the changes made before the plan'. Server messages (to
  the model and the user), revert targets and the editor's titles all use it.
- **Revertible.** From the journal alone (a changes payload follows every tool call: no
  reading of the workspace): some file the agent changed after the occurrence's
  checkpoint is, after the agent's last change to it, other than it was at that
  checkpoint. A revert's dry run is exact (files changed since, reverts done since).
- **Rows.** A row of the current plan shows the latest occurrence of its id when that
  occurrence has the row's text (its first or latest, whitespace aside, or none
  recorded); every other occurrence is an earlier step. "Before the plan" shows its
  latest occurrence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .objects import Entry
from .timeline import Record

NAME_CHARS = 50
"""An item's text in its name is cut to this many characters (titles stay readable)."""
BEFORE_PLAN_NAME = "the changes made before the plan"


def same_text(a: str | None, b: str | None) -> bool:
    """Texts agree when either is unknown or they match with whitespace normalised."""
    return a is None or b is None or a.split() == b.split()


def display_name(todo_id: str | None, text: str | None) -> str:
    """How everything names an occurrence: 'plan item #2 "Format the code"'."""
    if todo_id is None:
        return BEFORE_PLAN_NAME
    line = text.strip().split("\n", 1)[0].strip() if text else ""
    if not line:
        return f"plan item #{todo_id}"
    if len(line) > NAME_CHARS:
        line = line[: NAME_CHARS - 1] + "…"
    return f'plan item #{todo_id} "{line}"'


@dataclass(frozen=True)
class RevertFacts:
    """What a revert to a checkpoint would take back, as the journal tells."""

    changed: bool
    """The agent changed files after the checkpoint."""
    left_changed: bool
    """One of them is, after the agent's last change to it, other than at the checkpoint."""

    def reason(self, name: str) -> str | None:
        """Why there is nothing to revert to before `name` (None: there is something)."""
        if self.left_changed:
            return None
        if not self.changed:
            return f"the agent changed no files from {name} on"
        return f"the agent's changes from {name} on left every file as it was before it"


def revert_facts(records: Sequence[Record], anchors: Iterable[int]) -> dict[int, RevertFacts]:
    """RevertFacts for a revert to each anchor (a record's position), in one pass over the
    records from the end: a path's content at an anchor is the `before` of the first
    record after it that changed the path (revert.py's targets), so going back, the
    `before` just read is that content for every anchor further back."""
    agent_left: dict[str, Entry | None] = {}
    """After the agent's last change to each path (tool records)."""
    differing: set[str] = set()
    facts: dict[int, RevertFacts] = {}
    position = len(records) - 1
    for anchor in sorted(set(anchors), reverse=True):
        while position > anchor:
            record = records[position]
            by_agent = record.kind == "tool"
            for change in reversed(record.changes):
                path = change.path
                if by_agent and path not in agent_left:
                    agent_left[path] = change.after
                if path in agent_left:
                    if change.before != agent_left[path]:
                        differing.add(path)
                    else:
                        differing.discard(path)
            position -= 1
        facts[anchor] = RevertFacts(bool(agent_left), bool(differing))
    return facts


@dataclass(frozen=True)
class Occurrence:
    todo_id: str | None
    text: str | None
    last_text: str | None


@dataclass(frozen=True)
class RowFacts:
    plan_row: str | None
    """The current plan's row of this occurrence's step (its id, its text): that row's
    text as the plan has it. None: the plan has no such row (before the plan, a step of
    a replaced plan, a step the plan dropped)."""
    shown: bool
    """That row (for before the plan: the "Before the plan" group) shows this occurrence:
    the latest of its step. False: an earlier step."""


def row_facts(occurrences: Sequence[Occurrence], plan: Sequence[tuple[str, str]]) -> list[RowFacts]:
    """RowFacts of each occurrence (in the order they began) against the plan's (id, text)
    rows."""
    texts = dict(plan)
    latest = {o.todo_id: index for index, o in enumerate(occurrences)}
    out = []
    for index, occurrence in enumerate(occurrences):
        row = texts.get(occurrence.todo_id) if occurrence.todo_id is not None else None
        if row is not None and not (
            same_text(occurrence.text, row)
            or (occurrence.last_text is not None and same_text(occurrence.last_text, row))
        ):
            row = None
        mine = occurrence.todo_id is None or row is not None
        out.append(RowFacts(row, mine and latest[occurrence.todo_id] == index))
    return out
