"""The hooks of one run, at the run's seams (shared/observers.py `RunGate`):

- `open_run`: SessionStart (the session's first run in this process; `startup`, or
  `resume` for a session with a history; and the first run after /clear or /compact,
  `clear` or `compact`), then UserPromptSubmit: their context goes to
  the model with the prompt; a block refuses the prompt.
- `decide`: PreToolUse, for every call whose tool the matcher names: a block refuses the
  call (the model gets the reason as the tool's error, naming the hook), `allow` / `ask`
  answer or force its question, `updatedInput` changes its input, context goes with the
  result.
- `finish_tool`: PostToolUse (PostToolUseFailure for a failed call), still inside the
  call's change window, so what a formatter changes is the call's change in the
  checkpoint (a revert takes it back too); then TaskCompleted for each plan item the call
  marked completed, with the item's own check: a block keeps it in progress, the model is
  told why, and the result stays on the item (`ItemCheck`).
- `before_stop`: Stop; a block keeps the agent working with the reason as its next
  instruction, `stop_hook_active` true on the repeat, at most MAX_STOP_REPEATS times.
- `before_compact`: PreCompact; `waiting`: Notification (in the background).
- `subagent_stop`: SubagentStop, once a `task` call's subagent has ended (its matcher:
  the agent's name); it ended already, so a block is told to the main agent after the
  task's result, with any context.

Each hook run is one `hook` event (a row under the call's card). The hooks of one event
run side by side; a cancelled run kills them.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .. import protocol as p
from ..contract import HookEventName
from ..protocol import ItemCheck, StopReason, TodoItem
from ..shared.observers import (
    CallReport,
    CallVerdict,
    Permission,
    RunOpening,
    SubagentReport,
    ToolCall,
)
from . import payload
from .config import Hook
from .runner import Ran, host_argv, run_command
from .said import Said, first_line, read
from .trust import Candidate, candidate, needs_trust

if TYPE_CHECKING:
    from ..sandbox.launch import Launch
    from ..shared.observers import RunScope

log = logging.getLogger(__name__)

MAX_STOP_REPEATS = 3
ITEM_CHECK = "check"
"""The short name of a plan item's own check."""
NOTIFY_WAIT_SECONDS = 5.0
"""How long the run's end waits for Notification hooks still going."""
CREDENTIALS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


class Keeper(Protocol):
    """What a run's hooks need of what lasts between runs (service.py `HookService`)."""

    def first_run(self, session_id: str) -> bool:
        """True once per session and process."""

    async def may_run(self, found: Candidate, scope: RunScope) -> str | None:
        """None when a hook that must be trusted may run; else why it is skipped."""


@dataclass(frozen=True)
class HookRun:
    """One hook's run: the hook, how its process ended, what it said."""

    hook: Hook
    said: Said
    ran: Ran


