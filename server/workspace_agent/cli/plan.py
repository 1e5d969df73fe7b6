"""`workspace-agent run --plan TASK` (or a `/plan ` prompt): the plan a plan-mode run ended
with, printed, then asked about: `Run this plan? [y]es / [n]o / [e]dit`.

- yes runs it as it is (workspaceAgent/approvePlan's `run`: agent/plan_mode.py);
- edit opens it in $VISUAL or $EDITOR as a markdown checklist, one `- [ ] text` line per
  item, `> comment` lines under an item; what the file holds when the editor exits is
  what runs (reworded, reordered, deleted and added items, the comments);
- no, or no terminal to ask on: nothing runs and nothing was changed (exit status 0).

Ids are not in the file: a line keeps the id of an item with the same text, else of the
most similar item left if at least half their words are alike (then it counts as edited, a
rewording); any other line is a new item (`user-1`, ...), edited too.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from ..agent.front_end import plan_as_it_is
from ..contract import USER_ITEM_ID_PREFIX
from ..protocol import ApprovePlanParams, PlanComment, PlanItem, RunResult, TodoItem
from ..shared import host_programs

QUESTION = "Run this plan? [y]es / [n]o / [e]dit: "
HEADER = (
    "# The plan: one `- [ ] text` line per item. Reword, reorder, delete or add items; put\n"
    "# `> comment` lines under an item. Lines starting with # are left out. Save and quit\n"
    "# the editor to run the plan as the file then says (an empty plan runs nothing).\n"
)
NOT_RUN = "The plan was not run; nothing was changed."
NO_TERMINAL = (
    "No terminal to ask on: the plan was not run and nothing was changed. Run it with "
    "`workspace-agent run --session {} TASK` once you have looked at it."
)

Approve = Callable[[ApprovePlanParams], Awaitable[RunResult]]
ReadLine = Callable[[], Awaitable[str]]


def render(items: Sequence[TodoItem]) -> str:
    """The plan as printed: a markdown checklist."""
    return "\n".join(f"- [ ] {item.text}" for item in items)


async def shape_plan(result: RunResult, approve: Approve, read_line: ReadLine) -> RunResult | None:
    """Show the plan of `result` and do what the user answers: the approved run's result,
    or None when nothing was run."""
    print(f"\nPlan:\n{render(result.todos)}\n", flush=True)
    if not sys.stdin.isatty():
        print(NO_TERMINAL.format(result.session_id), flush=True)
        return None
    print(QUESTION, end="", flush=True)
    answer = (await read_line()).strip().lower()
    items: Sequence[PlanItem]
    comments: Sequence[PlanComment] = ()
    if answer in ("y", "yes"):
        items = plan_as_it_is(result.todos)
    elif answer in ("e", "edit"):
        edited = await asyncio.to_thread(edit_in_editor, render(result.todos))
        if edited is None:
            return None
        items, comments = read_checklist(edited, result.todos)
        if not items:
            print("The edited plan has no items: nothing was run.", flush=True)
            return None
    else:
        print(NOT_RUN, flush=True)
        return None
    return await approve(ApprovePlanParams(result.session_id, tuple(items), tuple(comments), "run"))


def edit_in_editor(checklist: str) -> str | None:
    """The checklist as the user left it in their editor; None (said why) when it failed."""
    command = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
    editor = host_programs.find(command[0]) if command else None
    if editor is None:
        print(f"No editor found to run ({command[0] if command else 'none'}): set EDITOR.")
        return None
    with tempfile.TemporaryDirectory(prefix="workspace-agent-plan-") as folder:
        path = Path(folder) / "plan.md"
        path.write_text(HEADER + checklist + "\n", encoding="utf-8")
        done = subprocess.run([editor, *command[1:], str(path)], check=False)
        if done.returncode != 0:
            print(f"The editor exited with status {done.returncode}: nothing was run.")
            return None
        return path.read_text(encoding="utf-8")


def read_checklist(text: str, plan: Sequence[TodoItem]) -> tuple[list[PlanItem], list[PlanComment]]:
    """The items and comments of an edited checklist (ids as the module docstring says)."""
    lines: list[tuple[str, list[str]]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(">"):
            if lines and line[1:].strip():
                lines[-1][1].append(line[1:].strip())
            continue
        entry = _item_text(line)
        if entry:
            lines.append((entry, []))
    ids = _ids([entry for entry, _ in lines], plan)
    items = [
        PlanItem(item_id, entry, edited)
        for (entry, _), (item_id, edited) in zip(lines, ids, strict=True)
    ]
    comments = [
        PlanComment(item.id, comment)
        for item, (_, notes) in zip(items, lines, strict=True)
        for comment in notes
    ]
    return items, comments


def _alike(a: str, b: str) -> float:
    """How alike two texts are, word by word (0 to 1)."""
    return difflib.SequenceMatcher(None, a.lower().split(), b.lower().split()).ratio()


def _item_text(line: str) -> str:
    for mark in ("- [ ]", "- [x]", "- [X]", "* [ ]", "-", "*"):
        if line.startswith(mark):
            return " ".join(line[len(mark) :].split())
    return " ".join(line.split())


def _ids(texts: list[str], plan: Sequence[TodoItem]) -> list[tuple[str, bool]]:
    """(id, edited) per line: the same text keeps its item's id; else the id of the most
    similar unused item (at least half the words alike); else a new `user-N`."""
    unused = {item.id: item for item in plan}
    chosen: list[tuple[str, bool] | None] = [None] * len(texts)
    for n, entry in enumerate(texts):
        same = next((i for i in unused.values() if i.text == entry), None)
        if same is not None:
            chosen[n] = (same.id, False)
            del unused[same.id]
    for n, entry in enumerate(texts):
        alike = sorted(((_alike(entry, i.text), i.id) for i in unused.values()), reverse=True)
        if chosen[n] is None and alike and alike[0][0] >= 0.5:
            chosen[n] = (alike[0][1], True)
            del unused[alike[0][1]]
    taken = {item.id for item in plan}
    fresh = (f"{USER_ITEM_ID_PREFIX}{k}" for k in range(1, len(texts) + len(taken) + 2))
    result = []
    for pick in chosen:
        if pick is None:
            new_id = next(i for i in fresh if i not in taken)
            pick = (new_id, True)
        result.append(pick)
    return result
