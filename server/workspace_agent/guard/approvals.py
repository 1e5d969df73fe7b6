"""User approval for what the agent does: a policy per kind of action, and a way to ask.

Kinds: "bash" (running a command) and "write" (changing a file). Each is "ask", "allow"
or "deny" by the workspaceAgent.approvals setting; "Allow for this session" stops the
asking for that kind until the session ends. "bash" may also be "sandboxed" (its
default): a command that runs in the sandbox (sandbox/) goes ahead, any other is asked
about as under "ask".

An action can come with a reason it must be asked about (the command guard could not read
a command with confidence): it is then asked about even under "allow" or after "Allow for
this session", every time, with the reason in the question; "deny" still denies it.

A sandboxed command reaching for a host of the network is asked about *that host*
(`ask_host`, kind "network"): Allow (this command), Allow for this session (that host),
Always allow where the front end can keep it in the user's `sandbox.allowedDomains`
(`HostKeeper`), Deny. The command stays in the sandbox whatever the answer.

What a person granted one invocation up front (`Grants`: the `run` and `acp` commands'
flags) answers some questions before they are asked. `--yes` allows commands and file
changes; it never answers a question about the sandbox's walls: under it a host off the
allowed list is refused at once ("unattended"), and a call that would leave the sandbox is
refused (`widening`), unless `--allow-unsandboxed` allowed exactly that.

"write" may also be "review": every change is asked about with its diff, as Accept /
Reject, and no "for this session" answer.

An action of one `tool` of its kind (an MCP server's tool: kind "mcp:SERVER") also offers
"Allow this tool for this session": that tool alone stops being asked about, the kind's
other tools still are ("Allow for this session" is then the whole kind: every tool of
that server).

A front end that shows questions in detail (the editor's approval cards) implements
`DetailedAsker`: it gets the whole `Question` (the tool call it belongs to, the command or
the diff, why Deny is the default) and may answer a denial with the user's reason, which
reaches the model. Each question asked is reported (`on_status`) when it is asked and when
it is answered, also when a cancelled run answers it (a question of no tool call, a hook's
trust as the run opens, is asked but not reported: no call's card can hold it).

A call may come decided (`decided`, from its observers: a PreToolUse hook): `allow`
answers its question as the `allow` policy would (the guard's must-ask, a `deny` policy,
the sandbox's walls and the network's questions stay), `ask` asks even where the kind is
allowed or was allowed for the session.

Questions come one at a time: read-only calls of one answer run side by side
(agent/concurrency.py), and an MCP tool's call may ask; the next waits for the answer,
which may allow it already ("for this session"). The call a question is about is kept per
task (`call`), so two calls side by side each name their own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ..contract import WITHDRAWN_REASON
from ..shared.errors import ToolError
from ..shared.verdicts import HostVerdict

Answer = Literal["allow", "allow_tool_session", "allow_session", "allow_always", "deny"]
POLICIES = ("ask", "allow", "deny", "sandboxed")
ANSWERS: tuple[Answer, ...] = (
    "allow",
    "allow_tool_session",
    "allow_session",
    "allow_always",
    "deny",
)
ALLOWING: tuple[Answer, ...] = ("allow", "allow_tool_session", "allow_session", "allow_always")
REVIEW = "review"
"""A fifth policy, for "write" only: every change is shown and asked about."""
DEFAULT_POLICY: Mapping[str, str] = {"bash": "sandboxed", "write": "allow"}
NOUNS = {"bash": "running commands", "write": "changing files", "web": "searching the web"}
CALL: ContextVar[tuple[str, str | None] | None] = ContextVar("approvals_call", default=None)
"""The tool call the current task runs (tool_use id, plan item id), set by the loop."""
DECIDED: ContextVar[str | None] = ContextVar("approvals_decided", default=None)
"""What the call the current task runs was decided before it ran (shared/observers.py
`Permission`: a PreToolUse hook's `allow` or `ask`), set by the loop."""


class Asker(Protocol):
    async def ask(self, kind: str, action: str, reason: str | None = None) -> Answer | None:
        """Ask whether the agent may do `action`; None when the user dismissed the question.
        `reason` (a clause) says why this action is asked about although its kind may be
        allowed; such a question offers no "for this session" answer."""


@dataclass(frozen=True)
class Details:
    """What a tool knows about the action beyond its sentence."""

    command: str | None = None
    path: str | None = None
    """Relative to the workspace root."""
    host: str | None = None
    """A network question: the host (`pypi.org`, `localhost:3000`)."""
    destructive: str | None = None
    """Why Deny should be the default (the command guard's clause)."""
    diff: dict[str, Any] | None = None
    """A write: `{path, before, after, line}`."""


@dataclass(frozen=True)
class Question:
    """One question, in full, for a DetailedAsker."""

    kind: str
    action: str
    message: str
    """The sentence a plain question shows: "Workspace Agent wants to run `make`."."""
    reason: str | None = None
    """Why it is asked although its kind may be allowed (the guard's must-ask reason)."""
    details: Details = field(default_factory=Details)
    review: bool = False
    options: tuple[Answer, ...] = ("allow", "allow_session", "deny")
    """What the user may answer; "allow_tool_session" only for a question about a tool."""
    session_id: str | None = None
    tool_use_id: str | None = None
    todo_id: str | None = None


@dataclass(frozen=True)
class Reply:
    answer: Answer | None
    reason: str | None = None
    """The user's words with a denial, for the model."""


@runtime_checkable
class DetailedAsker(Protocol):
    async def ask_in_detail(self, question: Question) -> Reply:
        """Ask `question`; a Reply with answer None counts as a denial."""


@runtime_checkable
class HostKeeper(Protocol):
    def keeps_hosts(self) -> bool:
        """True where an "Always allow" answer lands in the user's sandbox.allowedDomains
        (the front end writes it there)."""


UNATTENDED_WIDENING = (
    "not run: --yes never lets a command leave the sandbox: `unsandboxed_reason` (run outside "
    "it) and `writable_paths` outside the workspace are refused in a run no person watches. "
    "Do the step inside the sandbox, or leave it to the user: a person can allow it for one "
    "invocation with --allow-unsandboxed"
)

UNATTENDED_NO_SANDBOX = (
    "not run: --yes runs commands only in the sandbox, and it cannot start here ({reason}). "
    "A person can allow commands outside it for one invocation with --allow-unsandboxed, or "
    "turn the sandbox off with --sandbox off"
)


@dataclass(frozen=True)
class Grants:
    """What a person granted one invocation up front, on the command line."""

    unattended: bool = False
    """--yes: commands and file changes go ahead unasked; no question about the sandbox's
    walls is answered for them (hosts off the allowed list are refused, no call leaves it)."""
    unsandboxed: bool = False
    """--allow-unsandboxed: a call may leave the sandbox, or write folders outside the
    workspace, without a question. Never implied by --yes."""


NO_GRANTS = Grants()
"""Nothing allowed up front: the editor's server, and `run` / `acp` without the flags."""


@dataclass
class Approvals:
    policy: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_POLICY))
    asker: Asker | None = None
    allowed_for_session: set[str] = field(default_factory=set)
    unanswered: str | None = None
    """The question that was open when the run was cancelled (it counts as declined)."""
    session_id: str | None = None
    on_status: Callable[..., None] | None = None
    """Told of each question: status "waiting", then "allowed" or "denied" (event fields)."""
    grants: Grants = NO_GRANTS
    _asking: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False, compare=False)

    @property
    def call(self) -> tuple[str, str | None] | None:
        """The tool call being run by this task (tool_use id, plan item id), set by the loop."""
        return CALL.get()

    @call.setter
    def call(self, value: tuple[str, str | None] | None) -> None:
        CALL.set(value)

    @property
    def decided(self) -> str | None:
        """`allow` or `ask`: what the call this task runs was decided before it ran."""
        return DECIDED.get()

    @decided.setter
    def decided(self, value: str | None) -> None:
        DECIDED.set(value)

    @property
    def unattended(self) -> bool:
        """No person answers (--yes): nothing is trusted on the user's behalf."""
        return self.grants.unattended

    async def require(
        self,
        kind: str,
        action: str,
        must_ask_reason: str | None = None,
        *,
        details: Details | None = None,
        sandboxed: bool = False,
        tool: str | None = None,
    ) -> None:
        """Return when `action` ("run `make`", "edit a.py ...") may go ahead; raise
        ToolError saying why not. With `must_ask_reason`, the user is asked even where
        `kind` is allowed (only "deny" answers without asking). `sandboxed`: the action is
        confined by the sandbox, which is what the "sandboxed" policy allows. `tool`: the
        action is that tool's, which the user may allow alone for the session."""
        if self._allowed(kind, sandboxed, tool, must_ask_reason):
            return
        mode = self.policy.get(kind, DEFAULT_POLICY.get(kind, "ask"))
        noun = NOUNS.get(kind, kind)
        if mode == "deny":
            raise ToolError(
                f"not allowed: the workspaceAgent.approvals setting denies {noun} ({kind}: deny)"
            )
        why = f" (asked because {must_ask_reason})" if must_ask_reason else ""
        if self.asker is None:
            raise ToolError(f"{noun} needs the user's approval{why}, and there is no one to ask")
        async with self._asking:  # one question at a time; the last answer may do for this
            if self._allowed(kind, sandboxed, tool, must_ask_reason):
                return
            await self._decide(kind, action, must_ask_reason, details, tool, why)

    def may_widen(self) -> bool:
        """Whether a call that would leave the sandbox goes ahead without a question: True
        when a person allowed that for this invocation (--allow-unsandboxed); False when it
        is asked about (every time, whatever was allowed before); ToolError in a run no
        person watches (--yes)."""
        if self.grants.unsandboxed:
            return True
        if self.grants.unattended:
            raise ToolError(UNATTENDED_WIDENING)
        return False

    def check_unconfined(self, reason: str) -> None:
        """A command that would run outside the sandbox only because it cannot start here
        (`reason`): ToolError in a run no person watches, unless a person allowed that."""
        if self.grants.unattended and not self.grants.unsandboxed:
            raise ToolError(UNATTENDED_NO_SANDBOX.format(reason=reason))

    def _allowed(
        self, kind: str, sandboxed: bool, tool: str | None, must_ask_reason: str | None
    ) -> bool:
        """Allowed without a question, by the policy or an answer "for this session"."""
        if must_ask_reason is not None:
            return False
        mode = self.policy.get(kind, DEFAULT_POLICY.get(kind, "ask"))
        decided = self.decided
        if decided == "ask":
            return False
        if decided == "allow" and mode != "deny":
            return True
        review = mode == REVIEW
        tool_key = f"{kind}:{tool}" if tool else None
        return (
            mode == "allow"
            or (mode == "sandboxed" and sandboxed)
            or (kind in self.allowed_for_session and not review)
            or (tool_key in self.allowed_for_session and not review)
        )

    async def _decide(
        self,
        kind: str,
        action: str,
        must_ask_reason: str | None,
        details: Details | None,
        tool: str | None,
        why: str,
    ) -> None:
        review = self.policy.get(kind, DEFAULT_POLICY.get(kind, "ask")) == REVIEW
        tool_key = f"{kind}:{tool}" if tool else None
        question = self._question(
            kind, action, must_ask_reason, details or Details(), review, tool_key is not None
        )
        self._report(question, "waiting")
        try:
            reply = await self._ask(question)
        except asyncio.CancelledError:
            self.unanswered = action
            self._report(question, "denied", WITHDRAWN_REASON)
            raise
        answer = reply.answer if reply.answer in ANSWERS else None
        if answer in ALLOWING:
            self._report(question, "allowed")
        else:
            self._report(question, "denied", reply.reason)
        # A "for this session" answer where none was offered counts as a plain Allow.
        if answer == "allow_session" and "allow_session" in question.options:
            self.allowed_for_session.add(kind)
        elif answer == "allow_tool_session" and "allow_tool_session" in question.options:
            self.allowed_for_session.add(f"{kind}:{tool}")
        elif answer not in ALLOWING:
            said = f': "{reply.reason}"' if reply.reason else ""
            raise ToolError(f"the user declined to let the agent {action}{why}{said}")

    async def ask_host(
        self,
        host: str,
        command: str,
        call: tuple[str, str | None] | None = None,
        message: str | None = None,
    ) -> HostVerdict:
        """May the sandboxed `command` reach `host`? Asked once per host and session at
        most ("for this session"); "unasked" under `approvals.bash: deny` or with no one to
        ask (the host is then refused, and the result says why). `call`: the tool call
        the command belongs to (the proxy asks from tasks of its own). `message`: the
        question's sentence when it is no sandboxed command asking (web_fetch: the agent
        itself reaches the host), which `approvals.bash` then does not decide."""
        key = f"network:{host}"
        if key in self.allowed_for_session:
            return "allowed"
        if self.grants.unattended:  # --yes does not open the network
            return "unattended"
        if self.asker is None or (message is None and self.policy.get("bash") == "deny"):
            return "unasked"
        tool_use_id, todo_id = call or self.call or (None, None)
        keeps = isinstance(self.asker, HostKeeper) and self.asker.keeps_hosts()
        options: tuple[Answer, ...] = (
            ("allow", "allow_session", "allow_always", "deny")
            if keeps
            else ("allow", "allow_session", "deny")
        )
        action = f"let `{command}` reach {host} from the sandbox"
        question = Question(
            "network",
            action,
            message
            or f"Allow network access to `{host}` (from `{command}`)? It stays in the sandbox.",
            details=Details(command=command, host=host),
            options=options,
            session_id=self.session_id,
            tool_use_id=tool_use_id,
            todo_id=todo_id,
        )
        self._report(question, "waiting")
        try:
            reply = await self._ask(question)
        except asyncio.CancelledError:
            self._report(question, "denied", WITHDRAWN_REASON)
            raise
        except ToolError as exc:  # a front end with no one to ask (the CLI without a terminal)
            self._report(question, "denied", str(exc))
            return "unasked"
        answer = reply.answer if reply.answer in question.options else None
        if answer in ALLOWING:
            self._report(question, "allowed")
            if answer in ("allow_session", "allow_always"):
                self.allowed_for_session.add(key)
            return "allowed"
        self._report(question, "denied", reply.reason)
        return "denied"

    def _question(
        self,
        kind: str,
        action: str,
        reason: str | None,
        details: Details,
        review: bool,
        of_tool: bool,
    ) -> Question:
        tool_use_id, todo_id = self.call or (None, None)
        options: tuple[Answer, ...]
        if reason or review:
            options = ("allow", "deny")
        elif of_tool:
            options = ("allow", "allow_tool_session", "allow_session", "deny")
        else:
            options = ("allow", "allow_session", "deny")
        return Question(
            kind,
            action,
            f"Workspace Agent wants to {action}.",
            reason,
            details,
            review,
            options,
            self.session_id,
            tool_use_id,
            todo_id,
        )

    async def _ask(self, question: Question) -> Reply:
        asker = self.asker
        assert asker is not None
        if isinstance(asker, DetailedAsker):
            return await asker.ask_in_detail(question)
        return Reply(await asker.ask(question.kind, question.action, question.reason))

    def _report(self, question: Question, status: str, reason: str | None = None) -> None:
        """The question's approval event; none for a question of no tool call (a hook's
        trust as the run opens or ends), which no call's card can hold."""
        if self.on_status is None or question.tool_use_id is None:
            return
        fields: dict[str, Any] = {
            "toolUseId": question.tool_use_id,
            "todoId": question.todo_id,
            "status": status,
            "message": question.message,
        }
        if reason:
            fields["reason"] = reason
        self.on_status(**fields)
