"""bash_output and bash_stop: what the model does with a command `bash` started in the
background (`run_in_background`, background.py). Both take its id, the first line of
bash's answer (`id: b1`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..shared.errors import ToolError
from .base import Tool, ToolContext

if TYPE_CHECKING:
    from .background import BackgroundCommands
    from .background_command import BackgroundCommand

ID_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {
            "type": "string",
            "description": "The background command's id: the first line of bash's answer "
            "(`id: b1` → `b1`).",
        }
    },
    "required": ["id"],
    "additionalProperties": False,
}
NOT_HERE = "background commands are not available here (bash_output and bash_stop need one)"


def registry(ctx: ToolContext) -> BackgroundCommands:
    if ctx.background is None:
        raise ToolError(NOT_HERE)
    return ctx.background


async def bash_output(ctx: ToolContext, args: dict[str, Any]) -> str:
    from .background import port_lines

    commands = registry(ctx)
    found = commands.find(ctx.session_id, str(args["id"]), ctx.root)
    text, lost = commands.read_new(found)
    lines = [f"[{_state(found)}]"]
    if lost:
        lines.append(
            f"[{lost:,} bytes of output it wrote since the last read are no longer kept (only "
            "the last 10 MB are); what follows comes after them]"
        )
    lines.append(text.rstrip("\n") or "(no new output)")
    lines += [f"[{line}]" for line in port_lines(found)]
    return "\n".join(lines)


async def bash_stop(ctx: ToolContext, args: dict[str, Any]) -> str:
    from .background import STOPPED_BY_MODEL, took

    commands = registry(ctx)
    found = commands.find(ctx.session_id, str(args["id"]), ctx.root)
    if not found.running:
        found.told = True
        return f"{found.id} was not running: {_state(found)}"
    await commands.stop(ctx.session_id, found.id, STOPPED_BY_MODEL)
    found.told = True
    found.log.save_meta(found.meta())
    status = "unknown" if found.exit_code is None else found.exit_code
    return (
        f"{found.id} stopped after {took(found.seconds())} (exit status {status}); its "
        "processes are gone. bash_output still reads what it wrote."
    )


def _state(found: BackgroundCommand) -> str:
    from .background import ended_line, took

    if found.running:
        return f"{found.id} `{found.command}` is running (for {took(found.seconds())})"
    return ended_line(found, with_tail=False)


BASH_OUTPUT = Tool(
    name="bash_output",
    description=(
        "Read what a background command (started by bash with run_in_background) wrote "
        "since the last read, and whether it still runs or how it ended (its exit status). "
        "Long output is cut in the middle, as bash's is."
    ),
    input_schema=ID_SCHEMA,
    handler=bash_output,
    summarize=lambda args: str(args.get("id", "")),
    kind="other",
    read_only=True,
    plan_safe=True,
    reach="nothing",
)

BASH_STOP = Tool(
    name="bash_stop",
    description=(
        "Stop a background command (started by bash with run_in_background) and every "
        "process it started: SIGTERM, then SIGKILL after 5 seconds. Its output stays "
        "readable with bash_output."
    ),
    input_schema=ID_SCHEMA,
    handler=bash_stop,
    summarize=lambda args: str(args.get("id", "")),
    kind="other",
    plan_safe=True,  # stopping a command changes no file
    reach="nothing",
)
