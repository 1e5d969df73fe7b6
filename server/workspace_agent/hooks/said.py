"""What a hook said, read as Claude Code reads it.

Exit 0: fine; stdout is shown (for UserPromptSubmit and SessionStart it is context for
the model too). Exit 2: it blocks, with stderr as the reason: PreToolUse refuses the call
(the model gets the reason as the tool's error), PostToolUse tells the model (the call
ran already), UserPromptSubmit refuses the prompt, Stop keeps the agent working,
SubagentStop tells the main agent (the subagent has ended), TaskCompleted keeps the item
in progress; at the other events it is an error shown to the
user. Any other exit: an error shown to the user, the run goes on.

JSON on stdout (exit 0) says more: `continue: false` (+ `stopReason`) ends the run;
`decision: "block"` + `reason` blocks as exit 2 does (`"approve"`, the old PreToolUse
word, allows); `hookSpecificOutput` carries `permissionDecision` (`allow`, `deny`, `ask`)
with `permissionDecisionReason`, `updatedInput`, and `additionalContext` for the model;
`systemMessage` is shown to the user.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..contract import HookOutcome
from ..shared.observers import Permission
from .runner import Ran

BLOCKING = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop",
     "SubagentStop", "TaskCompleted"}
)  # fmt: skip
"""Events whose hooks may block (exit 2, `decision: "block"`); at the others exit 2 is an
error shown to the user."""
CONTEXT_FROM_STDOUT = frozenset({"UserPromptSubmit", "SessionStart"})
SILENT_BLOCK = "it exited with status 2 (block) without saying why: its stderr was empty"


@dataclass(frozen=True)
class Said:
    outcome: HookOutcome
    message: str
    """What came of it, in one line, for the user."""
    reason: str = ""
    """Why it blocked (stderr, or the JSON's reason), for the model or the user."""
    context: str = ""
    """Text for the model (additionalContext; stdout at UserPromptSubmit and SessionStart)."""
    permission: Permission | None = None
    updated_input: dict[str, Any] | None = None
    halt: str | None = None
    """`continue: false`: the run ends, saying this."""

    @property
    def blocks(self) -> bool:
        return self.outcome == "blocked"


def read(event: str, ran: Ran, timeout: float, plain: bool = False) -> Said:
    """`plain`: a plain command (a plan item's own check), whose every exit status but 0
    fails, as a test run's does."""
    if ran.not_started is not None:
        return Said("failed", ran.not_started)
    if ran.timed_out:
        return Said("timedOut", f"timed out after {timeout:g} s: it and its processes were killed")
    if plain and ran.exit_code != 0:
        reason = ran.output.strip() or f"it exited with status {ran.exit_code} and said nothing"
        return Said("blocked", _blocked_words(event, reason), reason)
    if ran.exit_code == 2:
        reason = ran.stderr.strip() or SILENT_BLOCK
        if event not in BLOCKING:
            return Said("failed", f"exit 2: {first_line(reason)}", reason)
        return Said("blocked", _blocked_words(event, reason), reason)
    if ran.exit_code != 0:
        said = first_line(ran.stderr) or first_line(ran.stdout) or "no output"
        return Said("failed", f"exit {ran.exit_code}: {said}")
    return _read_stdout(event, ran.stdout)


def _read_stdout(event: str, stdout: str) -> Said:
    data = _json_object(stdout)
    if data is None:
        context = stdout.strip() if event in CONTEXT_FROM_STDOUT else ""
        return Said("ok", first_line(stdout) or "ok", context=context)
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    context = _text(specific.get("additionalContext"))
    shown = _text(data.get("systemMessage"))
    if data.get("continue") is False:
        why = _text(data.get("stopReason")) or "a hook ended the run (continue: false)"
        return Said("blocked", f"ended the run: {first_line(why)}", why, context, halt=why)
    decision = specific.get("permissionDecision")
    reason = _text(specific.get("permissionDecisionReason")) or _text(data.get("reason"))
    if decision == "deny" or data.get("decision") == "block":
        why = reason or "it gave no reason"
        if event not in BLOCKING:
            return Said("failed", f"asked to block, which {event} cannot: {first_line(why)}")
        return Said("blocked", _blocked_words(event, why), why, context)
    permission: Permission | None = None
    if decision in ("allow", "ask"):
        permission = decision
    elif data.get("decision") == "approve":
        permission = "allow"
    updated = specific.get("updatedInput")
    updated_input = updated if isinstance(updated, dict) else None
    words = [
        *(["allowed the call"] if permission == "allow" else []),
        *(["asked for the user's answer"] if permission == "ask" else []),
        *(["changed the call's input"] if updated_input is not None else []),
        *(["added context"] if context else []),
    ]
    message = shown or ", ".join(words) or "ok"
    return Said("ok", first_line(message), reason, context, permission, updated_input)


def _blocked_words(event: str, reason: str) -> str:
    what = {
        "PreToolUse": "blocked the call",
        "PostToolUse": "told the model",
        "PostToolUseFailure": "told the model",
        "UserPromptSubmit": "refused the prompt",
        "Stop": "kept the agent working",
        "SubagentStop": "told the model",
        "TaskCompleted": "kept the item open",
    }.get(event, "blocked")
    return f"{what}: {first_line(reason)}"


def _json_object(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def first_line(text: str, limit: int = 200) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"
