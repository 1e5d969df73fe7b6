"""The agent loop: call the model, run each tool_use through the dispatch map, send the
results back, repeat until the model stops asking for tools or the turn budget runs out.

Stop reasons: `tool_use` runs the tools; `pause_turn` sends the paused answer back so
the model goes on with it; `refusal` ends the run with a notice (no retry: the same request
would be refused again); `model_context_window_exceeded` compacts the conversation once
and asks again, else the run ends with an error saying so; `max_tokens` in the middle of
a tool call is reported to the model (model.py), in the middle of thinking to the user;
`stop_sequence` ends the run as `end_turn` does, and is reported as such; the others end
the run.

The tool_use blocks of one answer get their tool_results in the next user message, in
the model's order and first in it; which calls may overlap is concurrency.py's rule, read
from the tools (Tool.read_only). The loop knows tools only as entries of the
`{name: Tool}` map; adding a tool never changes it. Whatever a tool does wrong becomes
an `is_error` result for the model.

The run's observers have their say at the seams (shared/observers.py `RunGate`), named by
no feature here: a call's verdict before it runs (refused, its question answered or
forced, its input changed), `finish_tool` while its changes are still watched, an
instruction that keeps the run going when the model would stop (the next user message),
a reason to end it after a round of calls, and a word before a compaction.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .. import protocol as p
from ..protocol import StopReason, Usage
from ..shared.events import SessionEvents
from ..shared.observers import (
    CallReport,
    ChangedFile,
    RunObserver,
    ToolCall,
    answers_of,
    notify_all,
    observers_of,
    verdict_on,
)
from ..shared.session import Session
from ..shared.tool_result import ToolResult, as_result
from ..tools.base import Location, Tool, ToolContext, ToolError
from .compaction import compact_if_needed, compaction_due
from .concurrency import run_in_groups
from .context_meter import context_meter
from .model import Model, ModelError, ModelTurn

log = logging.getLogger(__name__)

REMINDER = "<reminder>Update your todos.</reminder>"
NAG_AFTER_ROUNDS = 3
TRANSCRIPT_OUTPUT_CHARS = 2000
CANCELLED_RESULT = "cancelled by the user before this tool finished"
DECLINED_BY_CANCEL = (
    "the user declined to let the agent {} (no answer before the run was cancelled)"
)
REDACTED = "[redacted]"
REFUSED = (
    "The model declined to go on with this request (stop reason: refusal). Its answer is not "
    "kept in the conversation: rephrase the task, or start a new session."
)


@dataclass
class RunState:
    """What a run has produced so far; survives a cancel or an error mid-run."""

    text: str = ""
    usage: Usage = field(default_factory=Usage)
    priced_apart: list[tuple[str, Usage]] = field(default_factory=list)
    """Parts of `usage` made on another model (a subagent's), with that model."""


async def run_turns(
    *,
    session: Session,
    model: Model,
    tools: Mapping[str, Tool],
    ctx: ToolContext,
    events: SessionEvents,
    system: str,
    state: RunState,
    on_turn: Callable[[], None] = lambda: None,
    news: Callable[[bool], list[str]] = lambda compacted: [],
    asks_before_stop: bool = True,
) -> StopReason:
    """Run model turns until the model stops asking for tools or a limit is reached.
    `on_turn` runs after every complete turn (the session is consistent then). `news`
    gives what happened meanwhile that the model should hear once (a background command
    ended; with True, the conversation was just compacted): lines added to its next
    request. `asks_before_stop`: False for a subagent, whose end is not the run's (the
    observers' `before_stop`, Stop hooks, is the main agent's; a subagent's end is their
    `subagent_stop`, agent/subagents.py)."""
    paused = False  # the last answer stopped with pause_turn: the next one continues it
    compacted_for_window = False
    compacted = False
    for _ in range(ctx.settings.max_turns):
        if _over_budget(state, ctx, events):
            return "budget"
        schemas = [tool.schema() for tool in tools.values()]  # tools may come and go (MCP)
        await _before_compact(session, ctx)
        compacted = _compact(session, ctx, events) or compacted
        if not paused and session.messages and session.messages[-1]["role"] == "user":
            _tell(session, news(compacted))
            compacted = False
        turn = await _ask_model(model, system, schemas, session, events)
        state.usage.add(turn.usage)
        session.usage.add(turn.usage)
        session.last_input_tokens = turn.usage.prompt_tokens
        if asks_before_stop:  # the session's own agent: a subagent's window is its own
            window = ctx.settings.context_window
            events.context(context_meter(session.id, session.last_input_tokens, window))
        if turn.stop_reason == "refusal":
            state.text = turn.text
            events.emit(p.EVENT_NOTICE, message=REFUSED)
            return "refusal"  # the refused answer is not kept: the next prompt starts clean
        if turn.stop_reason == "model_context_window_exceeded":
            if not compacted_for_window:
                await _before_compact(session, ctx, forced=True)
            if compacted_for_window or not _compact(session, ctx, events, forced=True):
                raise ModelError(_window_exceeded(ctx))
            compacted_for_window = compacted = True
            continue  # the same request again, from the compacted conversation
        if not turn.content:
            events.emit(p.EVENT_NOTICE, message="The model returned an empty answer.")
            return "end_turn"
        if paused:  # a continuation belongs to the paused assistant message
            session.messages[-1]["content"].extend(turn.content)
            state.text += turn.text
        else:
            session.messages.append({"role": "assistant", "content": turn.content})
            state.text = turn.text
        paused = turn.stop_reason == "pause_turn"
        if paused:  # the API paused a long turn: send it back as is to let it go on
            on_turn()
            continue
        if not turn.tool_uses:
            if turn.stop_reason == "max_tokens" and not turn.text.strip():
                events.emit(p.EVENT_NOTICE, message=_cut_while_thinking(ctx))
            elif turn.stop_reason in ("end_turn", "stop_sequence") and asks_before_stop:
                more = await _keep_going(ctx)
                if more is not None:  # an observer (a Stop hook) has the run go on
                    session.add_note(more)
                    on_turn()
                    continue
            return "stop_sequence" if turn.stop_reason == "stop_sequence" else "end_turn"
        results = await _run_tools(turn, tools, ctx, session, events)
        session.messages.append(
            {"role": "user", "content": results + _reminder(turn, tools, session, events)}
        )
        on_turn()
        halt = _halted(ctx)
        if halt is not None:  # an observer (a hook's `continue: false`) ends the run
            events.emit(p.EVENT_NOTICE, message=halt)
            return "end_turn"
    return "max_turns"


async def _ask_model(
    model: Model,
    system: str,
    schemas: list[dict[str, Any]],
    session: Session,
    events: SessionEvents,
) -> ModelTurn:
    def on_retry(attempt: int, attempts: int, delay: float, reason: str) -> None:
        events.emit(
            p.EVENT_RETRY,
            attempt=attempt,
            maxAttempts=attempts,
            delaySeconds=round(delay, 2),
            reason=reason,
            message=f"retrying in {_seconds(delay)} ({reason})",
        )

    return await model.respond(
        system=system,
        tools=schemas,
        messages=session.messages,
        on_text=lambda delta: events.emit(p.EVENT_TEXT, text=delta),
        on_retry=on_retry,
        on_thinking=lambda delta: events.emit(p.EVENT_THINKING, text=delta),
    )


async def _run_tools(
    turn: ModelTurn,
    tools: Mapping[str, Tool],
    ctx: ToolContext,
    session: Session,
    events: SessionEvents,
) -> list[dict[str, Any]]:
    """One tool_result per tool_use, in the model's order; read-only calls may run side by
    side (concurrency.py). On cancel, the calls left unanswered are answered too (the API
    refuses a history without them), then the cancel goes on."""

    async def run(block: dict[str, Any]) -> dict[str, Any]:
        problem = turn.input_errors.get(block["id"])
        if problem is not None:
            return _refuse_input(block, problem, ctx, events)
        return await dispatch(block, tools, ctx, events)

    def side_by_side(block: dict[str, Any]) -> bool:
        tool = tools.get(block["name"])
        return (
            tool is not None
            and tool.reads_only(block.get("input"))
            and block["id"] not in turn.input_errors
        )

    done: list[tuple[dict[str, Any], dict[str, Any]]] = []
    try:
        return await run_in_groups(turn.tool_uses, side_by_side, run, done)
    except asyncio.CancelledError:
        answered = {block["id"]: result for block, result in done}
        unanswered = iter(_unanswered(turn.tool_uses, list(answered.values()), _cancel_note(ctx)))
        results = [answered.get(block["id"]) or next(unanswered) for block in turn.tool_uses]
        session.messages.append({"role": "user", "content": results})
        raise


def _reminder(
    turn: ModelTurn, tools: Mapping[str, Tool], session: Session, events: SessionEvents
) -> list[dict[str, Any]]:
    """The nag: after NAG_AFTER_ROUNDS turns with tools but without a call of the plan's
    tool (kind "plan": `todo`), a text block that goes after the tool_results (the API
    wants those first)."""
    if any(_kind(tools, block) == "plan" for block in turn.tool_uses):
        session.rounds_without_todo = 0
        return []
    session.rounds_without_todo += 1
    if session.rounds_without_todo < NAG_AFTER_ROUNDS:
        return []
    events.emit(p.EVENT_REMINDER, text=REMINDER)
    return [{"type": "text", "text": REMINDER}]


def _tell(session: Session, lines: list[str]) -> None:
    """Lines the model hears once, at the end of the user message its next request ends
    with (the prompt, or the tool results: roles keep alternating)."""
    if not lines:
        return
    content = session.messages[-1]["content"]
    if isinstance(content, str):
        content = session.messages[-1]["content"] = [{"type": "text", "text": content}]
    content.append({"type": "text", "text": "\n".join(lines)})
    session.history_rewritten = True  # the message may be saved already


def _kind(tools: Mapping[str, Tool], block: dict[str, Any]) -> str | None:
    tool = tools.get(block["name"])
    return tool.kind if tool is not None else None


async def _keep_going(ctx: ToolContext) -> str | None:
    """What the run's observers say before it stops: an instruction for another turn (the
    first one given), or None."""
    answers = await answers_of(ctx.observers, "before_stop")
    return str(answers[0]) if answers else None


def _halted(ctx: ToolContext) -> str | None:
    """Why an observer wants the run to end now (the first one's), or None."""
    for observer in ctx.observers:
        halted = getattr(observer, "halted", None)
        why = halted() if halted is not None else None
        if why:
            return str(why)
    return None


async def _before_compact(session: Session, ctx: ToolContext, forced: bool = False) -> None:
    """Tell the observers a compaction is about to happen (they may keep the history)."""
    window = ctx.settings.context_window
    if forced or compaction_due(session.last_input_tokens, window):
        await notify_all(ctx.observers, "before_compact", "auto")


def _over_budget(state: RunState, ctx: ToolContext, events: SessionEvents) -> bool:
    cap = ctx.settings.max_run_tokens
    if not cap or state.usage.total < cap:
        return False
    events.emit(
        p.EVENT_NOTICE,
        message=f"Stopped: this run used {state.usage.total:,} tokens, the limit is {cap:,} "
        "(setting workspaceAgent.maxRunTokens).",
    )
    return True


def _compact(
    session: Session, ctx: ToolContext, events: SessionEvents, forced: bool = False
) -> bool:
    """Compact when the last request came near the window; `forced`: now, as the model
    said the context window was exceeded. True when the conversation was shrunk."""
    window = ctx.settings.context_window
    measured = max(session.last_input_tokens, window) if forced else session.last_input_tokens
    compaction = compact_if_needed(session.messages, measured, window, session.todos.render())
    if compaction:
        session.history_rewritten = True
        events.emit(p.EVENT_NOTICE, message=compaction.describe())
    return compaction is not None


def _cut_while_thinking(ctx: ToolContext) -> str:
    return (
        "The answer hit the max_tokens limit before the model wrote anything but its thinking "
        f"(workspaceAgent.maxTokens {ctx.settings.max_tokens:,}). Raise maxTokens, or lower "
        "the thinking setting, and run again."
    )


def _window_exceeded(ctx: ToolContext) -> str:
    return (
        "The conversation no longer fits the model's context window "
        f"({ctx.settings.context_window:,} tokens, setting workspaceAgent.contextWindow), even "
        "after compacting it. Start a new session, or continue with a shorter request."
    )


def _unanswered(
    tool_uses: list[dict[str, Any]], results: list[dict[str, Any]], first_note: str
) -> list[dict[str, Any]]:
    """Error results for the tool calls a cancel left without one (the API needs them)."""
    answered = {result["tool_use_id"] for result in results}
    missing = [block["id"] for block in tool_uses if block["id"] not in answered]
    return [
        _result(tool_use_id, first_note if n == 0 else CANCELLED_RESULT, is_error=True)
        for n, tool_use_id in enumerate(missing)
    ]


def _cancel_note(ctx: ToolContext) -> str:
    question = ctx.approvals.unanswered
    return DECLINED_BY_CANCEL.format(question) if question else CANCELLED_RESULT


async def dispatch(
    block: dict[str, Any],
    tools: Mapping[str, Tool],
    ctx: ToolContext,
    events: SessionEvents,
) -> dict[str, Any]:
    """Run one tool_use block and turn whatever happens into a tool_result block. Calls of
    tools that change the workspace are shown to the run's observers before and after;
    every way a call ends reaches the front ends through `_emit_result`."""
    tool = tools.get(block["name"])
    locations = tool.locations(ctx.root, block.get("input")) if tool else []
    call = _call(block, tool, ctx, locations)
    _announce(block, call, tool, locations, ctx, events)
    plan_before = ctx.todos.items
    observers = observers_of(
        ctx.observers,
        tool.reach if tool else None,
        bool(tool and tool.reads_only(block.get("input"))),
    )
    started: list[bool] = []  # [True] once the observers saw the call start
    try:
        report = await _observed_run(call, block.get("input"), tool, tools, ctx, observers, started)
    except asyncio.CancelledError:
        note = _cancel_note(ctx)
        stopped = ToolResult(
            note, is_error=True, ran=ctx.approvals.unanswered is None, cancelled=True
        )
        if started:  # what an interrupted command changed is still recorded
            await notify_all(observers, "after_tool", CallReport(call, stopped))
        _emit_result(events, call, stopped, note, changed=())
        raise
    if ctx.todos.items != plan_before:  # the plan first: it is what the user watches
        events.todos(ctx.todos.items)
    result = report.outcome
    output = _redact("\n".join([result.text, *report.notes]), ctx.secrets)
    _emit_result(events, call, result, output, report.changes or ())
    return _result(call.tool_use_id, output, result.is_error, result.images)


def _call(
    block: dict[str, Any], tool: Tool | None, ctx: ToolContext, locations: list[Location]
) -> ToolCall:
    """The call as the observers see it: the plan item it is made under, the places it is
    about, and what its tool says it is (its reach, the command it runs)."""
    tool_input = block.get("input")
    item = ctx.steps.current
    return ToolCall(
        block["id"],
        block["name"],
        tool_input if isinstance(tool_input, dict) else {},
        item.id if item else None,
        item.text if item else None,
        tuple(place.path for place in locations),
        reach=tool.reach if tool else "nothing",
        whole_file_changes=bool(tool and tool.whole_file_changes),
        command=tool.command(tool_input) if tool else None,
        aliases=tool.aliases if tool else (),
    )


def _announce(
    block: dict[str, Any],
    call: ToolCall,
    tool: Tool | None,
    locations: list[Location],
    ctx: ToolContext,
    events: SessionEvents,
) -> None:
    """The toolCall event: what is about to run, under which plan item, where."""
    tool_input = block.get("input")
    summary = tool.summary(tool_input) if tool else str(tool_input)[:200]
    events.emit(
        p.EVENT_TOOL_CALL,
        toolUseId=call.tool_use_id,
        name=call.name,
        summary=_redact(summary, ctx.secrets),
        todoId=call.todo_id,
        toolKind=tool.kind if tool else "other",
        input=tool_input,
        locations=[place.to_wire() for place in locations],
    )


async def _observed_run(
    call: ToolCall,
    tool_input: Any,
    tool: Tool | None,
    tools: Mapping[str, Tool],
    ctx: ToolContext,
    observers: tuple[RunObserver, ...],
    started: list[bool],
) -> CallReport:
    """Check the input, show the call to its observers, run the handler, show them how it
    ended. A tool's failure is a failed result, never an exception (but a cancel)."""
    notes: tuple[str, ...] = ()
    try:
        if tool is None:
            names = ", ".join(tools)
            raise ToolError(f"unknown tool {call.name!r}; the available tools are: {names}")
        tool.validate(tool_input)  # raises unless tool_input is a dict that fits the schema
        ctx.approvals.call = (call.tool_use_id, call.todo_id)  # what a question is about
        ctx.approvals.decided = None
        if observers:
            verdict = await verdict_on(observers, call)
            if verdict.refused is not None:
                raise ToolError(verdict.refused)
            if verdict.input is not None:
                tool.validate(verdict.input)
                tool_input, call = verdict.input, _with_input(call, tool, ctx, verdict.input)
            ctx.approvals.decided = verdict.permission
            notes = verdict.notes
            started.append(True)
            await notify_all(observers, "before_tool", call)
        result = as_result(await tool.handler(ctx, tool_input or {}))
    except ToolError as exc:
        result = ToolResult(str(exc), is_error=True, ran=False)
    except Exception as exc:  # a broken tool must not end the run or the server
        log.exception("tool %s failed", call.name)
        result = ToolResult(
            f"{call.name} failed unexpectedly: {type(exc).__name__}: {exc}", is_error=True
        )
    finally:
        ctx.approvals.decided = None
    report = CallReport(call, result, notes=list(notes))
    if started:
        await notify_all(observers, "finish_tool", report)  # still inside the change window
        await notify_all(observers, "after_tool", report)
    ctx.approvals.call = None  # a later question (as the run ends) is no call's
    return report


def _with_input(
    call: ToolCall, tool: Tool, ctx: ToolContext, tool_input: dict[str, Any]
) -> ToolCall:
    """The call with the input an observer gave it instead (a PreToolUse hook's)."""
    return replace(
        call,
        input=tool_input,
        paths=tuple(place.path for place in tool.locations(ctx.root, tool_input)),
        command=tool.command(tool_input),
    )


def _emit_result(
    events: SessionEvents,
    call: ToolCall,
    result: ToolResult,
    output: str,
    changed: Sequence[ChangedFile],
) -> None:
    """The toolResult event, the one place it is made (a result, a refused input, a
    cancel): `output` is what the model got (notes added, secrets hidden), the transcript
    shows its head and tail; the exit status and the sandbox's facts come as data."""
    events.emit(
        p.EVENT_TOOL_RESULT,
        toolUseId=call.tool_use_id,
        name=call.name,
        ok=result.ok,
        output=head_and_tail(output),
        todoId=call.todo_id,
        exitCode=result.exit_code,
        outputChars=len(output),
        fullOutput=output,
        changes=[change.to_wire() for change in result.changes],
        changedFiles=[file.to_wire() for file in changed],
        **result.facts(),
        **image_facts(result.images),
    )


def image_facts(blocks: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    """A toolResult's `images` (one record each: type, pixels, bytes) and `imageData` (their
    base64, a detail field the history keeps apart: workspaceAgent/toolImage), for the
    image blocks the model gets that are images it could read."""
    from ..shared.images import ImageError, from_base64

    records: list[dict[str, Any]] = []
    data: list[str] = []
    for index, block in enumerate(blocks):
        source = block.get("source") or {}
        try:
            image = from_base64(
                str(source.get("data", "")), str(source.get("media_type")), f"image {index + 1}"
            )
        except ImageError:
            continue
        records.append(image.record())
        data.append(image.data)
    return {"images": records, "imageData": data} if records else {}


def _result(
    tool_use_id: str, output: str, is_error: bool, images: tuple[dict[str, Any], ...] = ()
) -> dict[str, Any]:
    content: Any = [{"type": "text", "text": output}, *images] if images else output
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


def _refuse_input(
    block: dict[str, Any], problem: str, ctx: ToolContext, events: SessionEvents
) -> dict[str, Any]:
    """A tool call whose input cannot be used: nothing runs, the model is told why."""
    call = ToolCall(block["id"], block["name"], {}, ctx.steps.in_progress_id)
    message = f"{problem}; nothing was run. Make the call again with a complete JSON object."
    events.emit(
        p.EVENT_TOOL_CALL,
        toolUseId=call.tool_use_id,
        name=call.name,
        summary="(unusable input)",
        todoId=call.todo_id,
    )
    _emit_result(events, call, ToolResult(message, is_error=True, ran=False), message, ())
    return _result(call.tool_use_id, message, is_error=True)


def _seconds(delay: float) -> str:
    return f"{delay:.1f}s" if delay < 10 else f"{round(delay)}s"


def _redact(text: str, secrets: tuple[str, ...]) -> str:
    """Keep secrets (the API key) out of what the model and the transcript see, even when a
    command printed them (say, `cat .env`)."""
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def head_and_tail(text: str, limit: int = TRANSCRIPT_OUTPUT_CHARS) -> str:
    """What the transcript shows of a long output: its start and its end (where a
    command's error usually is), cut in the middle with a line saying how much is left
    out. The whole output is what the model got (workspaceAgent/toolOutput)."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    return f"{text[:head]}\n… {len(text) - limit:,} more characters …\n{text[-tail:]}"
