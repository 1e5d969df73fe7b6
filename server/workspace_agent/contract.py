"""The editor contract in Python: names, Literal aliases and TypedDicts.

GENERATED from contract/workspace-agent.json by scripts/generate_contract.py: do not
edit; change the JSON and run `make generate`. TypedDicts and Literals cost nothing at
run time (nothing is validated per message); mypy checks the server's payloads
against them. protocol.py re-exports the names beside the params' parsers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal, TypedDict, overload

# -- Requests (client -> server) ---------------------------------------------------
RUN_REQUEST: Final = "workspaceAgent/run"
"""Runs a task in a session (a new one without sessionId)."""
MODELS_REQUEST: Final = "workspaceAgent/models"
"""The models to pick from (the agent's table of model families, agent/thinking.py), each
with the thinking levels it takes, and the model and level the settings give; with
`model`, that model is in the list too (an id the table does not know). For a
status-bar or menu picker: the pick goes with each run (RunParams `model` /
`thinking`).
"""
SESSIONS_REQUEST: Final = "workspaceAgent/sessions"
"""The saved sessions, newest first. Takes no params."""
COMMANDS_REQUEST: Final = "workspaceAgent/commands"
"""The slash commands a prompt can start with (`/NAME ARGUMENTS`): the built-ins, then
the saved prompts (`.workspace-agent/commands/NAME.md`, then
`.claude/commands/NAME.md` in the workspace, then `commands/NAME.md` in the user's
config folder; the first of a name wins), read afresh on every request. Takes no
params. A run whose prompt names an unknown command, or a file that cannot be used,
fails (-32803 RequestFailed) before any model call, naming the near matches or the
file.
"""
CHANGES_REQUEST: Final = "workspaceAgent/changes"
"""What each plan item of a session changed (checkpoints)."""
FILE_VERSION_REQUEST: Final = "workspaceAgent/fileVersion"
"""The text of a file before or after a plan item, for a diff."""
HISTORY_REQUEST: Final = "workspaceAgent/history"
"""A session's conversation as the user saw it, a page at a time (history/)."""
HISTORY_IMAGE_REQUEST: Final = "workspaceAgent/historyImage"
"""One image a prompt carried, from a session's history: the `index`-th of the `images`
of its runStart entry `seq`, for a transcript to show (a thumbnail) when it draws the
entry. Fetched one at a time, so a history page carries only the records. -32803
RequestFailed when the history did not keep it (a session saved before images were
kept, or an entry without that image); the message says so.
"""
TOOL_IMAGE_REQUEST: Final = "workspaceAgent/toolImage"
"""One image a tool's result carried (an MCP tool's image content), for a card's
thumbnail: the `index`-th of the `images` of the toolResult of `toolUseId`. Fetched
one at a time, so neither the toolResult notification nor a history page carries the
bytes. -32803 RequestFailed when the history did not keep it (no such call or image,
or a session saved before tool images were kept); the message says so.
"""
TOOL_OUTPUT_REQUEST: Final = "workspaceAgent/toolOutput"
"""The whole output of one tool call, as the model got it."""
BACKGROUND_REQUEST: Final = "workspaceAgent/background"
"""A session's background commands (bash with `run_in_background`): those running in this
server and those that ended, also before a reload (their output files stay in the
session's folder), newest last.
"""
BACKGROUND_OUTPUT_REQUEST: Final = "workspaceAgent/backgroundOutput"
"""A background command's output from `offset` (0: from the start of what is kept, the
last 10 MB), for Show Output; it does not move the model's place (bash_output). -32803
RequestFailed for an unknown session or command.
"""
BACKGROUND_STOP_REQUEST: Final = "workspaceAgent/backgroundStop"
"""Stops one background command (`id`), or every one of the session (no `id`: Stop All):
SIGTERM to its processes, SIGKILL to what is left after 5 seconds; answers once they
are gone, with the session's list. -32803 RequestFailed for an unknown session or
command.
"""
MCP_RESTART_REQUEST: Final = "workspaceAgent/mcpRestart"
"""Stop one MCP server and start it again (`{name}`); answers the states."""
MCP_TRUST_REQUEST: Final = "workspaceAgent/mcpTrust"
"""Trust a workspace's MCP server, the exact config shown (`{name, fingerprint}`)."""
MCP_SET_ENABLED_REQUEST: Final = "workspaceAgent/mcpSetEnabled"
"""Disable or enable one MCP server (`{name, enabled}`), kept in the user config folder."""
SET_ITEM_CHECK_REQUEST: Final = "workspaceAgent/setItemCheck"
"""Give one plan item a check of the user's own (`{sessionId, todoId, command}`: a shell
command that runs, as the user's hooks do, when the item is marked completed;
`command` null or empty takes it away); answers the plan, also sent as
workspaceAgent/todos. Refused while the session runs.
"""
APPROVE_PLAN_REQUEST: Final = "workspaceAgent/approvePlan"
"""Answers a plan (a run that stopped with `planReady`) with the plan as the user left
it: action `run` starts an act-mode run of it, `revise` a plan-mode run that revises
it; the result is that run's, as for workspaceAgent/run (a revised plan's carries
`planDiff`). Errors: -32602 InvalidParams for params that do not fit (an item without
id or text, two items with one id, a comment naming no item of `items`); -32803
RequestFailed, nothing run, for an unknown session, a session with a run in progress,
and an empty `items` (the message says what to do next).
"""
# -- Requests (server -> client) ---------------------------------------------------
SAVE_DOCUMENTS_REQUEST: Final = "workspaceAgent/saveDocuments"
"""Sent before a command runs when the client announced the capability below."""
DIAGNOSTICS_REQUEST: Final = "workspaceAgent/diagnostics"
"""Sent after a tool changed files, and with `all` for a prompt's `@problems`, when the
client announced the capability below.
"""
APPROVAL_REQUEST: Final = "workspaceAgent/approval"
"""Asks for an approval in place of window/showMessageRequest, when the client announced
the capability below; open until answered, or cancelled with the run.
"""
CODE_INTEL_REQUEST: Final = "workspaceAgent/codeIntel"
"""Asks the editor's language extensions about code, for the code_intel and rename_symbol
tools, when the client announced the capability below (then those tools are answered
by the editor, not by configured language servers). The answer is the LSP result of
the operation in its JSON shape: Location[] or LocationLink[] (definition, references,
implementations), Hover or null, DocumentSymbol[] or SymbolInformation[],
SymbolInformation[] or WorkspaceSymbol[] (workspace_symbols),
CallHierarchyIncomingCall[] / CallHierarchyOutgoingCall[] for every item prepared at
the position (incoming_calls, outgoing_calls), WorkspaceEdit or null (rename;
`loadedForRename`, beside `changes`, lists the URIs the client loaded only to compute
it: the server writes their edits on disk rather than into a buffer the user never
opened); an error answer's message is shown to the model.
"""
# -- Notifications (server -> client) ----------------------------------------------
TODOS_NOTIFICATION: Final = "workspaceAgent/todos"
"""The whole plan, sent on every change and at every run start."""
EVENT_NOTIFICATION: Final = "workspaceAgent/event"
"""The live transcript, one event per notification (see `events`)."""
MCP_SERVERS_NOTIFICATION: Final = "workspaceAgent/mcpServers"
"""The MCP servers' states, whenever one changes."""
CHANGES_NOTIFICATION: Final = "workspaceAgent/changes"
"""Same name as CHANGES_REQUEST: the request's result plus sessionId, pushed after every
workspace-changing tool call (at most every 100 ms).
"""
SANDBOX_NOTIFICATION: Final = "workspaceAgent/sandbox"
"""Whether commands run in the sandbox, and if not why: after `initialized` and after a
settings change.
"""
CONTEXT_METER_NOTIFICATION: Final = "workspaceAgent/contextMeter"
"""How full a session's context window is: after each model request of the session's own
agent (not a subagent's) and after `/compact`. Live only: never recorded in the
history, and not a `workspaceAgent/event`, so the event stream a history replays is
unchanged.
"""
# -- Commands (workspace/executeCommand), advertised by the server -----------------
RUN_COMMAND: Final = "workspaceAgent.run"
CANCEL_COMMAND: Final = "workspaceAgent.cancel"
NEW_SESSION_COMMAND: Final = "workspaceAgent.newSession"
GET_TODOS_COMMAND: Final = "workspaceAgent.getTodos"
REVERT_COMMAND: Final = "workspaceAgent.revert"
UNDO_REVERT_COMMAND: Final = "workspaceAgent.undoRevert"
COMMANDS: Final = (
    RUN_COMMAND,
    CANCEL_COMMAND,
    NEW_SESSION_COMMAND,
    GET_TODOS_COMMAND,
    REVERT_COMMAND,
    UNDO_REVERT_COMMAND,
)
# -- Capabilities (`experimental.workspaceAgent` of initialize) --------------------
SAVE_DOCUMENTS_CAPABILITY: Final = "saveDocuments"
"""Key in the client's `experimental.workspaceAgent` capabilities."""
DIAGNOSTICS_CAPABILITY: Final = "diagnostics"
"""Key in the client's `experimental.workspaceAgent` capabilities."""
APPROVALS_CAPABILITY: Final = "approvals"
"""Key in the client's `experimental.workspaceAgent` capabilities."""
ALWAYS_ALLOW_HOSTS_CAPABILITY: Final = "alwaysAllowHosts"
"""Key in the client's `experimental.workspaceAgent` capabilities, next to `approvals`:
the client adds a host answered `allowAlways` to the user's `sandbox.allowedDomains`
setting, so network questions offer it.
"""
CODE_INTEL_CAPABILITY: Final = "codeIntel"
"""Key in the client's `experimental.workspaceAgent` capabilities: the client answers
workspaceAgent/codeIntel (the code_intel and rename_symbol tools are offered, answered
by the editor).
"""
PROTOCOL_VERSION_CAPABILITY: Final = "protocolVersion"
"""Key in the server's `experimental.workspaceAgent` capabilities."""
SANDBOX_CAPABILITY: Final = "sandbox"
"""Key in the server's `experimental.workspaceAgent` capabilities: `{mode}`, the
sandbox.mode setting at `initialize` (whether it can start follows in
SANDBOX_NOTIFICATION: probing it would slow the answer).
"""
REVERT_DRY_RUN_CAPABILITY: Final = "revertDryRun"
"""Announced true next to the version: workspaceAgent.revert / undoRevert take `dryRun`
(a server without it would ignore the flag and revert, so clients check first).
"""
REVERT_ONLY_CAPABILITY: Final = "revertOnly"
"""Announced true next to the version: workspaceAgent.revert takes `only` (take out one
step's changes alone, by a three-way merge).
"""
# -- Version and settings section --------------------------------------------------
PROTOCOL_VERSION: Final = 1
"""The version of this contract, announced at `initialize` in
`capabilities.experimental.workspaceAgent.protocolVersion`. It goes up with any change
an existing client or server would misread (a method, field or meaning renamed,
removed or changed); additions a peer can ignore (an optional field, an event kind)
keep it.
"""
SETTINGS_SECTION: Final = "workspaceAgent"
"""Settings section (initializationOptions / workspace/didChangeConfiguration)."""
# -- Error codes of custom requests ------------------------------------------------
INVALID_PARAMS: Final = -32602
"""JSON-RPC InvalidParams: params that do not fit the contract; the message names the
field.
"""
REQUEST_FAILED: Final = -32803
"""LSP RequestFailed: the params fit but the request cannot be done (an unknown or busy
session, nothing to revert, ...); the message says why.
"""
# -- Fixed texts a peer reads ------------------------------------------------------
WITHDRAWN_REASON: Final = "the run was cancelled before an answer"
"""The `reason` of an `approval` event with `status` `denied` for a question nobody
answered: the run's end withdrew it (a cancel, a window reload, the server stopping).
A client shows the question as not answered and its call as stopped, not as the user's
No.
"""
USER_ITEM_ID_PREFIX: Final = "user-"
"""The id of a plan item the user adds while shaping a plan (workspaceAgent/approvePlan's
`items`) is this prefix and the smallest N from 1 that no item of the plan has (kept
or removed): `user-1`, `user-2`, … A client makes it; the server keeps it as the
item's id.
"""
# -- Settings: what a workspace value may do to each server setting ----------------
SETTING_RULES: Final[dict[str, str]] = {
    "model": "overrides",
    "baseUrl": "ignored",
    "provider": "ignored",
    "bedrock.region": "ignored",
    "vertex.projectId": "ignored",
    "vertex.region": "ignored",
    "customHeaders": "ignored",
    "maxTurns": "overrides",
    "thinking": "overrides",
    "thinkingStyle": "overrides",
    "maxTokens": "overrides",
    "bashTimeoutSeconds": "overrides",
    "maxFileBytes": "overrides",
    "maxRetries": "overrides",
    "contextWindow": "overrides",
    "maxRunTokens": "lowers",
    "promptCaching": "overrides",
    "approvals": "stricter",
    "secretEnvNames": "adds",
    "sandbox.mode": "confines",
    "sandbox.maskedPaths": "adds",
    "sandbox.allowedDomains": "ignored",
    "sandbox.realCaches": "ignored",
    "sandbox.writablePaths": "ignored",
    "web": "ignored",
    "allowWorkspaceBaseUrl": "ignored",
    "checkpoints.enabled": "overrides",
    "checkpoints.maxBytes": "overrides",
    "checkpoints.watchFiles": "overrides",
    "mcp.servers": "ignored",
    "lspServers": "ignored",
    "mcp.startupWaitSeconds": "overrides",
    "instructions.files": "overrides",
    "context.maxChars": "overrides",
    "codeActions.enabled": "overrides",
    "followAgent": "overrides",
}
"""overrides: wins; ignored: user settings only; stricter: approvals only towards deny;
confines: sandbox.mode only towards required; adds: list entries added; lowers: a cap
only lowered (the settings files of the CLI and ACP, settings_file.py).
"""
TIGHTENING: Final[dict[str, dict[str, Any]]] = {
    "python": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "baseUrl": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "provider": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "bedrock.region": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "vertex.projectId": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "vertex.region": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "customHeaders": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "maxRunTokens": {
        "rule": "lowers",
        "combine": "cap",
        "none": 0,
        "start": 0,
    },
    "approvals": {
        "rule": "stricter",
        "combine": "toward",
        "order": ["allow", "sandboxed", "ask", "review", "deny"],
        "entries": {
            "bash": ["sandboxed", "ask", "allow", "deny"],
            "write": ["ask", "allow", "deny", "review"],
            "mcp": ["ask", "allow", "deny"],
        },
        "start": {
            "bash": "sandboxed",
            "mcp": "ask",
            "write": "allow",
        },
    },
    "secretEnvNames": {
        "rule": "adds",
        "combine": "union",
        "trim": " \t\n\r\f\u000b",
    },
    "sandbox.mode": {
        "rule": "confines",
        "combine": "toward",
        "order": ["off", "auto", "required"],
        "start": "auto",
    },
    "sandbox.maskedPaths": {
        "rule": "adds",
        "combine": "union",
        "trim": " \t\n\r\f\u000b",
    },
    "sandbox.allowedDomains": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "sandbox.realCaches": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "sandbox.writablePaths": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "web": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "allowWorkspaceBaseUrl": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "mcp.servers": {
        "rule": "ignored",
        "combine": "userOnly",
    },
    "lspServers": {
        "rule": "ignored",
        "combine": "userOnly",
    },
}
"""Every setting a workspace value may not simply override, with what its rule needs
(contract workspaceRules): agent/settings_rules.py combines the levels by it, as
vscode-extension/src/core/settingsRules.ts does from the same table.
"""
SERVER_SETTINGS: Final[tuple[tuple[str, str, str | None, bool], ...]] = (
    ("model", "model", "MODEL_ID", True),
    ("base_url", "baseUrl", "ANTHROPIC_BASE_URL", True),
    ("provider", "provider", "WORKSPACE_AGENT_PROVIDER", False),
    ("bedrock_region", "bedrock.region", "AWS_REGION", True),
    ("vertex_project_id", "vertex.projectId", "ANTHROPIC_VERTEX_PROJECT_ID", True),
    ("vertex_region", "vertex.region", "CLOUD_ML_REGION", True),
    ("custom_headers", "customHeaders", "ANTHROPIC_CUSTOM_HEADERS", False),
    ("max_turns", "maxTurns", "WORKSPACE_AGENT_MAX_TURNS", True),
    ("thinking", "thinking", "WORKSPACE_AGENT_THINKING", True),
    ("thinking_style", "thinkingStyle", "WORKSPACE_AGENT_THINKING_STYLE", True),
    ("max_tokens", "maxTokens", "WORKSPACE_AGENT_MAX_TOKENS", True),
    ("bash_timeout_seconds", "bashTimeoutSeconds", "WORKSPACE_AGENT_BASH_TIMEOUT", True),
    ("max_file_bytes", "maxFileBytes", "WORKSPACE_AGENT_MAX_FILE_BYTES", True),
    ("max_retries", "maxRetries", "WORKSPACE_AGENT_MAX_RETRIES", True),
    ("context_window", "contextWindow", "WORKSPACE_AGENT_CONTEXT_WINDOW", True),
    ("max_run_tokens", "maxRunTokens", "WORKSPACE_AGENT_MAX_RUN_TOKENS", True),
    ("prompt_caching", "promptCaching", "WORKSPACE_AGENT_PROMPT_CACHING", True),
    ("approvals", "approvals", None, True),
    ("secret_env_names", "secretEnvNames", None, True),
    ("sandbox_mode", "sandbox.mode", "WORKSPACE_AGENT_SANDBOX", False),
    ("sandbox_masked_paths", "sandbox.maskedPaths", None, True),
    ("sandbox_allowed_domains", "sandbox.allowedDomains", None, True),
    ("sandbox_real_caches", "sandbox.realCaches", None, True),
    ("sandbox_writable_paths", "sandbox.writablePaths", None, True),
    ("web", "web", "WORKSPACE_AGENT_WEB", False),
    ("allow_workspace_base_url", "allowWorkspaceBaseUrl", None, True),
    ("checkpoints_enabled", "checkpoints.enabled", "WORKSPACE_AGENT_CHECKPOINTS", True),
    (
        "checkpoints_max_bytes",
        "checkpoints.maxBytes",
        "WORKSPACE_AGENT_CHECKPOINTS_MAX_BYTES",
        True,
    ),
    (
        "checkpoints_watch_files",
        "checkpoints.watchFiles",
        "WORKSPACE_AGENT_CHECKPOINTS_WATCH_FILES",
        True,
    ),
    ("mcp_servers", "mcp.servers", None, True),
    ("lsp_servers", "lspServers", None, True),
    (
        "mcp_startup_wait_seconds",
        "mcp.startupWaitSeconds",
        "WORKSPACE_AGENT_MCP_STARTUP_WAIT",
        True,
    ),
    ("instruction_files", "instructions.files", None, True),
    ("context_max_chars", "context.maxChars", "WORKSPACE_AGENT_CONTEXT_MAX_CHARS", True),
    ("code_actions_enabled", "codeActions.enabled", "WORKSPACE_AGENT_CODE_ACTIONS", True),
    ("follow_agent", "followAgent", None, True),
)
"""(field, editor key, environment variable, whether the workspace's .env may set it) of
each server setting: config.py's KEYS, each with its parser.
"""

# -- Enumerations ------------------------------------------------------------------
StopReason = Literal[
    "end_turn", "stop_sequence", "cancelled", "max_turns", "budget", "refusal", "error", "planReady"
]
"""Why a run stopped; `stop_sequence`: the model's answer ended at one of the request's
stop sequences (a success, like `end_turn`; ACP reports it as `end_turn`); `refusal`:
the model declined to go on with the request (its answer is shown, not kept in the
conversation); `planReady`: a plan-mode run ended with a plan, which is the result's
`todos` (answer it with workspaceAgent/approvePlan).
"""
STOP_REASONS: Final[tuple[StopReason, ...]] = (
    "end_turn",
    "stop_sequence",
    "cancelled",
    "max_turns",
    "budget",
    "refusal",
    "error",
    "planReady",
)
StopCause = Literal["user", "reload", "restart", "serverStopped"]
"""What cut a `cancelled` run short (runEnd's `cause`): `user`, the user cancelled it;
`reload`, the editor's window was reloaded or closed, `restart`, the editor restarted
the server (the client said so with workspaceAgent.cancel before stopping the server);
`serverStopped`, the server was ended while the run went (`shutdown` or `exit` without
a cause given, its input closed, the client's process gone, a signal).
"""
STOP_CAUSES: Final[tuple[StopCause, ...]] = (
    "user",
    "reload",
    "restart",
    "serverStopped",
)
HostRefusal = Literal["metadata", "unattended"]
"""Why a sandboxed command's host was refused without a question (NetworkHost's
`refused`): `metadata`, an instance-metadata or link-local address (169.254.0.0/16,
fe80::/10, fd00:ec2::254, and names that lead there), refused by rule unless the user
lists it exactly; `unattended`, a run started with `--yes`, which answers questions
about commands and file changes but does not open the network.
"""
HOST_REFUSALS: Final[tuple[HostRefusal, ...]] = (
    "metadata",
    "unattended",
)
RevertAction = Literal["revert", "only", "undo"]
"""What a `revert` event did: `revert`, the files went back to before a plan item (or the
last run's start); `only`, one plan item's changes were taken out alone; `undo`, a
revert was undone.
"""
REVERT_ACTIONS: Final[tuple[RevertAction, ...]] = (
    "revert",
    "only",
    "undo",
)
ThinkingLevel = Literal["off", "low", "medium", "high", "max"]
"""How much the model thinks (the `thinking` setting): the effort on adaptive families, a
token budget on older ones; `off` only, for a model that takes no thinking.
"""
THINKING_LEVELS: Final[tuple[ThinkingLevel, ...]] = (
    "off",
    "low",
    "medium",
    "high",
    "max",
)
RunMode = Literal["act", "plan"]
"""How a run may work: `act` (the default) as always; `plan` looks but does not touch:
read_file and todo as usual, write_file and edit_file refused, bash in the sandbox
with the whole workspace read-only (asked about where no sandbox can start), MCP tools
only where their server marks them `readOnlyHint`; the run ends with stopReason
`planReady`.
"""
RUN_MODES: Final[tuple[RunMode, ...]] = (
    "act",
    "plan",
)
PlanAction = Literal["run", "revise"]
"""What workspaceAgent/approvePlan does with the plan: `run` it (act mode), or `revise`
it (plan mode, with the comments and edits).
"""
PLAN_ACTIONS: Final[tuple[PlanAction, ...]] = (
    "run",
    "revise",
)
PlanChange = Literal["new", "reworded", "unchanged"]
"""How an item of a revised plan differs from the plan it revises, matched by id: `new`
(no item had its id), `reworded` (its text changed), `unchanged`.
"""
PLAN_CHANGES: Final[tuple[PlanChange, ...]] = (
    "new",
    "reworded",
    "unchanged",
)
TodoStatus = Literal["pending", "in_progress", "completed"]
"""Where a plan item stands."""
TODO_STATUSES: Final[tuple[TodoStatus, ...]] = (
    "pending",
    "in_progress",
    "completed",
)
ChangeKind = Literal["added", "modified", "deleted"]
"""How a file changed under a plan item."""
CHANGE_KINDS: Final[tuple[ChangeKind, ...]] = (
    "added",
    "modified",
    "deleted",
)
FileSide = Literal["before", "after"]
"""The sides of a diff."""
FILE_SIDES: Final[tuple[FileSide, ...]] = (
    "before",
    "after",
)
BackgroundState = Literal["running", "exited", "stopped"]
"""Where a background command stands: `running`; `exited` by itself (`exitCode` says
how); `stopped` by bash_stop, the user, the session's /clear, the end of a headless
run or of the server (`note` says which).
"""
BACKGROUND_STATES: Final[tuple[BackgroundState, ...]] = (
    "running",
    "exited",
    "stopped",
)
ApprovalStatus = Literal["waiting", "allowed", "denied"]
"""A question to the user: `waiting` when asked, then `allowed` or `denied`."""
APPROVAL_STATUSES: Final[tuple[ApprovalStatus, ...]] = (
    "waiting",
    "allowed",
    "denied",
)
ApprovalDecision = Literal["allow", "allowToolSession", "allowSession", "allowAlways", "deny"]
"""The answers to workspaceAgent/approval; `allowAlways` is offered for a network
question (`kind` `network`) to a client that announced `alwaysAllowHosts`: the client
adds `host` to the user's `sandbox.allowedDomains` (and the host is allowed for the
session at once); `allowToolSession` is offered for a question about one MCP tool:
that tool for the session (`allowSession` is then every tool of its server).
"""
APPROVAL_DECISIONS: Final[tuple[ApprovalDecision, ...]] = (
    "allow",
    "allowToolSession",
    "allowSession",
    "allowAlways",
    "deny",
)
Severity = Literal[1, 2, 3, 4]
"""LSP DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint."""
ToolKind = Literal["read", "edit", "execute", "plan", "search", "fetch", "other"]
"""Kinds of tools, for showing their calls by kind: `search` finds in the workspace or on
the web (search, find_files, web_search), `fetch` reads a web page (web_fetch).
"""
SandboxMode = Literal["auto", "required", "off"]
"""The sandbox.mode setting."""
McpSource = Literal["user", "editor", "workspace", "acp", "command line"]
"""Where an MCP server was configured."""
McpState = Literal["starting", "ready", "failed", "stopped", "not started", "disabled"]
"""What an MCP server is doing."""
MCP_STATES: Final[tuple[McpState, ...]] = (
    "starting",
    "ready",
    "failed",
    "stopped",
    "not started",
    "disabled",
)
McpNextStep = Literal["trust", "enable", "restart", "openSettings"]
"""`data.nextStep` of an MCP request's error: what the user can do instead."""
MCP_NEXT_STEPS: Final[tuple[McpNextStep, ...]] = (
    "trust",
    "enable",
    "restart",
    "openSettings",
)
CommandSource = Literal["built-in", "workspace", "claude", "user", "skill"]
"""Where a slash command comes from: the server itself, the workspace's
`.workspace-agent/commands` or `.claude/commands`, the user's config folder's
`commands`, or an Agent Skill (its `SKILL.md`, the workspace's or the user's; a skill
comes before a command file of the same name).
"""
InstructionScope = Literal["user", "project", "folder"]
"""Whose instruction file it is: the user's, the project root's or a subfolder's."""
HookEventName = Literal[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "PreCompact",
    "Stop",
    "SubagentStop",
    "TaskCompleted",
]
"""The agent's events a hook runs at, Claude Code's names (`hooks.<Event>` of a settings
file); `TaskCompleted`: a plan item marked `completed`; `SubagentStop`: a `task`
call's subagent ended.
"""
HOOK_EVENTS: Final[tuple[HookEventName, ...]] = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "PreCompact",
    "Stop",
    "SubagentStop",
    "TaskCompleted",
)
HookOutcome = Literal["ok", "blocked", "failed", "timedOut", "skipped", "cancelled"]
"""How a hook run ended: `ok` (exit 0), `blocked` (exit 2, or JSON that blocks or denies:
the call, the stop, the prompt or the item's completion was refused), `failed`
(another exit status, or it could not start: the run goes on), `timedOut` (killed at
its timeout), `skipped` (a workspace hook not trusted yet), `cancelled` (the run was
cancelled).
"""
HookSource = Literal["user", "workspace", "item"]
"""Whose a hook is: the user's own files (runs on the host), the workspace's (runs in the
sandbox once trusted), or a plan item's check the user added (runs as the user's).
"""