class HookObserver:
    sees_every_tool = True
    """Hooks run for every tool the matcher names, read-only ones too."""

    def __init__(self, service: Keeper, scope: RunScope, hooks: Sequence[Hook]) -> None:
        self._service = service
        self._scope = scope
        self._hooks = tuple(hooks)
        self._plan: dict[tuple[str, str], str] = {}
        """The plan's statuses as last seen: a completion is what changed since."""
        self._stops = 0
        self._halt: str | None = None
        self._refused: set[str] = set()
        """Calls a PreToolUse hook refused: no PostToolUseFailure for them."""
        self._background: set[asyncio.Task[Any]] = set()

    # -- the run's seams --------------------------------------------------------------

    async def start_run(self) -> None:
        self._plan = _statuses(self._scope.session.todos.items)

    async def open_run(self) -> RunOpening | None:
        session = self._scope.session
        context: list[str] = []
        restarted, session.restarted = session.restarted, None
        first = self._service.first_run(session.id)
        if (first or restarted) and self._of("SessionStart"):
            source = restarted or ("resume" if len(session.messages) > 1 else "startup")
            results = await self._run("SessionStart", {"source": source}, subject=source)
            context += [_context(run) for run in results if run.said.context]
        results = await self._run("UserPromptSubmit", {"prompt": self._scope.prompt})
        refused = [
            f"The UserPromptSubmit hook `{run.hook.name}` ({run.hook.origin}) refused the "
            f"prompt: {run.said.reason}"
            for run in results
            if run.said.blocks
        ]
        if refused:
            return RunOpening(refused="\n".join(refused))
        context += [_context(run) for run in results if run.said.context]
        return RunOpening(tuple(context)) if context else None

    async def decide(self, call: ToolCall) -> CallVerdict | None:
        hooks = self._matching("PreToolUse", call)
        if not hooks:
            return None
        fields = payload.tool_fields(call, self._scope.root)
        results = await self._run("PreToolUse", fields, hooks, tool_use_id=call.tool_use_id)
        refused = [
            f"blocked by the PreToolUse hook `{run.hook.name}` ({run.hook.origin}): "
            f"{run.said.reason}"
            for run in results
            if run.said.blocks
        ]
        if refused:
            self._refused.add(call.tool_use_id)
            return CallVerdict(refused="\n".join(refused))
        permissions = {run.said.permission for run in results}
        permission: Permission | None = (
            "ask" if "ask" in permissions else "allow" if "allow" in permissions else None
        )
        inputs = [run.said.updated_input for run in results if run.said.updated_input is not None]
        notes = tuple(_context(run) for run in results if run.said.context)
        return CallVerdict(permission=permission, input=inputs[-1] if inputs else None, notes=notes)

    async def before_tool(self, call: ToolCall) -> None:
        return None

    async def finish_tool(self, report: CallReport) -> None:
        call, outcome = report.call, report.outcome
        refused = call.tool_use_id in self._refused
        self._refused.discard(call.tool_use_id)
        if not refused and not outcome.cancelled:
            await self._after_call(report)
        await self._check_completed(report)

    async def after_tool(self, report: CallReport) -> None:
        return None

    async def before_stop(self) -> str | None:
        if not self._of("Stop"):
            return None
        fields = {"stop_hook_active": self._stops > 0}
        results = await self._run("Stop", fields)
        blocked = [run for run in results if run.said.blocks and not run.said.halt]
        if not blocked:
            return None
        reasons = "\n".join(
            f"The Stop hook `{run.hook.name}` ({run.hook.origin}) says the task is not done: "
            f"{run.said.reason}"
            for run in blocked
        )
        if self._stops >= MAX_STOP_REPEATS:
            self._scope.events.emit(
                p.EVENT_NOTICE,
                message=f"The run ends here: Stop hooks kept it going {MAX_STOP_REPEATS} times, "
                f"the most a run allows, and still block. {reasons}",
            )
            return None
        self._stops += 1
        return reasons

    async def before_compact(self, trigger: str) -> None:
        if self._of("PreCompact"):
            await self._run(
                "PreCompact", {"trigger": trigger, "custom_instructions": ""}, subject=trigger
            )

    async def subagent_stop(self, report: SubagentReport) -> None:
        fields = {
            "stop_hook_active": False,
            "agent_id": report.tool_use_id,
            "agent_type": report.agent,
        }
        results = await self._run(
            "SubagentStop", fields, subject=report.agent, tool_use_id=report.tool_use_id
        )
        for run in results:
            if run.said.blocks and not run.said.halt:
                report.notes.append(
                    f"The SubagentStop hook `{run.hook.name}` ({run.hook.origin}) on the "
                    f"{report.agent} subagent's work: {run.said.reason}"
                )
            if run.said.context:
                report.notes.append(_context(run))

    def waiting(self, message: str) -> None:
        if not self._of("Notification"):
            return
        fields = {"message": message, "notification_type": "permission_prompt"}
        task = asyncio.ensure_future(self._run("Notification", fields, subject="permission_prompt"))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def halted(self) -> str | None:
        return self._halt

    async def end_run(self, stop: StopReason) -> None:
        if not self._background:
            return
        pending = set(self._background)
        if stop == "cancelled":
            for task in pending:
                task.cancel()
        await asyncio.wait(pending, timeout=NOTIFY_WAIT_SECONDS)
        for task in pending:
            task.cancel()

    # -- events of a call -------------------------------------------------------------

    async def _after_call(self, report: CallReport) -> None:
        call, outcome = report.call, report.outcome
        event: HookEventName = "PostToolUse" if outcome.ok else "PostToolUseFailure"
        hooks = self._matching(event, call)
        if not hooks:
            return
        fields = payload.tool_fields(call, self._scope.root)
        if outcome.ok:
            fields["tool_response"] = payload.tool_response(report, self._scope.root)
        else:
            fields["error"] = outcome.text
        results = await self._run(event, fields, hooks, tool_use_id=call.tool_use_id)
        if outcome.ran and any(run.said.outcome != "skipped" for run in results):
            report.scan_workspace = True  # what they changed is the call's
        for run in results:
            if run.said.blocks and not run.said.halt:
                report.notes.append(
                    f"The {event} hook `{run.hook.name}` ({run.hook.origin}): {run.said.reason}"
                )
            if run.said.context:
                report.notes.append(_context(run))

    async def _check_completed(self, report: CallReport) -> None:
        """TaskCompleted, and each item's own check, for the items marked completed since
        the plan was last seen."""
        todos = self._scope.session.todos
        done = [
            item
            for item in todos.items
            if item.status == "completed" and self._plan.get((item.id, item.text)) != "completed"
        ]
        for item in done:
            await self._check(item, report)
        self._plan = _statuses(todos.items)

    async def _check(self, item: TodoItem, report: CallReport) -> None:
        hooks = list(self._of("TaskCompleted"))
        if item.check_command:
            hooks.append(Hook("TaskCompleted", item.check_command, "item", f"plan item #{item.id}"))
        if not hooks:
            return
        fields = {"task_id": item.id, "task_subject": item.text, "task_description": item.text}
        results = await self._run("TaskCompleted", fields, hooks, todo_id=item.id)
        verdicts = [run for run in results if _verdict(run) is not None]
        if not verdicts:
            return
        failed = next((run for run in verdicts if not _verdict(run)), None)
        shown = failed or verdicts[-1]
        check = ItemCheck(
            passed=failed is None,
            first_line=first_line(shown.said.reason or shown.ran.stderr or shown.ran.stdout)
            if failed
            else first_line(shown.ran.stdout),
            output=shown.ran.output or shown.said.reason,
            hook=ITEM_CHECK if shown.hook.source == "item" else shown.hook.name,
            duration_ms=shown.ran.duration_ms,
        )
        pending = self._scope.session.todos.with_check(item.id, check, reopen=failed is not None)
        if failed is None:
            return
        others = f"; #{', #'.join(pending)} went back to pending" if pending else ""
        reason = failed.said.reason or failed.ran.output or failed.said.message
        hook = failed.hook
        what = "its own check" if hook.source == "item" else f"the TaskCompleted hook `{hook.name}`"
        report.notes.append(
            f"Plan item #{item.id} is not done: {what} ({hook.origin}) failed: {reason}\n"
            f"#{item.id} is in progress again{others}. Fix what the check says, then mark it "
            "completed again."
        )

    # -- running hooks ----------------------------------------------------------------

    def _of(self, event: HookEventName) -> tuple[Hook, ...]:
        return tuple(hook for hook in self._hooks if hook.event == event)

    def _matching(self, event: HookEventName, call: ToolCall) -> tuple[Hook, ...]:
        return tuple(h for h in self._of(event) if h.matches(call.name, *call.aliases))

    async def _run(
        self,
        event: HookEventName,
        fields: dict[str, Any],
        hooks: Sequence[Hook] | None = None,
        *,
        subject: str = "",
        tool_use_id: str | None = None,
        todo_id: str | None = None,
    ) -> list[HookRun]:
        """Run the hooks of `event` side by side (those given, else every one whose
        matcher fits `subject`); each one's row is sent as it ends."""
        chosen = hooks if hooks is not None else self._of(event)
        if hooks is None and subject:  # the events about something match it; the others ignore it
            chosen = tuple(hook for hook in chosen if hook.matches(subject))
        if not chosen:
            return []
        stdin = payload.encoded({**payload.common(self._scope, event), **fields})
        where = {"toolUseId": tool_use_id} if tool_use_id else {}
        where.update({"todoId": todo_id} if todo_id else {})
        return list(await asyncio.gather(*(self._run_one(h, event, stdin, where) for h in chosen)))

    async def _run_one(
        self, hook: Hook, event: HookEventName, stdin: bytes, where: dict[str, str]
    ) -> HookRun:
        ran = Ran()
        try:
            skipped = await self._may_run(hook)
            if skipped is not None:
                said = Said("skipped", skipped)
            else:
                ran = await self._start(hook, stdin)
                said = read(event, ran, hook.timeout, plain=hook.source == "item")
        except asyncio.CancelledError:
            self._emit(hook, event, Said("cancelled", "cancelled with the run"), ran, where)
            raise
        except Exception as exc:  # a hook must never fail the run
            log.exception("hook %s failed", hook.command)
            said = Said("failed", f"could not run: {type(exc).__name__}: {exc}")
        if said.halt and self._halt is None:
            self._halt = (
                f"The {event} hook `{hook.name}` ({hook.origin}) ended the run: {said.halt}"
            )
        self._emit(hook, event, said, ran, where)
        return HookRun(hook, said, ran)

    async def _may_run(self, hook: Hook) -> str | None:
        if hook.source == "item":
            return None
        found = candidate(hook, self._scope.root)
        if not needs_trust(hook, found):
            return None
        return await self._service.may_run(found, self._scope)

    async def _start(self, hook: Hook, stdin: bytes) -> Ran:
        root = self._scope.root
        if hook.source != "workspace":
            env = payload.environment(_user_env(self._scope), root)
            from ..shared.host_programs import host_env

            return await run_command(
                host_argv(hook.command), host_env(env), root, stdin, hook.timeout
            )
        launch = await self._sandboxed(hook.command)
        if isinstance(launch, str):
            return Ran(not_started=launch, sandboxed=False)
        return await run_command(launch.argv, launch.env, root, stdin, hook.timeout, launch)

    async def _sandboxed(self, command: str) -> Launch | str:
        """The sandbox's launch of a workspace hook, as bash's (tools/bash.py), or why
        it cannot run: a workspace's hook never runs outside the sandbox."""
        settings, root = self._scope.settings, self._scope.root
        never = "a workspace's hook runs only in the sandbox, never on your machine"
        if settings.sandbox_mode == "off":
            return f"not run: sandbox.mode is off, and {never}"
        from ..sandbox.backend import LaunchRequest, backend, confinement
        from ..tools.bash import command_env

        confined = await confinement(settings.sandbox_mode, root)
        if not confined.sandboxed:
            why = confined.reason or confined.refusal or "it is not available"
            return f"not run: the sandbox cannot start here ({why}); {never}"
        questions = self._scope.questions

        async def decide(host: str) -> Any:
            if questions is None:
                return "unasked"
            return await questions.ask_host(host, command)

        secrets = tuple(s for s in (settings.api_key, settings.auth_token) if s)
        env = payload.environment(command_env(secrets, settings.secret_env_names), root)
        request = LaunchRequest(
            root,
            self._scope.session.id,
            ["/bin/bash", "-c", command],
            env,
            settings.sandbox_masked_paths,
            settings.sandbox_allowed_domains,
            decide,
            _setting_folders(settings.sandbox_writable_paths),
            settings.sandbox_real_caches,
        )
        return await backend().launch(request)

    def _emit(
        self, hook: Hook, event: HookEventName, said: Said, ran: Ran, where: dict[str, str]
    ) -> None:
        extra: dict[str, Any] = dict(where)
        if ran.sandboxed is not None:
            extra["sandboxed"] = ran.sandboxed
        self._scope.events.emit(
            p.EVENT_HOOK,
            event=event,
            hook=ITEM_CHECK if hook.source == "item" else hook.name,
            command=hook.command,
            source=hook.source,
            origin=hook.origin,
            outcome=said.outcome,
            message=said.message,
            durationMs=ran.duration_ms,
            exitCode=ran.exit_code,
            output=ran.output,
            **extra,
        )


