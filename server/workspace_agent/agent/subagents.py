"""A `task` call's subagent, run through the same core as a session's run: `run_turns`
over a fresh conversation (the task as its first message, its agent's system prompt),
with the run's workspace, approvals, sandbox and observers.

What is shared and what is its own:
- its tool context is the run's, but for its own plan (`todos`, the `todo` tool's) and
  its settings (model, turns); its calls are made under the run's step (`step_plan`), so
  the checkpoints record what it changed as that step's, call by call, and revert, take
  out one step and review work on it as on any call;
- its events go to the session's listener marked as its own (subagents/events.py);
- its tokens are counted on their own (the `subagent` event's usage and cost) and added
  to the run's and the session's; a subagent on another model is priced at that model's
  price (RunState.priced_apart).

It never hangs the parent: however it stops (its final answer, an error, its turn limit,
a refusal, the run's cancel), the `task` call gets a result saying what it knows and why
it stopped; a cancel goes on up after its end is reported. The run's observers see its
calls as the run's (hooks' PreToolUse and PostToolUse run for them), but not its stop:
their `before_stop` (Stop hooks) is the main agent's; `subagent_stop(report)` is called
once it has ended (hooks' SubagentStop), and what they add to the report goes to the
main agent after the task's result (shared/observers.py SubagentReport).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace

from .. import protocol as p
from ..config import AgentSettings
from ..protocol import StopReason
from ..shared.observers import RunScope, SubagentReport, notify_subagent_stop
from ..shared.session import Session
from ..subagents.events import SubagentEvents, SubagentProgress
from ..subagents.prompt import subagent_prompt
from ..subagents.task import SubagentTask
from ..tools.base import ToolContext, ToolResult
from . import thinking
from .loop import RunState, run_turns
from .model import ModelError, ModelFactory
from .pricing import estimate_cost

log = logging.getLogger(__name__)

ALIASES = ("opus", "sonnet", "haiku")
"""Claude Code's model aliases in agent files: the newest model of that family."""
STOPPED = {
    "max_turns": "it reached its limit of {turns} turns before it finished",
    "budget": "the run's token budget ran out (setting workspaceAgent.maxRunTokens)",
    "refusal": "the model declined to go on with the task (stop reason: refusal)",
    "cancelled": "the run was cancelled",
}