# -- Events (workspaceAgent/event), in the order a run usually produces them -------
EVENT_RUN_START: Final = "runStart"
EVENT_TEXT: Final = "text"
EVENT_THINKING: Final = "thinking"
EVENT_TOOL_CALL: Final = "toolCall"
EVENT_TOOL_RESULT: Final = "toolResult"
EVENT_SUBAGENT: Final = "subagent"
EVENT_REMINDER: Final = "reminder"
EVENT_RETRY: Final = "retry"
EVENT_PREPARING: Final = "preparing"
EVENT_NOTICE: Final = "notice"
EVENT_ERROR: Final = "error"
EVENT_RUN_END: Final = "runEnd"
EVENT_REVERT: Final = "revert"
EVENT_BACKGROUND: Final = "background"
EVENT_BACKGROUND_OUTPUT: Final = "backgroundOutput"
EVENT_APPROVAL: Final = "approval"
EVENT_HOOK: Final = "hook"
EVENT_KINDS: Final = (
    EVENT_RUN_START,
    EVENT_TEXT,
    EVENT_THINKING,
    EVENT_TOOL_CALL,
    EVENT_TOOL_RESULT,
    EVENT_SUBAGENT,
    EVENT_REMINDER,
    EVENT_RETRY,
    EVENT_PREPARING,
    EVENT_NOTICE,
    EVENT_ERROR,
    EVENT_RUN_END,
    EVENT_REVERT,
    EVENT_BACKGROUND,
    EVENT_BACKGROUND_OUTPUT,
    EVENT_APPROVAL,
    EVENT_HOOK,
)