def _verdict(run: HookRun) -> bool | None:
    """A check's verdict: passed, failed, or None (it gave none: skipped, or an error a
    hook's protocol does not count as a refusal). A plan item's own check is a plain
    command: any exit but 0 fails it."""
    outcome = run.said.outcome
    if outcome == "ok":
        return True
    if run.said.blocks or (run.hook.source == "item" and outcome in ("failed", "timedOut")):
        return False
    return None


def _context(run: HookRun) -> str:
    hook = run.hook
    return (
        f'<hook-context event="{hook.event}" hook="{hook.name}">\n{run.said.context}\n'
        "</hook-context>"
    )


def _statuses(items: Sequence[TodoItem]) -> dict[tuple[str, str], str]:
    return {(item.id, item.text): item.status for item in items}


def _setting_folders(paths: tuple[str, ...]) -> tuple[Path, ...]:
    """The folders the user's sandbox.writablePaths lets every sandboxed command write."""
    from ..sandbox.policy import setting_folders

    return setting_folders(paths, os.path.expanduser("~"))


def _user_env(scope: RunScope) -> dict[str, str]:
    """The agent's environment for the user's own hooks, without the model's credentials."""
    settings = scope.settings
    secrets = {s for s in (settings.api_key, settings.auth_token) if s}
    return {
        name: value
        for name, value in os.environ.items()
        if name not in CREDENTIALS and value not in secrets
    }
