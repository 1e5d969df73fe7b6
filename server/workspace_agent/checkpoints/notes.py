"""What the model is told after a revert or an undo, so it does not count on edits that
are gone (or miss ones that came back). The note goes into the next user message."""

from __future__ import annotations

from .. import names
from .revert import RevertResult

MAX_LISTED = 40


def revert_note(target: str, result: RevertResult) -> str:
    """`target` as the revert names it: 'before plan item #2 "Tidy"', 'the start of the
    last run'."""
    lines = [
        f"[Workspace Agent] The user reverted the workspace to {target} "
        "(every file the agent changed from there on was put back as it was then)."
    ]
    lines += _listed("Restored to their earlier content", result.restored)
    lines += _listed("Deleted (the agent had created them)", result.deleted)
    lines += _skipped(result)
    lines.append(
        "Do not assume the edits made from that point on are still there: read a file again "
        "before you change it."
    )
    return "\n".join(lines)


def only_note(target: str, result: RevertResult) -> str:
    """`target`: 'only plan item #2 "Tidy"'."""
    name = target.removeprefix("only ")
    lines = [
        f"[Workspace Agent] The user took back the changes of {name} alone: later changes "
        "to the same files were kept (merged), nothing else was touched."
    ]
    lines += _listed("Changed back", result.restored)
    lines += _listed("Deleted (that step had created them)", result.deleted)
    lines += _skipped(result)
    lines.append("Read a file again before you change it.")
    return "\n".join(lines)


def undo_note(result: RevertResult) -> str:
    lines = ["[Workspace Agent] The user undid the last revert: files are back as before it."]
    lines += _listed("Put back", result.restored)
    lines += _listed("Deleted again", result.deleted)
    lines += _skipped(result)
    lines.append("Read a file again before you change it.")
    return "\n".join(lines)


def _listed(title: str, paths: list[str]) -> list[str]:
    if not paths:
        return []
    shown = ", ".join(names.readable(p) for p in paths[:MAX_LISTED])
    more = f" and {len(paths) - MAX_LISTED} more" if len(paths) > MAX_LISTED else ""
    return [f"{title}: {shown}{more}."]


def _skipped(result: RevertResult) -> list[str]:
    if not result.skipped:
        return []
    shown = "; ".join(
        f"{names.readable(path)} ({reason})" for path, reason in result.skipped[:MAX_LISTED]
    )
    return [f"Left as they are: {shown}."]