# -- Payload types: for mypy only (nothing to build at run time) -------------------
if TYPE_CHECKING:
    from typing_extensions import NotRequired
    # -- Structures --------------------------------------------------------------------

    class SessionRef(TypedDict):
        """Params naming one session."""

        sessionId: str

    class CancelArgs(TypedDict):
        """Argument of workspaceAgent.cancel."""

        sessionId: str
        cause: NotRequired[StopCause]
        """Why it is cancelled, for the run's end (default `user`): a client about to stop
        the server says `reload` or `restart`.
        """

    class TodoItem(TypedDict):
        """One step of the agent's plan."""

        id: str
        """Stable id chosen by the model."""
        text: str
        """What the step is about; never empty."""
        status: TodoStatus
        check: NotRequired[ItemCheck]
        """The last check of the item's completion (a `TaskCompleted` hook, or its own
        check); absent until one ran.
        """
        checkCommand: NotRequired[str]
        """The item's own check, added by the user (workspaceAgent/setItemCheck); absent
        without one.
        """

    class ItemCheck(TypedDict):
        """The last check of a plan item's completion: when it fails the item stays
        `in_progress` and the model is told why.
        """

        passed: bool
        firstLine: str
        """The first non-blank line of what it said (stderr when it failed, else stdout);
        empty when it said nothing.
        """
        output: str
        """What it printed, stdout then stderr, its first 10,000 characters."""
        hook: str
        """Which check ran: the hook's short name (`pytest`), or `check` for the item's own."""
        durationMs: int

    class ItemCheckParams(TypedDict):
        """Params of workspaceAgent/setItemCheck."""

        sessionId: str
        todoId: str
        command: str | None
        """A shell command run in the workspace root when the item is marked completed; null
        or blank takes the check away.
        """

    class Usage(TypedDict):
        """Tokens billed for a run: uncached input, output, and prompt-cache writes and
        reads.
        """

        inputTokens: int
        outputTokens: int
        cacheWriteTokens: int
        cacheReadTokens: int
        webSearches: NotRequired[int]
        """Searches the web search tool made (web_search), billed per search: absent when
        there were none.
        """

    class Position(TypedDict):
        """An LSP position (UTF-16 code units, which is what VS Code counts too)."""

        line: int
        character: int

    class Range(TypedDict):
        """An LSP range."""

        start: Position
        end: Position

    class ContextDiagnostic(TypedDict):
        """A problem the editor shows, located by a path relative to the workspace root."""

        path: str
        range: Range
        severity: NotRequired[Severity]
        message: str
        source: NotRequired[str]
        code: NotRequired[str | int]

    class Selection(TypedDict):
        """Text the user selected: where it is and what it says."""

        path: str
        range: Range
        text: str

    class RunContext(TypedDict):
        """What the editor knows as the user asks; paths relative to the workspace root, with
        "/".
        """

        activeFile: NotRequired[str]
        selection: NotRequired[Selection]
        diagnostics: NotRequired[list[ContextDiagnostic]]

    class RunParams(TypedDict):
        """Params of workspaceAgent/run: without sessionId the server starts a new session."""

        prompt: str
        sessionId: NotRequired[str]
        context: NotRequired[RunContext]
        """Put ahead of the prompt in the model's message (docs/protocol.md,
        workspaceAgent/run).
        """
        mode: NotRequired[RunMode]
        """`act` when absent. A prompt that starts with `/plan ` is a plan-mode run too (the
        prefix is taken off).
        """
        model: NotRequired[str]
        """The model for this run in place of the `model` setting (a picker's choice for the
        session; the settings are not changed).
        """
        thinking: NotRequired[ThinkingLevel]
        """The thinking level for this run in place of the `thinking` setting. A level the
        run's model does not take (anything but `off` for a model without thinking) is
        refused with -32803 RequestFailed, nothing run, the message saying which levels it
        takes.
        """
        images: NotRequired[list[PromptImage]]
        """Images sent to the model with the prompt (a pasted screenshot). Each is checked
        before the run starts: PNG, JPEG, GIF or WebP by its bytes, `mediaType` what the
        bytes are, at most 5 MB as base64 and 8000 pixels a side; otherwise the request
        fails (-32803) saying which and why, and nothing runs.
        """

    class PromptImage(TypedDict):
        """An image given with a prompt."""

        data: str
        """The image's bytes, base64."""
        mediaType: str
        """`image/png`, `image/jpeg`, `image/gif` or `image/webp`."""

    class ImageRecord(TypedDict):
        """What a transcript keeps of an image a prompt carried (the image itself stays in
        the session's conversation, which the model needs).
        """

        mediaType: str
        width: int
        height: int
        bytes: int

    class CostEstimate(TypedDict):
        """A run's cost estimated from the server's table of list prices (not a bill)."""

        usd: float
        model: str
        """The model the prices are of."""

    class RunResult(TypedDict):
        """What a run returns once it has stopped (also after a cancel)."""

        sessionId: str
        stopReason: StopReason
        text: str
        todos: list[TodoItem]
        usage: Usage
        cost: CostEstimate | None
        """null when the server knows no price for the model, and on Amazon Bedrock or Google
        Vertex AI (`provider`), whose prices are not Anthropic's list prices.
        """
        error: NotRequired[str]
        """Present when stopReason is "error": a message meant for the user."""
        planDiff: NotRequired[PlanDiff]
        """With stopReason `planReady` when the run revised a plan
        (workspaceAgent/approvePlan `revise`): `todos` against that plan.
        """

    class PlanDiff(TypedDict):
        """A revised plan against the plan it revises (the one sent with `revise`), items
        matched by id: one entry per item of the result's `todos`, in their order, and the
        items the revision left out.
        """

        items: list[PlanDiffItem]
        """One per item of `todos`, same order."""
        removed: list[PlanItem]
        """Items of the previous plan whose id the revision no longer has, in their old
        order.
        """

    class PlanDiffItem(TypedDict):
        """How one item of a revised plan changed."""

        id: str
        change: PlanChange
        previousText: NotRequired[str]
        """The item's text in the previous plan, when `change` is `reworded`."""

    class PlanItem(TypedDict):
        """One item of a plan as the user left it: kept items keep their ids; a new item
        needs an id no other item has (e.g. `user-1`).
        """

        id: str
        text: str
        """Never empty; one line (line breaks become spaces)."""
        edited: NotRequired[bool]
        """true for an item the user reworded or added: the model is told so."""

    class PlanComment(TypedDict):
        """A comment of the user on one item of the plan."""

        todoId: str
        """The id of an item of `items`."""
        text: str

    class ApprovePlanParams(TypedDict):
        """Params of workspaceAgent/approvePlan: the plan in the order the user left it
        (deleted items left out), the user's comments, and what to do.
        """

        sessionId: str
        items: list[PlanItem]
        """With `run`, the act run's todo list is set to them (ids kept, every status
        pending) before the model's first turn.
        """
        comments: NotRequired[list[PlanComment]]
        """None when absent."""
        action: PlanAction
        model: NotRequired[str]
        """As RunParams `model`: the run of the plan uses it."""
        thinking: NotRequired[ThinkingLevel]
        """As RunParams `thinking`."""

    class TodosPayload(TypedDict):
        """Body of workspaceAgent/todos: the whole plan, sent on every change and at every
        run start.
        """

        sessionId: str
        items: list[TodoItem]
        completed: int
        total: int

    class TodoCounts(TypedDict):
        """How many plan items are done, of how many."""

        completed: int
        total: int

    class SessionSummary(TypedDict):
        """One saved session, as workspaceAgent/sessions lists it."""

        sessionId: str
        title: str
        """The session's first prompt."""
        updatedAt: str
        """ISO 8601, UTC."""
        messages: int
        todos: TodoCounts
        running: bool
        """A run is going in it (in this server)."""

    class ModelsParams(TypedDict):
        """Params of workspaceAgent/models (may be absent)."""

        model: NotRequired[str]
        """A model id to describe too, such as one the user typed."""

    class ModelChoice(TypedDict):
        """One model to pick, and the thinking levels it takes."""

        id: str
        """The model id sent to the Messages API."""
        label: str
        """How to show it (`Sonnet 4.5`); the id for a model the table does not know."""
        levels: list[ThinkingLevel]
        """The levels it takes, `off` first; `["off"]` for a model without thinking."""
        defaultLevel: ThinkingLevel
        """Its level when the `thinking` setting is not given."""
        known: bool
        """False for an id the agent's table of model families does not know (no thinking
        unless `thinkingStyle` says its form).
        """

    class ModelsResult(TypedDict):
        """Result of workspaceAgent/models."""

        models: list[ModelChoice]
        """The table's models, newest first, then the settings' model and `model` if the
        table does not list them.
        """
        model: str
        """The model the settings give (`model`, else `MODEL_ID`, else the default)."""
        thinking: ThinkingLevel
        """The level runs use with the settings' model: the `thinking` setting, else the
        model's default.
        """

    class SessionsResult(TypedDict):
        """Result of workspaceAgent/sessions: newest first, plus one line per unreadable
        file.
        """

        sessions: list[SessionSummary]
        problems: list[str]

    class SlashCommand(TypedDict):
        """One command of workspaceAgent/commands; a prompt `/NAME ARGUMENTS` runs it
        (`$ARGUMENTS`, `$1`, `$2`... in a saved prompt's text are replaced).
        """

        name: str
        """Without the `/`."""
        description: str
        """The file's front matter `description`, else its first line."""
        argumentHint: NotRequired[str]
        """Front matter `argument-hint`: what to type after the name (a client asks for it
        when set).
        """
        source: CommandSource
        path: NotRequired[str]
        """The command's file (absent for built-ins)."""

    class CommandsResult(TypedDict):
        """Result of workspaceAgent/commands, plus one line per command file that cannot be
        used (naming the file).
        """

        commands: list[SlashCommand]
        problems: list[str]

    class NewSessionResult(TypedDict):
        """Result of the workspaceAgent.newSession command."""

        sessionId: str

    class CancelResult(TypedDict):
        """Result of the workspaceAgent.cancel command."""

        cancelled: bool

    class SaveDocumentsParams(TypedDict):
        """Params of workspaceAgent/saveDocuments: documents the agent edited through the
        editor.
        """

        uris: list[str]

    class SaveDocumentsResult(TypedDict):
        """Which of them the editor saved (the server writes the others itself)."""

        saved: list[str]

    class NetworkHost(TypedDict):
        """A host a sandboxed command reached for, and whether it was allowed (on
        `sandbox.allowedDomains`, or by the user's answer).
        """

        host: str
        allowed: bool
        refused: NotRequired[HostRefusal]
        """Why the host was refused without a question: `metadata` (an instance-metadata or
        link-local address, refused by rule unless listed exactly), `unattended` (a run
        started with `--yes`, which does not open the network). Absent when the user was
        asked, or the host was allowed.
        """

    class SandboxBlock(TypedDict):
        """Something the sandbox blocked a failed command from doing (read from its output,
        and the hosts it was not let reach), said for the user's card.
        """

        kind: str
        """`write`, `network` or `socket` (a Unix socket outside the sandbox)."""
        target: NotRequired[str]
        """The path (`~/.cache/pip`, relative inside the workspace) or host, when known."""
        setting: NotRequired[str]
        """The user setting that lets it through when one does: `sandbox.allowedDomains` (add
        the host), `sandbox.realCaches` (a package cache in the home folder),
        `sandbox.writablePaths` (add `folder`).
        """
        folder: NotRequired[str]
        """With `sandbox.writablePaths`: the folder to add (`~/...` or absolute), the written
        path's nearest existing folder that the setting accepts.
        """

    class ChangedFile(TypedDict):
        """A file changed under a plan item (path relative to the workspace root, with "/")."""

        path: str
        pathBytes: NotRequired[str]
        """Present when the name is not valid UTF-8: its bytes, base64 (`path` is then its
        readable form; see *File names*).
        """
        change: ChangeKind
        additions: int
        deletions: int
        binary: NotRequired[bool]
        """Present (true) for binary files: no line counts, no text versions."""
        reverted: NotRequired[bool]
        """The file is now as before that step (a revert took the change back): in
        workspaceAgent/changes, not in a toolResult's `changes`.
        """
        unsure: NotRequired[str]
        """The change may not all be the step's, and why (`saved in the editor while the
        step's command ran`): a revert leaves it alone unless forced (it asks first).
        """

    class CommandRun(TypedDict):
        """A bash command run under a plan item; exitCode null when it did not finish by
        itself.
        """

        command: str
        exitCode: int | None
        toolUseId: str | None
        """Its tool call, for workspaceAgent/toolOutput (null: recorded before it was kept)."""

    class SkippedFile(TypedDict):
        """A file that could not be checkpointed or reverted, and why."""

        path: str
        pathBytes: NotRequired[str]
        """Present when the name is not valid UTF-8: its bytes, base64 (`path` is then its
        readable form; see *File names*).
        """
        reason: str

    class NonUtf8Name(TypedDict):
        """A name listed as text (`restored`, `deleted`) that is not valid UTF-8: the
        readable form the list shows, and its bytes.
        """

        path: str
        """Its readable form, as listed."""
        pathBytes: str
        """Its bytes, base64."""

    class ItemChanges(TypedDict):
        """What one occurrence of a plan item changed; todoId null: changes made before any
        item was in progress. Ids are reused by later plans: `key` names this occurrence.
        The server also says what the view shows of it (its name, whether it can be
        reverted to, which plan row shows it), so the extension never works that out
        itself.
        """

        todoId: str | None
        key: str
        text: str | None
        """The item's text when it first changed something (null: before the plan, or not
        recorded).
        """
        lastText: NotRequired[str]
        """Its latest text, when it was reworded since."""
        displayName: str
        """How messages, revert targets and titles name it: 'plan item #2 "Format the code"'."""
        run: int | None
        """The run (RunInfo.run) of its first change (null: recorded before the first run
        record, in an older journal).
        """
        reverted: bool
        """Its changes are taken back now (a revert to before it, or an `only` revert of it)."""
        revertible: bool
        """A revert to before it has something to take back (as the journal tells; the dry
        run is exact).
        """
        notRevertibleReason: NotRequired[str]
        """When not revertible: why ("the agent changed no files from … on")."""
        planRow: str | None
        """The current plan's row for its step: that row's text, exactly (null: none)."""
        shown: bool
        """That row (todoId null: "Before the plan") shows it; false: an earlier step."""
        files: list[ChangedFile]
        commands: list[CommandRun]
        skipped: NotRequired[list[SkippedFile]]
        """Files the item changed that the store could not keep (too large, ...)."""

    class RunInfo(TypedDict):
        """A run of the session that the changes belong to."""

        run: int
        prompt: str | None
        """What the user asked (its first 500 characters); null when not recorded."""
        startedAt: str
        """ISO 8601, UTC."""

    class RevertRecord(TypedDict):
        """A revert made in the session (newest last); undone once undoRevert put it back."""

        undoId: str
        target: str
        undone: bool

    class Changes(TypedDict):
        """What each plan item of a session changed: workspaceAgent/changes without sessionId
        (what the checkpoints build).
        """

        items: list[ItemChanges]
        runs: list[RunInfo]
        """The runs the items (and lastRun) belong to; absent from older servers."""
        lastRun: int | None
        """The run Revert Last Run goes back to the start of (null: no run changed files)."""
        reverts: list[RevertRecord]

    class ChangesResult(Changes):
        """Result of workspaceAgent/changes, and the body of the notification of that name."""

        sessionId: str

    class FileVersionParams(TypedDict):
        """Params of workspaceAgent/fileVersion."""

        sessionId: str
        todoId: str | None
        key: NotRequired[str]
        """The occurrence (ItemChanges.key); without it, the latest occurrence of todoId."""
        path: str
        """As the changes list it (a name that is not valid UTF-8: its readable form)."""
        pathBytes: NotRequired[str]
        """The name's bytes, base64, when the changes gave them (`ChangedFile.pathBytes`):
        they name the file exactly.
        """
        side: FileSide

    class FileVersionResult(TypedDict):
        """Result of workspaceAgent/fileVersion: null when the file did not exist on that
        side.
        """

        text: str | None

    class RevertItemArgs(TypedDict):
        """Argument of workspaceAgent.revert for a plan item: its key, else todoId (null =
        before the plan). `dryRun` only says what would be done
        (REVERT_DRY_RUN_CAPABILITY).
        """

        sessionId: str
        todoId: str | None
        key: NotRequired[str]
        force: NotRequired[bool]
        dryRun: NotRequired[bool]
        only: NotRequired[bool]

    class RevertLastRunArgs(TypedDict):
        """Argument of workspaceAgent.revert for the session's last run that changed files."""

        sessionId: str
        lastRun: Literal[True]
        force: NotRequired[bool]
        dryRun: NotRequired[bool]

    class UndoRevertResult(TypedDict):
        """Result of workspaceAgent.undoRevert (with dryRun: what it would do; nothing was
        changed).
        """

        restored: list[str]
        deleted: list[str]
        skipped: list[SkippedFile]
        nonUtf8Names: NotRequired[list[NonUtf8Name]]
        """Present when a name in `restored` or `deleted` is not valid UTF-8: each such
        name's bytes.
        """
        dryRun: NotRequired[Literal[True]]

    class RevertResult(TypedDict):
        """Result of workspaceAgent.revert; undoId undoes it with workspaceAgent.undoRevert."""

        restored: list[str]
        deleted: list[str]
        skipped: list[SkippedFile]
        nonUtf8Names: NotRequired[list[NonUtf8Name]]
        """Present when a name in `restored` or `deleted` is not valid UTF-8: each such
        name's bytes.
        """
        conflicts: NotRequired[list[SkippedFile]]
        """`only` reverts: files where later changes overlap the step's (none here: see
        RevertConflictResult).
        """
        undoId: str

    class RevertConflictResult(TypedDict):
        """Result of an `only` workspaceAgent.revert whose step's changes overlap later ones:
        nothing was written, so there is nothing to undo.
        """

        restored: list[str]
        deleted: list[str]
        skipped: list[SkippedFile]
        nonUtf8Names: NotRequired[list[NonUtf8Name]]
        """Present when a name in `restored` or `deleted` is not valid UTF-8: each such
        name's bytes.
        """
        conflicts: list[SkippedFile]
        """The files where later steps changed the same lines."""
        undoId: None

    class RevertDryRunResult(TypedDict):
        """Result of workspaceAgent.revert with dryRun: what it would do; nothing was
        changed.
        """

        restored: list[str]
        deleted: list[str]
        skipped: list[SkippedFile]
        nonUtf8Names: NotRequired[list[NonUtf8Name]]
        """Present when a name in `restored` or `deleted` is not valid UTF-8: each such
        name's bytes.
        """
        conflicts: NotRequired[list[SkippedFile]]
        """`only` reverts: files where later steps changed the same lines (then nothing would
        be written).
        """
        undoId: None
        dryRun: Literal[True]

    class UndoRevertArgs(TypedDict):
        """Argument of workspaceAgent.undoRevert."""

        sessionId: str
        undoId: str
        force: NotRequired[bool]
        dryRun: NotRequired[bool]

    class DiagnosticsParams(TypedDict):
        """Params of workspaceAgent/diagnostics: the files the agent changed. `wait` (default
        true): let the language servers report first (bounded by the client's own
        timeout); false: the problems known right now (asked before a tool runs).
        """

        uris: list[str]
        wait: NotRequired[bool]
        all: NotRequired[bool]
        """true: every file's problems the editor knows (for `@problems` in a prompt), `uris`
        empty; the answer lists the files that have any.
        """

    class CodeIntelParams(TypedDict):
        """Params of workspaceAgent/codeIntel. `position` in LSP units (0-based line, UTF-16
        character); `query` for workspace_symbols; `newName` for rename. `uri`: the file
        asked about (the workspace folder's for workspace_symbols without a file).
        """

        operation: str
        """definition | references | implementations | hover | document_symbols |
        workspace_symbols | incoming_calls | outgoing_calls | rename
        """
        uri: str
        position: NotRequired[Any]
        query: NotRequired[str]
        newName: NotRequired[str]

    class FileDiagnostics(TypedDict):
        """One file's problems as LSP Diagnostic objects."""

        uri: str
        diagnostics: list[Any]

    class ToolLocation(TypedDict):
        """A place a tool call is about."""

        path: str
        line: NotRequired[int | None]

    class HistoryParams(TypedDict):
        """Params of workspaceAgent/history: the `limit` newest entries older than `before`."""

        sessionId: str
        before: NotRequired[str]
        limit: NotRequired[int]

    class HistoryResult(TypedDict):
        """Result of workspaceAgent/history, in chronological order; `before` null at the
        start.
        """

        sessionId: str
        entries: list[HistoryEntry]
        before: str | None
        """The cursor of the next older page; null: this page starts at the beginning."""
        total: int
        """Entries in the session's history."""
        runStart: NotRequired[HistoryEntry]
        """When the page begins inside a run (after its runStart, an older page holds it):
        that run's runStart entry, so a view shows the run's prompt above the page's first
        entry. Absent when the page begins with a runStart, at the start, or between runs
        (a revert).
        """

    class HistoryImageParams(TypedDict):
        """Params of workspaceAgent/historyImage."""

        sessionId: str
        seq: int
        """The runStart entry's `seq`."""
        index: int
        """Which of its `images`, from 0."""

    class HistoryImageResult(TypedDict):
        """Result of workspaceAgent/historyImage: the image as the model got it."""

        mediaType: str
        """What its bytes are: image/png, image/jpeg, image/gif or image/webp."""
        data: str
        """Its bytes, base64 (at most 5 MB of it)."""

    class ToolImageParams(TypedDict):
        """Params of workspaceAgent/toolImage."""

        sessionId: str
        toolUseId: str
        """The toolResult's `toolUseId`."""
        index: int
        """Which of its `images`, from 0."""

    class ToolOutputParams(TypedDict):
        """Params of workspaceAgent/toolOutput."""

        sessionId: str
        toolUseId: str

    class ToolOutputResult(TypedDict):
        """Result of workspaceAgent/toolOutput: the output the model got (secrets redacted)."""

        text: str

    class ApprovalDiff(TypedDict):
        """The replaced text and its replacement (the whole file for write_file); `line` is
        where it starts.
        """

        path: str
        before: str | None
        after: str
        line: NotRequired[int]

    class ApprovalParams(TypedDict):
        """Params of workspaceAgent/approval (server → client): a question that waits for its
        answer.
        """

        sessionId: str
        toolUseId: str
        todoId: str | None
        kind: str
        """`bash`, `write`, `mcp:SERVER`, `network` (a host a sandboxed command or web_fetch
        reaches for) or `web` (the session's first web_search).
        """
        message: str
        command: NotRequired[str]
        """The command; for `web`, the search's query."""
        path: NotRequired[str]
        host: NotRequired[str]
        """`kind` `network`: the host a sandboxed command (or web_fetch, whose `command` is
        `web_fetch URL`) reaches for (`pypi.org`, `localhost:3000` for the host's own
        services); the command stays in the sandbox whatever the answer.
        """
        destructive: NotRequired[str]
        """Why Deny is the default ("deletes files recursively (rm -r)")."""
        askedBecause: NotRequired[str]
        diff: NotRequired[ApprovalDiff]
        review: NotRequired[bool]
        """approvals.write = "review": Accept / Reject."""
        options: list[ApprovalDecision]

    class ApprovalResult(TypedDict):
        """Result of workspaceAgent/approval."""

        decision: ApprovalDecision
        reason: NotRequired[str]

    class McpServerState(TypedDict):
        """One MCP server's state (docs/protocol.md, MCP servers)."""

        name: str
        source: McpSource
        origin: str
        state: McpState
        tools: int
        reason: str | None
        toolNames: list[str]
        """Its tools' names as the server gives them (ready only)."""
        detail: str
        """What it runs: "COMMAND LINE; cwd ...; env NAMES" (or the URL)."""
        fingerprint: str
        """sha256 of its exact config: workspaceAgent/mcpTrust sends it back."""

    class McpServerRef(TypedDict):
        """Params of workspaceAgent/mcpRestart: one MCP server by name."""

        name: str

    class McpTrustParams(McpServerRef):
        """Params of workspaceAgent/mcpTrust."""

        fingerprint: str
        """The fingerprint of the config the user was shown (workspaceAgent/mcpServers)."""

    class McpSetEnabledParams(McpServerRef):
        """Params of workspaceAgent/mcpSetEnabled."""

        enabled: bool

    class McpServersPayload(TypedDict):
        """Body of workspaceAgent/mcpServers, and the answer of mcpRestart, mcpTrust and
        mcpSetEnabled: the states after it.
        """

        servers: list[McpServerState]

    class SandboxStatus(TypedDict):
        """workspaceAgent/sandbox: whether commands are confined, and if not why and the fix."""

        mode: SandboxMode
        active: bool
        reason: str | None
        fix: str | None
        message: str
        """One line for a status bar tooltip or a log."""

    class ContextMeter(TypedDict):
        """Body of workspaceAgent/contextMeter: how full the context window is, from the last
        model request's usage (every input token: uncached, cache writes and reads). Every
        front end shows `label` (`62 k / 200 k`); `near` (from 70% of the window) asks for
        a warning colour, as compaction starts at `compactAt`; `detail` says in words what
        compaction does, when, and that `/compact` does it now (a tooltip).
        """

        sessionId: str
        used: int
        """The last request's input tokens."""
        window: int
        """The context window (setting workspaceAgent.contextWindow)."""
        compactAt: int
        """Tokens from which the conversation is compacted before the next request."""
        near: bool
        label: str
        detail: str

    class InstructionFile(TypedDict):
        """An instruction file a run read (the `notice` event's `instructions`)."""

        path: str
        scope: InstructionScope
        bytes: int
        cutBytes: int

    class BackgroundPort(TypedDict):
        """A TCP port a background command listens on, and where the user opens it."""

        port: int
        """The port the command listens on (in the sandbox's own network when it runs there)."""
        hostPort: int
        """The port on the host's 127.0.0.1 that leads to it: the same number when it was
        free on the host; for a sandboxed command, a forward the server keeps while the
        command runs.
        """
        url: str
        """`http://localhost:HOSTPORT` (an editor opens it through its own forwarding:
        vscode.env.asExternalUri).
        """
        forwarded: bool
        """true when the server forwards the host port into the sandbox; false for an
        unsandboxed command, which listens on the host itself.
        """

    class BackgroundCommand(TypedDict):
        """One background command of a session (bash with `run_in_background`)."""

        id: str
        """Its id in the session (`b1`, `b2`...): what bash_output and bash_stop take."""
        command: str
        state: BackgroundState
        exitCode: int | None
        """How it ended (128+N for signal N); null while it runs, or when the end is not
        known (the server ended meanwhile).
        """
        toolUseId: str | None
        """The bash call that started it (its card links here)."""
        todoId: str | None
        """The plan item it was started under: its file changes are that step's."""
        startedAt: str
        """ISO 8601, UTC."""
        endedAt: NotRequired[str]
        """ISO 8601, UTC; absent while it runs."""
        ports: list[BackgroundPort]
        """The ports it listens on now (none once it ended)."""
        sandboxed: bool
        outputBytes: int
        """Bytes of output it wrote, all told (the end offset of
        workspaceAgent/backgroundOutput).
        """
        note: NotRequired[str]
        """Who stopped it (`stopped by the user`, `stopped when the session was cleared`,
        ...), or why its end is not known.
        """

    class BackgroundList(TypedDict):
        """Result of workspaceAgent/background and workspaceAgent/backgroundStop: a session's
        background commands, oldest first.
        """

        sessionId: str
        commands: list[BackgroundCommand]

    class BackgroundOutputParams(TypedDict):
        """Params of workspaceAgent/backgroundOutput."""

        sessionId: str
        id: str
        offset: NotRequired[int]
        """Where to start (a previous answer's `offset`); 0 when absent."""

    class BackgroundOutputResult(TypedDict):
        """Result of workspaceAgent/backgroundOutput."""

        text: str
        """The output from `offset` on, its middle cut past 1,000,000 characters."""
        offset: int
        """Where the next request starts: the end of what was read."""
        dropped: int
        """Bytes after `offset` no longer kept (only the last 10 MB are), skipped."""
        state: BackgroundState
        exitCode: int | None

    class BackgroundStopParams(TypedDict):
        """Params of workspaceAgent/backgroundStop."""

        sessionId: str
        id: NotRequired[str]
        """The command to stop; absent: every running one of the session."""

    class EditText(TypedDict):
        """The text of one edit a tool call made (toolResult `changes` for front ends that
        show tool calls in detail, such as ACP).
        """

        path: str
        oldText: str | None
        """null for a new file."""
        newText: str
        line: int
        """1-based line of the file where newText starts."""

    RevertArgs = RevertItemArgs | RevertLastRunArgs
    """Argument of workspaceAgent.revert: a plan item or lastRun."""
    RevertOutcome = RevertResult | RevertConflictResult | RevertDryRunResult
    """What workspaceAgent.revert returns."""
    DiagnosticsResult = list[FileDiagnostics]
    """Result of workspaceAgent/diagnostics: each file's problems."""

    # -- Events as the LSP notification carries them -----------------------------------

    class RunStartEvent(TypedDict):
        """workspaceAgent/event of kind runStart: a run begins; `attached` names the run's
        `context` in one line (`selection src/app.py:4-6, 1 problem`), absent without one;
        `mode` is `plan` for a plan-mode run (absent: act); `prompt` is what the model
        gets (without a `/plan ` prefix; for workspaceAgent/approvePlan the message with
        the plan).
        """

        sessionId: str
        kind: Literal["runStart"]
        prompt: str
        attached: NotRequired[str]
        mode: NotRequired[RunMode]
        images: NotRequired[list[ImageRecord]]
        mentions: NotRequired[list[str]]
        said: NotRequired[str]

    class TextEvent(TypedDict):
        """workspaceAgent/event of kind text: a piece of assistant text, streamed while the
        model writes.
        """

        sessionId: str
        kind: Literal["text"]
        text: str

    class ThinkingEvent(TypedDict):
        """workspaceAgent/event of kind thinking: a piece of the model's thinking, streamed
        while it thinks (the `thinking` setting); shown folded or dim, never sent as the
        answer. In a session's history one entry holds one answer's whole thinking, with
        `seconds`, how long it took.
        """

        sessionId: str
        kind: Literal["thinking"]
        text: str
        seconds: NotRequired[float]

    class ToolCallEvent(TypedDict):
        """workspaceAgent/event of kind toolCall: before a tool runs; `summary` is one line
        (for `bash` the command, else the path and range); `toolKind` is `read`, `edit`,
        `execute`, `plan` or `other`; `locations` the places it reads or writes, `{path,
        line}` (absolute paths, 1-based lines or null).
        """

        sessionId: str
        kind: Literal["toolCall"]
        toolUseId: str
        name: str
        summary: str
        todoId: str | None
        toolKind: NotRequired[ToolKind]
        locations: NotRequired[list[ToolLocation]]
        parentToolUseId: NotRequired[str]

    class ToolResultEvent(TypedDict):
        """workspaceAgent/event of kind toolResult: after it ran; `output` is the whole
        output up to 2,000 characters, else its first and last 1,000 with a line `… N more
        characters …` between (`workspaceAgent/toolOutput` has it all); `outputChars` its
        whole length; `exitCode` for `bash` the exit status (128+N for signal N), `null`
        when it did not finish by itself or for other tools; `changes` the files the call
        changed, `{path, change, additions, deletions}` (relative paths; empty with
        checkpoints off or when nothing changed); `sandboxed` (`bash` only, when the
        command ran): whether it ran in the sandbox; `network` (sandboxed `bash`, when it
        reached for the network): each host and whether it was allowed; `blocked`
        (sandboxed `bash` that failed): what the sandbox blocked it from, for the user;
        `images` the records of the images the result carried (workspaceAgent/toolImage
        gives each).
        """

        sessionId: str
        kind: Literal["toolResult"]
        toolUseId: str
        name: str
        ok: bool
        output: str
        todoId: str | None
        exitCode: int | None
        outputChars: int
        changes: list[ChangedFile]
        sandboxed: NotRequired[bool]
        network: NotRequired[list[NetworkHost]]
        blocked: NotRequired[list[SandboxBlock]]
        images: NotRequired[list[ImageRecord]]
        background: NotRequired[str]
        parentToolUseId: NotRequired[str]

    class SubagentEvent(TypedDict):
        """workspaceAgent/event of kind subagent: a subagent started by a `task` call
        (`toolUseId`): sent when it starts, whenever its own plan changes, and when it
        ends (`stopReason`, with its `usage` and `cost`, which the run's count includes).
        `todoId` is the session's plan step it works under (its calls' changes are that
        step's); `items` its own plan, shown under that step. Its tool calls come as
        `toolCall`/`toolResult` events with `parentToolUseId`; its text is not streamed:
        its final message is the `task` call's result.
        """

        sessionId: str
        kind: Literal["subagent"]
        toolUseId: str
        agent: str
        description: str
        todoId: str | None
        items: list[TodoItem]
        toolCalls: int
        stopReason: NotRequired[StopReason]
        usage: NotRequired[Usage]
        cost: NotRequired[CostEstimate | None]

    class ReminderEvent(TypedDict):
        """workspaceAgent/event of kind reminder: the todo reminder was added to the next
        message.
        """

        sessionId: str
        kind: Literal["reminder"]
        text: str

    class RetryEvent(TypedDict):
        """workspaceAgent/event of kind retry: a model call failed in a way that may pass and
        is retried; `message` reads `retrying in 4.0s (rate limited, 429)`. Text streamed
        before a dropped answer is discarded by the retry.
        """

        sessionId: str
        kind: Literal["retry"]
        attempt: int
        maxAttempts: int
        delaySeconds: float
        reason: str
        message: str

    class PreparingEvent(TypedDict):
        """workspaceAgent/event of kind preparing: the checkpoint store's first look at a
        workspace takes a noticeable time (it stores many files when there is no git index
        to start from: a folder that is not a repository, a huge untracked folder); it
        runs in the background while the run goes on. Sent once that has taken half a
        second, then about every second, when a workspace-changing call has waited half a
        second for it (`waiting` names the tool: the first such call waits, so its
        checkpoint is complete), and once when it is over (`ready`). `message` says it in
        one line: `Preparing checkpoints: 48,000 of 200,000 files`, `... (write_file waits
        for it)`, `Checkpoints ready: 200,000 files stored in 41 s`. Also sent when a
        workspace-changing call waits for another task on the same folder (another
        session, another window, `workspace-agent run` in a terminal: one changing call at
        a time per folder, so each step's changes are its own): `toolUseId` names the
        waiting call, `message` reads `bash waits for another task on this folder`,
        `stored` and `total` are 0, and `ready` comes when it goes on. Not recorded in the
        history.
        """

        sessionId: str
        kind: Literal["preparing"]
        stored: int
        total: int
        ready: bool
        waiting: NotRequired[str]
        toolUseId: NotRequired[str]
        message: str

    class NoticeEvent(TypedDict):
        """workspaceAgent/event of kind notice: something the user should know, e.g. a
        setting that was ignored and why; at the start of a run that uses instruction
        files, `instructions` lists them (`[{path, scope: "user" \\| "project", bytes,
        cutBytes}]`, see Project instructions); at the start of a run with MCP servers,
        `mcpServers` holds their states as in `workspaceAgent/mcpServers` and `message`
        says them in one line (`MCP servers: time ready (2 tools); marker not started:
        ...`).
        """

        sessionId: str
        kind: Literal["notice"]
        message: str
        instructions: NotRequired[list[InstructionFile]]
        mcpServers: NotRequired[list[McpServerState]]

    class ErrorEvent(TypedDict):
        """workspaceAgent/event of kind error: the run stopped on an error."""

        sessionId: str
        kind: Literal["error"]
        message: str

    class RunEndEvent(TypedDict):
        """workspaceAgent/event of kind runEnd: the run is over; `usage` and `cost` as in
        `RunResult`.
        """

        sessionId: str
        kind: Literal["runEnd"]
        stopReason: StopReason
        usage: Usage
        cost: CostEstimate | None
        cause: NotRequired[StopCause]
        turnLimit: NotRequired[int]

    class RevertEvent(TypedDict):
        """workspaceAgent/event of kind revert: the user took changes back between runs
        (workspaceAgent.revert, not a dry run, or workspaceAgent.undoRevert): what was
        done and to which files, so a conversation shows it, live and in the history;
        `undoId` undoes a `revert` or `only` (workspaceAgent.undoRevert), and on an `undo`
        names the revert it undid. Not sent for a dry run, or an `only` that met conflicts
        (nothing was changed).
        """

        sessionId: str
        kind: Literal["revert"]
        action: RevertAction
        target: str
        todoId: str | None
        restored: list[str]
        deleted: list[str]
        skipped: list[SkippedFile]
        nonUtf8Names: NotRequired[list[NonUtf8Name]]
        undoId: str

    class BackgroundEvent(TypedDict):
        """workspaceAgent/event of kind background: a background command (bash with
        `run_in_background`) started, its ports changed, or it ended: its whole state, as
        workspaceAgent/background lists it. Sent also between runs (the command outlives
        the run that started it). Not recorded in the history.
        """

        sessionId: str
        kind: Literal["background"]
        id: str
        command: str
        state: BackgroundState
        exitCode: int | None
        toolUseId: str | None
        todoId: str | None
        startedAt: str
        endedAt: NotRequired[str]
        ports: list[BackgroundPort]
        sandboxed: bool
        outputBytes: int
        note: NotRequired[str]

    class BackgroundOutputEvent(TypedDict):
        """workspaceAgent/event of kind backgroundOutput: output a background command wrote
        since the last of these (at most four a second per command, each at most 8,000
        characters: a longer piece keeps its end, after a line saying how much was left
        out; workspaceAgent/backgroundOutput has it all). Not recorded in the history.
        """

        sessionId: str
        kind: Literal["backgroundOutput"]
        id: str
        text: str
        outputBytes: int

    class ApprovalEvent(TypedDict):
        """workspaceAgent/event of kind approval: a question to the user (see
        [`workspaceAgent/approval`](#workspaceagentapproval)): `status` `waiting` when it
        is asked, then `allowed` or `denied` when it is answered, also when a cancelled
        run answers it (`reason`: `the run was cancelled before an answer`, the constant
        WITHDRAWN_REASON); `reason` on `denied` is the user's; `message` the question's
        sentence. Sent for every question, however it is asked.
        """

        sessionId: str
        kind: Literal["approval"]
        toolUseId: str
        todoId: str | None
        status: ApprovalStatus
        message: str
        reason: NotRequired[str]

    class HookEvent(TypedDict):
        """workspaceAgent/event of kind hook: a hook ran (one event per hook run, the hooks
        of one event side by side): shown as a folded row under its tool card when
        `toolUseId` names one (`PostToolUse: prettier — 120 ms`), else in the transcript;
        `outcome` `blocked` names the hook that refused the call, the stop, the prompt or
        the item's completion, `message` says what came of it in one line.
        """

        sessionId: str
        kind: Literal["hook"]
        event: HookEventName
        hook: str
        command: str
        source: HookSource
        origin: str
        outcome: HookOutcome
        message: str
        durationMs: int
        exitCode: int | None
        output: str
        toolUseId: NotRequired[str]
        todoId: NotRequired[str]
        sandboxed: NotRequired[bool]

    AgentEvent = (
        RunStartEvent
        | TextEvent
        | ThinkingEvent
        | ToolCallEvent
        | ToolResultEvent
        | SubagentEvent
        | ReminderEvent
        | RetryEvent
        | PreparingEvent
        | NoticeEvent
        | ErrorEvent
        | RunEndEvent
        | RevertEvent
        | BackgroundEvent
        | BackgroundOutputEvent
        | ApprovalEvent
        | HookEvent
    )
    HistoryEntry = dict[str, Any]
    """An event as recorded in a session's history (workspaceAgent/history): the event
    without sessionId, plus its place. Fields: seq, run.
    """