@dataclass
class SubagentRunner:
    """The `task` tool's runner for one run (subagents/task.py Runner)."""

    scope: RunScope
    state: RunState
    """The run's: each subagent's usage is added to it (and to the session's)."""
    model_factory: ModelFactory
    prompt_parts: tuple[str, ...] = ()
    """What the session's system prompt ends with (instructions), for subagents too."""
    skills_block: str = ""
    """The skills' list, for a subagent that has the skill tool."""

    async def __call__(self, ctx: ToolContext, task: SubagentTask) -> ToolResult:
        call = ctx.approvals.call  # this task call's, set by the loop for the task running it
        step = ctx.steps.current
        progress = SubagentProgress(
            call[0] if call else "",
            task.agent.name,
            task.description,
            step.id if step else None,
        )
        parent = self.scope.events
        events = SubagentEvents(parent.listener, parent.session_id, progress)
        settings, note = self._settings(task)
        session = Session(id=f"{self.scope.session.id}:{progress.tool_use_id}")
        first = {"type": "text", "text": task.prompt}
        session.messages.append({"role": "user", "content": [first]})
        own = replace(ctx, settings=settings, todos=session.todos, step_plan=ctx.steps)
        state = RunState()
        events.report()
        for line in [*([note] if note else []), *self._missing(task)]:
            events.emit(p.EVENT_NOTICE, message=line)
        stop: StopReason = "error"
        error: str | None = None
        try:
            stop = await run_turns(
                session=session,
                model=self.model_factory(settings),
                tools=task.tools,
                ctx=own,
                events=events,
                system=self._system(task),
                state=state,
                asks_before_stop=False,
            )
        except asyncio.CancelledError:
            self._end(events, progress, "cancelled", state, settings.model)
            raise
        except ModelError as exc:
            error = str(exc)
        except Exception as exc:  # a bug in a subagent must not end the run
            log.exception("subagent %s failed", task.agent.name)
            error = f"internal error: {type(exc).__name__}: {exc}"
        self._end(events, progress, stop, state, settings.model)
        report = SubagentReport(
            progress.tool_use_id, task.agent.name, task.description, stop, state.text
        )
        await notify_subagent_stop(ctx.observers, report)
        return _result(task, progress, stop, state, error, settings.max_turns, report.notes)

    def _settings(self, task: SubagentTask) -> tuple[AgentSettings, str | None]:
        """The run's settings with its agent's model and turns, and what is left of the
        run's token budget (workspaceAgent.maxRunTokens) as its own."""
        settings = self.scope.settings
        model, note = subagent_model(task.agent.model, settings.model, settings.provider)
        turns = task.agent.max_turns or settings.max_turns
        budget = settings.max_run_tokens
        if budget:
            budget = max(1, budget - self.state.usage.total)
        return replace(settings, model=model, max_turns=turns, max_run_tokens=budget), note

    def _system(self, task: SubagentTask) -> str:
        extra = list(self.prompt_parts)
        if self.skills_block and _has_skill_tool(task):
            extra.append(self.skills_block)
        keeps_plan = any(tool.kind == "plan" for tool in task.tools.values())
        return subagent_prompt(task.agent, self.scope.root, keeps_plan, extra)

    @staticmethod
    def _missing(task: SubagentTask) -> list[str]:
        if not task.missing:
            return []
        return [
            f"its definition names tools this session does not have: {', '.join(task.missing)}; "
            "it works without them"
        ]

    def _end(
        self,
        events: SubagentEvents,
        progress: SubagentProgress,
        stop: StopReason,
        state: RunState,
        model: str,
    ) -> None:
        """Its usage into the run's and the session's, and its last `subagent` event."""
        usage = state.usage
        self.state.usage.add(usage)
        self.scope.session.usage.add(usage)
        if model != self.scope.settings.model:
            self.state.priced_apart.append((model, usage))
        cost = estimate_cost(model, usage, self.scope.settings.provider)
        events.report(stop, usage, cost)


def subagent_model(wanted: str | None, model: str, provider: str) -> tuple[str, str | None]:
    """The model a subagent runs on, and a note when its definition's could not be used:
    none or `inherit` is the session's; an alias (`sonnet`) the session's model when it is
    of that family, else the family's newest (the Anthropic API only: other providers
    spell their ids their own way); any other name as it is."""
    if wanted is None or wanted == "inherit" or wanted == model:
        return model, None
    if wanted not in ALIASES:
        return wanted, None
    if f"-{wanted}-" in f"-{model}-" or wanted in model:
        return model, None
    if provider != "anthropic":
        return model, (
            f"its definition asks for `{wanted}`, which is not a {provider} model id; it runs on "
            f"the session's model, {model}"
        )
    prefix = f"claude-{wanted}"
    family = next((f.name for f in thinking.FAMILIES if f.name.startswith(prefix)), None)
    return (family, None) if family else (model, None)


def _has_skill_tool(task: SubagentTask) -> bool:
    from ..skills.tool import NAME

    return NAME in task.tools


def _result(
    task: SubagentTask,
    progress: SubagentProgress,
    stop: StopReason,
    state: RunState,
    error: str | None,
    turns: int,
    notes: list[str],
) -> ToolResult:
    """What the `task` call returns: the final message, one line on how it went, then the
    observers' notes (a SubagentStop hook's block)."""
    text = state.text.strip() or "(the subagent wrote no final message)"
    calls = f"{progress.tool_calls} tool call{'s' if progress.tool_calls != 1 else ''}"
    tokens = f"{state.usage.total:,} tokens"
    done = stop in ("end_turn", "stop_sequence")
    if done:
        how = f"finished after {calls}"
    elif error is not None:
        how = f"stopped by an error after {calls}: {error}"
    else:
        why = STOPPED.get(stop, f"it stopped ({stop})").format(turns=turns)
        how = f"stopped after {calls}: {why}; what it found so far is above"
    line = f"[subagent {task.agent.name}: {how}; {progress.changes_line()}; {tokens}]"
    return ToolResult("\n\n".join([text, line, *notes]), is_error=not done)