class EventEmitter:
    """`emit(kind, **fields)`, typed per event kind with the fields the core gives it
    (the core-only ones included). A subclass implements `send_event`.
    """

    __slots__ = ()

    @overload
    def emit(
        self,
        kind: Literal["runStart"],
        *,
        prompt: str,
        attached: str = ...,
        mode: RunMode = ...,
        images: list[ImageRecord] = ...,
        mentions: list[str] = ...,
        said: str = ...,
    ) -> None: ...

    @overload
    def emit(self, kind: Literal["text"], *, text: str) -> None: ...

    @overload
    def emit(self, kind: Literal["thinking"], *, text: str, seconds: float = ...) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["toolCall"],
        *,
        toolUseId: str,
        name: str,
        summary: str,
        todoId: str | None,
        toolKind: ToolKind = ...,
        locations: list[ToolLocation] = ...,
        input: Any = ...,
        parentToolUseId: str = ...,
    ) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["toolResult"],
        *,
        toolUseId: str,
        name: str,
        ok: bool,
        output: str,
        todoId: str | None,
        exitCode: int | None,
        outputChars: int,
        sandboxed: bool = ...,
        network: list[NetworkHost] = ...,
        blocked: list[SandboxBlock] = ...,
        images: list[ImageRecord] = ...,
        fullOutput: str = ...,
        changes: list[EditText] = ...,
        changedFiles: list[ChangedFile],
        imageData: list[str] = ...,
        background: str = ...,
        parentToolUseId: str = ...,
    ) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["subagent"],
        *,
        toolUseId: str,
        agent: str,
        description: str,
        todoId: str | None,
        items: list[TodoItem],
        toolCalls: int,
        stopReason: StopReason = ...,
        usage: Usage = ...,
        cost: CostEstimate | None = ...,
    ) -> None: ...

    @overload
    def emit(self, kind: Literal["reminder"], *, text: str) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["retry"],
        *,
        attempt: int,
        maxAttempts: int,
        delaySeconds: float,
        reason: str,
        message: str,
    ) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["preparing"],
        *,
        stored: int,
        total: int,
        ready: bool,
        waiting: str = ...,
        toolUseId: str = ...,
        message: str,
    ) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["notice"],
        *,
        message: str,
        instructions: list[InstructionFile] = ...,
        mcpServers: list[McpServerState] = ...,
    ) -> None: ...

    @overload
    def emit(self, kind: Literal["error"], *, message: str) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["runEnd"],
        *,
        stopReason: StopReason,
        usage: Usage,
        cost: CostEstimate | None,
        cause: StopCause = ...,
        turnLimit: int = ...,
    ) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["revert"],
        *,
        action: RevertAction,
        target: str,
        todoId: str | None,
        restored: list[str],
        deleted: list[str],
        skipped: list[SkippedFile],
        nonUtf8Names: list[NonUtf8Name] = ...,
        undoId: str,
    ) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["background"],
        *,
        id: str,
        command: str,
        state: BackgroundState,
        exitCode: int | None,
        toolUseId: str | None,
        todoId: str | None,
        startedAt: str,
        endedAt: str = ...,
        ports: list[BackgroundPort],
        sandboxed: bool,
        outputBytes: int,
        note: str = ...,
    ) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["backgroundOutput"],
        *,
        id: str,
        text: str,
        outputBytes: int,
    ) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["approval"],
        *,
        toolUseId: str,
        todoId: str | None,
        status: ApprovalStatus,
        message: str,
        reason: str = ...,
    ) -> None: ...

    @overload
    def emit(
        self,
        kind: Literal["hook"],
        *,
        event: HookEventName,
        hook: str,
        command: str,
        source: HookSource,
        origin: str,
        outcome: HookOutcome,
        message: str,
        durationMs: int,
        exitCode: int | None,
        output: str,
        toolUseId: str = ...,
        todoId: str = ...,
        sandboxed: bool = ...,
    ) -> None: ...

    def emit(self, kind: str, **fields: Any) -> None:
        self.send_event(kind, fields)

    def send_event(self, kind: str, fields: dict[str, Any]) -> None:
        raise NotImplementedError
