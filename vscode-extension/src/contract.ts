/**
 * The editor contract in TypeScript: names, types and runtime checks.
 *
 * GENERATED from contract/workspace-agent.json by scripts/generate_contract.py: do not
 * edit; change the JSON and run `make generate`. protocol.ts re-exports it; lspExt.ts
 * types the methods with it. The checks (`problemIn`, `notificationProblem`) say what
 * is wrong with a payload, so a malformed one is logged and dropped, not used.
 * This module imports nothing, so pure logic and tests can use it.
 */

// -- Requests (client -> server) --------------------------------------------------------
/** Runs a task in a session (a new one without sessionId). */
export const RUN_REQUEST = 'workspaceAgent/run';
/**
 * The models to pick from (the agent's table of model families, agent/thinking.py), each with the thinking levels it
 * takes, and the model and level the settings give; with `model`, that model is in the list too (an id the table does
 * not know). For a status-bar or menu picker: the pick goes with each run (RunParams `model` / `thinking`).
 */
export const MODELS_REQUEST = 'workspaceAgent/models';
/** The saved sessions, newest first. Takes no params. */
export const SESSIONS_REQUEST = 'workspaceAgent/sessions';
/**
 * The slash commands a prompt can start with (`/NAME ARGUMENTS`): the built-ins, then the saved prompts
 * (`.workspace-agent/commands/NAME.md`, then `.claude/commands/NAME.md` in the workspace, then `commands/NAME.md` in the
 * user's config folder; the first of a name wins), read afresh on every request. Takes no params. A run whose prompt
 * names an unknown command, or a file that cannot be used, fails (-32803 RequestFailed) before any model call, naming
 * the near matches or the file.
 */
export const COMMANDS_REQUEST = 'workspaceAgent/commands';
/** What each plan item of a session changed (checkpoints). */
export const CHANGES_REQUEST = 'workspaceAgent/changes';
/** The text of a file before or after a plan item, for a diff. */
export const FILE_VERSION_REQUEST = 'workspaceAgent/fileVersion';
/** A session's conversation as the user saw it, a page at a time (history/). */
export const HISTORY_REQUEST = 'workspaceAgent/history';
/**
 * One image a prompt carried, from a session's history: the `index`-th of the `images` of its runStart entry `seq`, for
 * a transcript to show (a thumbnail) when it draws the entry. Fetched one at a time, so a history page carries only the
 * records. -32803 RequestFailed when the history did not keep it (a session saved before images were kept, or an entry
 * without that image); the message says so.
 */
export const HISTORY_IMAGE_REQUEST = 'workspaceAgent/historyImage';
/**
 * One image a tool's result carried (an MCP tool's image content), for a card's thumbnail: the `index`-th of the
 * `images` of the toolResult of `toolUseId`. Fetched one at a time, so neither the toolResult notification nor a history
 * page carries the bytes. -32803 RequestFailed when the history did not keep it (no such call or image, or a session
 * saved before tool images were kept); the message says so.
 */
export const TOOL_IMAGE_REQUEST = 'workspaceAgent/toolImage';
/** The whole output of one tool call, as the model got it. */
export const TOOL_OUTPUT_REQUEST = 'workspaceAgent/toolOutput';
/**
 * A session's background commands (bash with `run_in_background`): those running in this server and those that ended,
 * also before a reload (their output files stay in the session's folder), newest last.
 */
export const BACKGROUND_REQUEST = 'workspaceAgent/background';
/**
 * A background command's output from `offset` (0: from the start of what is kept, the last 10 MB), for Show Output; it
 * does not move the model's place (bash_output). -32803 RequestFailed for an unknown session or command.
 */
export const BACKGROUND_OUTPUT_REQUEST = 'workspaceAgent/backgroundOutput';
/**
 * Stops one background command (`id`), or every one of the session (no `id`: Stop All): SIGTERM to its processes,
 * SIGKILL to what is left after 5 seconds; answers once they are gone, with the session's list. -32803 RequestFailed for
 * an unknown session or command.
 */
export const BACKGROUND_STOP_REQUEST = 'workspaceAgent/backgroundStop';
/** Stop one MCP server and start it again (`{name}`); answers the states. */
export const MCP_RESTART_REQUEST = 'workspaceAgent/mcpRestart';
/** Trust a workspace's MCP server, the exact config shown (`{name, fingerprint}`). */
export const MCP_TRUST_REQUEST = 'workspaceAgent/mcpTrust';
/** Disable or enable one MCP server (`{name, enabled}`), kept in the user config folder. */
export const MCP_SET_ENABLED_REQUEST = 'workspaceAgent/mcpSetEnabled';
/**
 * Give one plan item a check of the user's own (`{sessionId, todoId, command}`: a shell command that runs, as the user's
 * hooks do, when the item is marked completed; `command` null or empty takes it away); answers the plan, also sent as
 * workspaceAgent/todos. Refused while the session runs.
 */
export const SET_ITEM_CHECK_REQUEST = 'workspaceAgent/setItemCheck';
/**
 * Answers a plan (a run that stopped with `planReady`) with the plan as the user left it: action `run` starts an
 * act-mode run of it, `revise` a plan-mode run that revises it; the result is that run's, as for workspaceAgent/run (a
 * revised plan's carries `planDiff`). Errors: -32602 InvalidParams for params that do not fit (an item without id or
 * text, two items with one id, a comment naming no item of `items`); -32803 RequestFailed, nothing run, for an unknown
 * session, a session with a run in progress, and an empty `items` (the message says what to do next).
 */
export const APPROVE_PLAN_REQUEST = 'workspaceAgent/approvePlan';

// -- Requests (server -> client) --------------------------------------------------------
/** Sent before a command runs when the client announced the capability below. */
export const SAVE_DOCUMENTS_REQUEST = 'workspaceAgent/saveDocuments';
/**
 * Sent after a tool changed files, and with `all` for a prompt's `@problems`, when the client announced the capability
 * below.
 */
export const DIAGNOSTICS_REQUEST = 'workspaceAgent/diagnostics';
/**
 * Asks for an approval in place of window/showMessageRequest, when the client announced the capability below; open until
 * answered, or cancelled with the run.
 */
export const APPROVAL_REQUEST = 'workspaceAgent/approval';
/**
 * Asks the editor's language extensions about code, for the code_intel and rename_symbol tools, when the client
 * announced the capability below (then those tools are answered by the editor, not by configured language servers). The
 * answer is the LSP result of the operation in its JSON shape: Location[] or LocationLink[] (definition, references,
 * implementations), Hover or null, DocumentSymbol[] or SymbolInformation[], SymbolInformation[] or WorkspaceSymbol[]
 * (workspace_symbols), CallHierarchyIncomingCall[] / CallHierarchyOutgoingCall[] for every item prepared at the position
 * (incoming_calls, outgoing_calls), WorkspaceEdit or null (rename; `loadedForRename`, beside `changes`, lists the URIs
 * the client loaded only to compute it: the server writes their edits on disk rather than into a buffer the user never
 * opened); an error answer's message is shown to the model.
 */
export const CODE_INTEL_REQUEST = 'workspaceAgent/codeIntel';

// -- Notifications (server -> client) ---------------------------------------------------
/** The whole plan, sent on every change and at every run start. */
export const TODOS_NOTIFICATION = 'workspaceAgent/todos';
/** The live transcript, one event per notification (see `events`). */
export const EVENT_NOTIFICATION = 'workspaceAgent/event';
/** The MCP servers' states, whenever one changes. */
export const MCP_SERVERS_NOTIFICATION = 'workspaceAgent/mcpServers';
/**
 * Same name as CHANGES_REQUEST: the request's result plus sessionId, pushed after every workspace-changing tool call (at
 * most every 100 ms).
 */
export const CHANGES_NOTIFICATION = 'workspaceAgent/changes';
/** Whether commands run in the sandbox, and if not why: after `initialized` and after a settings change. */
export const SANDBOX_NOTIFICATION = 'workspaceAgent/sandbox';
/**
 * How full a session's context window is: after each model request of the session's own agent (not a subagent's) and
 * after `/compact`. Live only: never recorded in the history, and not a `workspaceAgent/event`, so the event stream a
 * history replays is unchanged.
 */
export const CONTEXT_METER_NOTIFICATION = 'workspaceAgent/contextMeter';

// -- Commands (workspace/executeCommand), advertised by the server ----------------------
// vscode-languageclient registers these ids as VS Code commands itself: the extension's
// own commands use other ids (workspaceAgent.ui.*).
export const RUN_COMMAND = 'workspaceAgent.run';
export const CANCEL_COMMAND = 'workspaceAgent.cancel';
export const NEW_SESSION_COMMAND = 'workspaceAgent.newSession';
export const GET_TODOS_COMMAND = 'workspaceAgent.getTodos';
export const REVERT_COMMAND = 'workspaceAgent.revert';
export const UNDO_REVERT_COMMAND = 'workspaceAgent.undoRevert';
export const COMMANDS = [
  RUN_COMMAND,
  CANCEL_COMMAND,
  NEW_SESSION_COMMAND,
  GET_TODOS_COMMAND,
  REVERT_COMMAND,
  UNDO_REVERT_COMMAND,
] as const;

// -- Capabilities (`experimental.workspaceAgent` of initialize) -------------------------
/** Key in the client's `experimental.workspaceAgent` capabilities. */
export const SAVE_DOCUMENTS_CAPABILITY = 'saveDocuments';
/** Key in the client's `experimental.workspaceAgent` capabilities. */
export const DIAGNOSTICS_CAPABILITY = 'diagnostics';
/** Key in the client's `experimental.workspaceAgent` capabilities. */
export const APPROVALS_CAPABILITY = 'approvals';
/**
 * Key in the client's `experimental.workspaceAgent` capabilities, next to `approvals`: the client adds a host answered
 * `allowAlways` to the user's `sandbox.allowedDomains` setting, so network questions offer it.
 */
export const ALWAYS_ALLOW_HOSTS_CAPABILITY = 'alwaysAllowHosts';
/**
 * Key in the client's `experimental.workspaceAgent` capabilities: the client answers workspaceAgent/codeIntel (the
 * code_intel and rename_symbol tools are offered, answered by the editor).
 */
export const CODE_INTEL_CAPABILITY = 'codeIntel';
/** Key in the server's `experimental.workspaceAgent` capabilities. */
export const PROTOCOL_VERSION_CAPABILITY = 'protocolVersion';
/**
 * Key in the server's `experimental.workspaceAgent` capabilities: `{mode}`, the sandbox.mode setting at `initialize`
 * (whether it can start follows in SANDBOX_NOTIFICATION: probing it would slow the answer).
 */
export const SANDBOX_CAPABILITY = 'sandbox';
/**
 * Announced true next to the version: workspaceAgent.revert / undoRevert take `dryRun` (a server without it would ignore
 * the flag and revert, so clients check first).
 */
export const REVERT_DRY_RUN_CAPABILITY = 'revertDryRun';
/**
 * Announced true next to the version: workspaceAgent.revert takes `only` (take out one step's changes alone, by a
 * three-way merge).
 */
export const REVERT_ONLY_CAPABILITY = 'revertOnly';

// -- Version and settings section -------------------------------------------------------
/**
 * The version of this contract, announced at `initialize` in `capabilities.experimental.workspaceAgent.protocolVersion`.
 * It goes up with any change an existing client or server would misread (a method, field or meaning renamed, removed or
 * changed); additions a peer can ignore (an optional field, an event kind) keep it.
 */
export const PROTOCOL_VERSION = 1;
/** Settings section (initializationOptions / workspace/didChangeConfiguration). */
export const SETTINGS_SECTION = 'workspaceAgent';

// -- Error codes of custom requests -----------------------------------------------------
/** JSON-RPC InvalidParams: params that do not fit the contract; the message names the field. */
export const INVALID_PARAMS = -32602;
/**
 * LSP RequestFailed: the params fit but the request cannot be done (an unknown or busy session, nothing to revert, ...);
 * the message says why.
 */
export const REQUEST_FAILED = -32803;

// -- Fixed texts a peer reads -----------------------------------------------------------
/**
 * The `reason` of an `approval` event with `status` `denied` for a question nobody answered: the run's end withdrew it
 * (a cancel, a window reload, the server stopping). A client shows the question as not answered and its call as stopped,
 * not as the user's No.
 */
export const WITHDRAWN_REASON = 'the run was cancelled before an answer';
/**
 * The id of a plan item the user adds while shaping a plan (workspaceAgent/approvePlan's `items`) is this prefix and the
 * smallest N from 1 that no item of the plan has (kept or removed): `user-1`, `user-2`, … A client makes it; the server
 * keeps it as the item's id.
 */
export const USER_ITEM_ID_PREFIX = 'user-';

// -- Enumerations -----------------------------------------------------------------------
/**
 * Why a run stopped; `stop_sequence`: the model's answer ended at one of the request's stop sequences (a success, like
 * `end_turn`; ACP reports it as `end_turn`); `refusal`: the model declined to go on with the request (its answer is
 * shown, not kept in the conversation); `planReady`: a plan-mode run ended with a plan, which is the result's `todos`
 * (answer it with workspaceAgent/approvePlan).
 */
export const STOP_REASONS = ['end_turn', 'stop_sequence', 'cancelled', 'max_turns', 'budget', 'refusal', 'error', 'planReady'] as const;
export type StopReason = (typeof STOP_REASONS)[number];
/**
 * What cut a `cancelled` run short (runEnd's `cause`): `user`, the user cancelled it; `reload`, the editor's window was
 * reloaded or closed, `restart`, the editor restarted the server (the client said so with workspaceAgent.cancel before
 * stopping the server); `serverStopped`, the server was ended while the run went (`shutdown` or `exit` without a cause
 * given, its input closed, the client's process gone, a signal).
 */
export const STOP_CAUSES = ['user', 'reload', 'restart', 'serverStopped'] as const;
export type StopCause = (typeof STOP_CAUSES)[number];
/**
 * Why a sandboxed command's host was refused without a question (NetworkHost's `refused`): `metadata`, an
 * instance-metadata or link-local address (169.254.0.0/16, fe80::/10, fd00:ec2::254, and names that lead there), refused
 * by rule unless the user lists it exactly; `unattended`, a run started with `--yes`, which answers questions about
 * commands and file changes but does not open the network.
 */
export const HOST_REFUSALS = ['metadata', 'unattended'] as const;
export type HostRefusal = (typeof HOST_REFUSALS)[number];
/**
 * What a `revert` event did: `revert`, the files went back to before a plan item (or the last run's start); `only`, one
 * plan item's changes were taken out alone; `undo`, a revert was undone.
 */
export const REVERT_ACTIONS = ['revert', 'only', 'undo'] as const;
export type RevertAction = (typeof REVERT_ACTIONS)[number];
/**
 * How much the model thinks (the `thinking` setting): the effort on adaptive families, a token budget on older ones;
 * `off` only, for a model that takes no thinking.
 */
export const THINKING_LEVELS = ['off', 'low', 'medium', 'high', 'max'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];
/**
 * How a run may work: `act` (the default) as always; `plan` looks but does not touch: read_file and todo as usual,
 * write_file and edit_file refused, bash in the sandbox with the whole workspace read-only (asked about where no sandbox
 * can start), MCP tools only where their server marks them `readOnlyHint`; the run ends with stopReason `planReady`.
 */
export const RUN_MODES = ['act', 'plan'] as const;
export type RunMode = (typeof RUN_MODES)[number];
/**
 * What workspaceAgent/approvePlan does with the plan: `run` it (act mode), or `revise` it (plan mode, with the comments
 * and edits).
 */
export const PLAN_ACTIONS = ['run', 'revise'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];
/**
 * How an item of a revised plan differs from the plan it revises, matched by id: `new` (no item had its id), `reworded`
 * (its text changed), `unchanged`.
 */
export const PLAN_CHANGES = ['new', 'reworded', 'unchanged'] as const;
export type PlanChange = (typeof PLAN_CHANGES)[number];
/** Where a plan item stands. */
export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];
/** How a file changed under a plan item. */
export const CHANGE_KINDS = ['added', 'modified', 'deleted'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
/** The sides of a diff. */
export const FILE_SIDES = ['before', 'after'] as const;
export type FileSide = (typeof FILE_SIDES)[number];
/**
 * Where a background command stands: `running`; `exited` by itself (`exitCode` says how); `stopped` by bash_stop, the
 * user, the session's /clear, the end of a headless run or of the server (`note` says which).
 */
export const BACKGROUND_STATES = ['running', 'exited', 'stopped'] as const;
export type BackgroundState = (typeof BACKGROUND_STATES)[number];
/** A question to the user: `waiting` when asked, then `allowed` or `denied`. */
export const APPROVAL_STATUSES = ['waiting', 'allowed', 'denied'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
/**
 * The answers to workspaceAgent/approval; `allowAlways` is offered for a network question (`kind` `network`) to a client
 * that announced `alwaysAllowHosts`: the client adds `host` to the user's `sandbox.allowedDomains` (and the host is
 * allowed for the session at once); `allowToolSession` is offered for a question about one MCP tool: that tool for the
 * session (`allowSession` is then every tool of its server).
 */
export const APPROVAL_DECISIONS = ['allow', 'allowToolSession', 'allowSession', 'allowAlways', 'deny'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];
/** LSP DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint. */
export type Severity = 1 | 2 | 3 | 4;
/**
 * Kinds of tools, for showing their calls by kind: `search` finds in the workspace or on the web (search, find_files,
 * web_search), `fetch` reads a web page (web_fetch).
 */
export type ToolKind = 'read' | 'edit' | 'execute' | 'plan' | 'search' | 'fetch' | 'other';
/** The sandbox.mode setting. */
export type SandboxMode = 'auto' | 'required' | 'off';
/** Where an MCP server was configured. */
export type McpSource = 'user' | 'editor' | 'workspace' | 'acp' | 'command line';
/** What an MCP server is doing. */
export const MCP_STATES = ['starting', 'ready', 'failed', 'stopped', 'not started', 'disabled'] as const;
export type McpState = (typeof MCP_STATES)[number];
/** `data.nextStep` of an MCP request's error: what the user can do instead. */
export const MCP_NEXT_STEPS = ['trust', 'enable', 'restart', 'openSettings'] as const;
export type McpNextStep = (typeof MCP_NEXT_STEPS)[number];
/**
 * Where a slash command comes from: the server itself, the workspace's `.workspace-agent/commands` or
 * `.claude/commands`, the user's config folder's `commands`, or an Agent Skill (its `SKILL.md`, the workspace's or the
 * user's; a skill comes before a command file of the same name).
 */
export type CommandSource = 'built-in' | 'workspace' | 'claude' | 'user' | 'skill';
/** Whose instruction file it is: the user's, the project root's or a subfolder's. */
export type InstructionScope = 'user' | 'project' | 'folder';
/**
 * The agent's events a hook runs at, Claude Code's names (`hooks.<Event>` of a settings file); `TaskCompleted`: a plan
 * item marked `completed`; `SubagentStop`: a `task` call's subagent ended.
 */
export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Notification', 'PreCompact', 'Stop', 'SubagentStop', 'TaskCompleted'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];
/**
 * How a hook run ended: `ok` (exit 0), `blocked` (exit 2, or JSON that blocks or denies: the call, the stop, the prompt
 * or the item's completion was refused), `failed` (another exit status, or it could not start: the run goes on),
 * `timedOut` (killed at its timeout), `skipped` (a workspace hook not trusted yet), `cancelled` (the run was cancelled).
 */
export type HookOutcome = 'ok' | 'blocked' | 'failed' | 'timedOut' | 'skipped' | 'cancelled';
/**
 * Whose a hook is: the user's own files (runs on the host), the workspace's (runs in the sandbox once trusted), or a
 * plan item's check the user added (runs as the user's).
 */
export type HookSource = 'user' | 'workspace' | 'item';

// -- Structures -------------------------------------------------------------------------

/** Params naming one session. */
export interface SessionRef {
  sessionId: string;
}

/** Argument of workspaceAgent.cancel. */
export interface CancelArgs {
  sessionId: string;
  /**
   * Why it is cancelled, for the run's end (default `user`): a client about to stop the server says `reload` or
   * `restart`.
   */
  cause?: StopCause;
}

/** One step of the agent's plan. */
export interface TodoItem {
  /** Stable id chosen by the model. */
  id: string;
  /** What the step is about; never empty. */
  text: string;
  status: TodoStatus;
  /** The last check of the item's completion (a `TaskCompleted` hook, or its own check); absent until one ran. */
  check?: ItemCheck;
  /** The item's own check, added by the user (workspaceAgent/setItemCheck); absent without one. */
  checkCommand?: string;
}

/** The last check of a plan item's completion: when it fails the item stays `in_progress` and the model is told why. */
export interface ItemCheck {
  passed: boolean;
  /** The first non-blank line of what it said (stderr when it failed, else stdout); empty when it said nothing. */
  firstLine: string;
  /** What it printed, stdout then stderr, its first 10,000 characters. */
  output: string;
  /** Which check ran: the hook's short name (`pytest`), or `check` for the item's own. */
  hook: string;
  durationMs: number;
}

/** Params of workspaceAgent/setItemCheck. */
export interface ItemCheckParams {
  sessionId: string;
  todoId: string;
  /** A shell command run in the workspace root when the item is marked completed; null or blank takes the check away. */
  command: string | null;
}

/** Tokens billed for a run: uncached input, output, and prompt-cache writes and reads. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheWriteTokens?: number;
  cacheReadTokens?: number;
  /** Searches the web search tool made (web_search), billed per search: absent when there were none. */
  webSearches?: number;
}

/** An LSP position (UTF-16 code units, which is what VS Code counts too). */
export interface Position {
  line: number;
  character: number;
}

/** An LSP range. */
export interface Range {
  start: Position;
  end: Position;
}

/** A problem the editor shows, located by a path relative to the workspace root. */
export interface ContextDiagnostic {
  path: string;
  range: Range;
  severity?: Severity;
  message: string;
  source?: string;
  code?: string | number;
}

/** Text the user selected: where it is and what it says. */
export interface Selection {
  path: string;
  range: Range;
  text: string;
}

/** What the editor knows as the user asks; paths relative to the workspace root, with "/". */
export interface RunContext {
  activeFile?: string;
  selection?: Selection;
  diagnostics?: ContextDiagnostic[];
}

/** Params of workspaceAgent/run: without sessionId the server starts a new session. */
export interface RunParams {
  prompt: string;
  sessionId?: string;
  /** Put ahead of the prompt in the model's message (docs/protocol.md, workspaceAgent/run). */
  context?: RunContext;
  /** `act` when absent. A prompt that starts with `/plan ` is a plan-mode run too (the prefix is taken off). */
  mode?: RunMode;
  /**
   * The model for this run in place of the `model` setting (a picker's choice for the session; the settings are not
   * changed).
   */
  model?: string;
  /**
   * The thinking level for this run in place of the `thinking` setting. A level the run's model does not take (anything
   * but `off` for a model without thinking) is refused with -32803 RequestFailed, nothing run, the message saying which
   * levels it takes.
   */
  thinking?: ThinkingLevel;
  /**
   * Images sent to the model with the prompt (a pasted screenshot). Each is checked before the run starts: PNG, JPEG,
   * GIF or WebP by its bytes, `mediaType` what the bytes are, at most 5 MB as base64 and 8000 pixels a side; otherwise
   * the request fails (-32803) saying which and why, and nothing runs.
   */
  images?: PromptImage[];
}

/** An image given with a prompt. */
export interface PromptImage {
  /** The image's bytes, base64. */
  data: string;
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mediaType: string;
}

/**
 * What a transcript keeps of an image a prompt carried (the image itself stays in the session's conversation, which the
 * model needs).
 */
export interface ImageRecord {
  mediaType: string;
  width: number;
  height: number;
  bytes: number;
}

/** A run's cost estimated from the server's table of list prices (not a bill). */
export interface CostEstimate {
  usd: number;
  /** The model the prices are of. */
  model: string;
}

/** What a run returns once it has stopped (also after a cancel). */
export interface RunResult {
  sessionId: string;
  stopReason: StopReason;
  text: string;
  todos: TodoItem[];
  usage: Usage;
  /**
   * null when the server knows no price for the model, and on Amazon Bedrock or Google Vertex AI (`provider`), whose
   * prices are not Anthropic's list prices.
   */
  cost?: CostEstimate | null;
  /** Present when stopReason is "error": a message meant for the user. */
  error?: string;
  /**
   * With stopReason `planReady` when the run revised a plan (workspaceAgent/approvePlan `revise`): `todos` against that
   * plan.
   */
  planDiff?: PlanDiff;
}

/**
 * A revised plan against the plan it revises (the one sent with `revise`), items matched by id: one entry per item of
 * the result's `todos`, in their order, and the items the revision left out.
 */
export interface PlanDiff {
  /** One per item of `todos`, same order. */
  items: PlanDiffItem[];
  /** Items of the previous plan whose id the revision no longer has, in their old order. */
  removed: PlanItem[];
}

/** How one item of a revised plan changed. */
export interface PlanDiffItem {
  id: string;
  change: PlanChange;
  /** The item's text in the previous plan, when `change` is `reworded`. */
  previousText?: string;
}

/**
 * One item of a plan as the user left it: kept items keep their ids; a new item needs an id no other item has (e.g.
 * `user-1`).
 */
export interface PlanItem {
  id: string;
  /** Never empty; one line (line breaks become spaces). */
  text: string;
  /** true for an item the user reworded or added: the model is told so. */
  edited?: boolean;
}

/** A comment of the user on one item of the plan. */
export interface PlanComment {
  /** The id of an item of `items`. */
  todoId: string;
  text: string;
}

/**
 * Params of workspaceAgent/approvePlan: the plan in the order the user left it (deleted items left out), the user's
 * comments, and what to do.
 */
export interface ApprovePlanParams {
  sessionId: string;
  /** With `run`, the act run's todo list is set to them (ids kept, every status pending) before the model's first turn. */
  items: PlanItem[];
  /** None when absent. */
  comments?: PlanComment[];
  action: PlanAction;
  /** As RunParams `model`: the run of the plan uses it. */
  model?: string;
  /** As RunParams `thinking`. */
  thinking?: ThinkingLevel;
}

/** Body of workspaceAgent/todos: the whole plan, sent on every change and at every run start. */
export interface TodosPayload {
  sessionId: string;
  items: TodoItem[];
  completed: number;
  total: number;
}

/** How many plan items are done, of how many. */
export interface TodoCounts {
  completed: number;
  total: number;
}

/** One saved session, as workspaceAgent/sessions lists it. */
export interface SessionSummary {
  sessionId: string;
  /** The session's first prompt. */
  title: string;
  /** ISO 8601, UTC. */
  updatedAt: string;
  messages: number;
  todos: TodoCounts;
  /** A run is going in it (in this server). */
  running: boolean;
}

/** Params of workspaceAgent/models (may be absent). */
export interface ModelsParams {
  /** A model id to describe too, such as one the user typed. */
  model?: string;
}

/** One model to pick, and the thinking levels it takes. */
export interface ModelChoice {
  /** The model id sent to the Messages API. */
  id: string;
  /** How to show it (`Sonnet 4.5`); the id for a model the table does not know. */
  label: string;
  /** The levels it takes, `off` first; `["off"]` for a model without thinking. */
  levels: ThinkingLevel[];
  /** Its level when the `thinking` setting is not given. */
  defaultLevel: ThinkingLevel;
  /**
   * False for an id the agent's table of model families does not know (no thinking unless `thinkingStyle` says its
   * form).
   */
  known: boolean;
}

/** Result of workspaceAgent/models. */
export interface ModelsResult {
  /** The table's models, newest first, then the settings' model and `model` if the table does not list them. */
  models: ModelChoice[];
  /** The model the settings give (`model`, else `MODEL_ID`, else the default). */
  model: string;
  /** The level runs use with the settings' model: the `thinking` setting, else the model's default. */
  thinking: ThinkingLevel;
}

/** Result of workspaceAgent/sessions: newest first, plus one line per unreadable file. */
export interface SessionsResult {
  sessions: SessionSummary[];
  problems: string[];
}

/**
 * One command of workspaceAgent/commands; a prompt `/NAME ARGUMENTS` runs it (`$ARGUMENTS`, `$1`, `$2`... in a saved
 * prompt's text are replaced).
 */
export interface SlashCommand {
  /** Without the `/`. */
  name: string;
  /** The file's front matter `description`, else its first line. */
  description: string;
  /** Front matter `argument-hint`: what to type after the name (a client asks for it when set). */
  argumentHint?: string;
  source: CommandSource;
  /** The command's file (absent for built-ins). */
  path?: string;
}

/** Result of workspaceAgent/commands, plus one line per command file that cannot be used (naming the file). */
export interface CommandsResult {
  commands: SlashCommand[];
  problems: string[];
}

/** Result of the workspaceAgent.newSession command. */
export interface NewSessionResult {
  sessionId: string;
}

/** Result of the workspaceAgent.cancel command. */
export interface CancelResult {
  cancelled: boolean;
}

/** Params of workspaceAgent/saveDocuments: documents the agent edited through the editor. */
export interface SaveDocumentsParams {
  uris: string[];
}

/** Which of them the editor saved (the server writes the others itself). */
export interface SaveDocumentsResult {
  saved: string[];
}

/**
 * A host a sandboxed command reached for, and whether it was allowed (on `sandbox.allowedDomains`, or by the user's
 * answer).
 */
export interface NetworkHost {
  host: string;
  allowed: boolean;
  /**
   * Why the host was refused without a question: `metadata` (an instance-metadata or link-local address, refused by rule
   * unless listed exactly), `unattended` (a run started with `--yes`, which does not open the network). Absent when the
   * user was asked, or the host was allowed.
   */
  refused?: HostRefusal;
}

/**
 * Something the sandbox blocked a failed command from doing (read from its output, and the hosts it was not let reach),
 * said for the user's card.
 */
export interface SandboxBlock {
  /** `write`, `network` or `socket` (a Unix socket outside the sandbox). */
  kind: string;
  /** The path (`~/.cache/pip`, relative inside the workspace) or host, when known. */
  target?: string;
  /**
   * The user setting that lets it through when one does: `sandbox.allowedDomains` (add the host), `sandbox.realCaches`
   * (a package cache in the home folder), `sandbox.writablePaths` (add `folder`).
   */
  setting?: string;
  /**
   * With `sandbox.writablePaths`: the folder to add (`~/...` or absolute), the written path's nearest existing folder
   * that the setting accepts.
   */
  folder?: string;
}

/** A file changed under a plan item (path relative to the workspace root, with "/"). */
export interface ChangedFile {
  path: string;
  /** Present when the name is not valid UTF-8: its bytes, base64 (`path` is then its readable form; see *File names*). */
  pathBytes?: string;
  change: ChangeKind;
  additions: number;
  deletions: number;
  /** Present (true) for binary files: no line counts, no text versions. */
  binary?: boolean;
  /**
   * The file is now as before that step (a revert took the change back): in workspaceAgent/changes, not in a
   * toolResult's `changes`.
   */
  reverted?: boolean;
  /**
   * The change may not all be the step's, and why (`saved in the editor while the step's command ran`): a revert leaves
   * it alone unless forced (it asks first).
   */
  unsure?: string;
}

/** A bash command run under a plan item; exitCode null when it did not finish by itself. */
export interface CommandRun {
  command: string;
  exitCode: number | null;
  /** Its tool call, for workspaceAgent/toolOutput (null: recorded before it was kept). */
  toolUseId?: string | null;
}

/** A file that could not be checkpointed or reverted, and why. */
export interface SkippedFile {
  path: string;
  /** Present when the name is not valid UTF-8: its bytes, base64 (`path` is then its readable form; see *File names*). */
  pathBytes?: string;
  reason: string;
}

/**
 * A name listed as text (`restored`, `deleted`) that is not valid UTF-8: the readable form the list shows, and its
 * bytes.
 */
export interface NonUtf8Name {
  /** Its readable form, as listed. */
  path: string;
  /** Its bytes, base64. */
  pathBytes: string;
}

/**
 * What one occurrence of a plan item changed; todoId null: changes made before any item was in progress. Ids are reused
 * by later plans: `key` names this occurrence. The server also says what the view shows of it (its name, whether it can
 * be reverted to, which plan row shows it), so the extension never works that out itself.
 */
export interface ItemChanges {
  todoId: string | null;
  key: string;
  /** The item's text when it first changed something (null: before the plan, or not recorded). */
  text: string | null;
  /** Its latest text, when it was reworded since. */
  lastText?: string;
  /** How messages, revert targets and titles name it: 'plan item #2 "Format the code"'. */
  displayName: string;
  /** The run (RunInfo.run) of its first change (null: recorded before the first run record, in an older journal). */
  run: number | null;
  /** Its changes are taken back now (a revert to before it, or an `only` revert of it). */
  reverted: boolean;
  /** A revert to before it has something to take back (as the journal tells; the dry run is exact). */
  revertible: boolean;
  /** When not revertible: why ("the agent changed no files from … on"). */
  notRevertibleReason?: string;
  /** The current plan's row for its step: that row's text, exactly (null: none). */
  planRow: string | null;
  /** That row (todoId null: "Before the plan") shows it; false: an earlier step. */
  shown: boolean;
  files: ChangedFile[];
  commands: CommandRun[];
  /** Files the item changed that the store could not keep (too large, ...). */
  skipped?: SkippedFile[];
}

/** A run of the session that the changes belong to. */
export interface RunInfo {
  run: number;
  /** What the user asked (its first 500 characters); null when not recorded. */
  prompt: string | null;
  /** ISO 8601, UTC. */
  startedAt: string;
}

/** A revert made in the session (newest last); undone once undoRevert put it back. */
export interface RevertRecord {
  undoId: string;
  target: string;
  undone: boolean;
}

/** What each plan item of a session changed: workspaceAgent/changes without sessionId (what the checkpoints build). */
export interface Changes {
  items: ItemChanges[];
  /** The runs the items (and lastRun) belong to; absent from older servers. */
  runs?: RunInfo[];
  /** The run Revert Last Run goes back to the start of (null: no run changed files). */
  lastRun?: number | null;
  reverts: RevertRecord[];
}

/** Result of workspaceAgent/changes, and the body of the notification of that name. */
export interface ChangesResult extends Changes {
  sessionId: string;
}

/** Params of workspaceAgent/fileVersion. */
export interface FileVersionParams {
  sessionId: string;
  todoId: string | null;
  /** The occurrence (ItemChanges.key); without it, the latest occurrence of todoId. */
  key?: string;
  /** As the changes list it (a name that is not valid UTF-8: its readable form). */
  path: string;
  /** The name's bytes, base64, when the changes gave them (`ChangedFile.pathBytes`): they name the file exactly. */
  pathBytes?: string;
  side: FileSide;
}

/** Result of workspaceAgent/fileVersion: null when the file did not exist on that side. */
export interface FileVersionResult {
  text: string | null;
}

/**
 * Argument of workspaceAgent.revert for a plan item: its key, else todoId (null = before the plan). `dryRun` only says
 * what would be done (REVERT_DRY_RUN_CAPABILITY).
 */
export interface RevertItemArgs {
  sessionId: string;
  todoId: string | null;
  key?: string;
  force?: boolean;
  dryRun?: boolean;
  only?: boolean;
}

/** Argument of workspaceAgent.revert for the session's last run that changed files. */
export interface RevertLastRunArgs {
  sessionId: string;
  lastRun: true;
  force?: boolean;
  dryRun?: boolean;
}

/** Result of workspaceAgent.undoRevert (with dryRun: what it would do; nothing was changed). */
export interface UndoRevertResult {
  restored: string[];
  deleted: string[];
  skipped: SkippedFile[];
  /** Present when a name in `restored` or `deleted` is not valid UTF-8: each such name's bytes. */
  nonUtf8Names?: NonUtf8Name[];
  dryRun?: true;
}

/** Result of workspaceAgent.revert; undoId undoes it with workspaceAgent.undoRevert. */
export interface RevertResult {
  restored: string[];
  deleted: string[];
  skipped: SkippedFile[];
  /** Present when a name in `restored` or `deleted` is not valid UTF-8: each such name's bytes. */
  nonUtf8Names?: NonUtf8Name[];
  /** `only` reverts: files where later changes overlap the step's (none here: see RevertConflictResult). */
  conflicts?: SkippedFile[];
  undoId: string;
}

/**
 * Result of an `only` workspaceAgent.revert whose step's changes overlap later ones: nothing was written, so there is
 * nothing to undo.
 */
export interface RevertConflictResult {
  restored: string[];
  deleted: string[];
  skipped: SkippedFile[];
  /** Present when a name in `restored` or `deleted` is not valid UTF-8: each such name's bytes. */
  nonUtf8Names?: NonUtf8Name[];
  /** The files where later steps changed the same lines. */
  conflicts: SkippedFile[];
  undoId: null;
}

/** Result of workspaceAgent.revert with dryRun: what it would do; nothing was changed. */
export interface RevertDryRunResult {
  restored: string[];
  deleted: string[];
  skipped: SkippedFile[];
  /** Present when a name in `restored` or `deleted` is not valid UTF-8: each such name's bytes. */
  nonUtf8Names?: NonUtf8Name[];
  /** `only` reverts: files where later steps changed the same lines (then nothing would be written). */
  conflicts?: SkippedFile[];
  undoId: null;
  dryRun: true;
}

/** Argument of workspaceAgent.undoRevert. */
export interface UndoRevertArgs {
  sessionId: string;
  undoId: string;
  force?: boolean;
  dryRun?: boolean;
}

/**
 * Params of workspaceAgent/diagnostics: the files the agent changed. `wait` (default true): let the language servers
 * report first (bounded by the client's own timeout); false: the problems known right now (asked before a tool runs).
 */
export interface DiagnosticsParams {
  uris: string[];
  wait?: boolean;
  /**
   * true: every file's problems the editor knows (for `@problems` in a prompt), `uris` empty; the answer lists the files
   * that have any.
   */
  all?: boolean;
}

/**
 * Params of workspaceAgent/codeIntel. `position` in LSP units (0-based line, UTF-16 character); `query` for
 * workspace_symbols; `newName` for rename. `uri`: the file asked about (the workspace folder's for workspace_symbols
 * without a file).
 */
export interface CodeIntelParams {
  /**
   * definition | references | implementations | hover | document_symbols | workspace_symbols | incoming_calls |
   * outgoing_calls | rename
   */
  operation: string;
  uri: string;
  position?: unknown;
  query?: string;
  newName?: string;
}

/** One file's problems as LSP Diagnostic objects. */
export interface FileDiagnostics {
  uri: string;
  diagnostics: unknown[];
}

/** A place a tool call is about. */
export interface ToolLocation {
  path: string;
  line?: number | null;
}

/** Params of workspaceAgent/history: the `limit` newest entries older than `before`. */
export interface HistoryParams {
  sessionId: string;
  before?: string;
  limit?: number;
}

/** Result of workspaceAgent/history, in chronological order; `before` null at the start. */
export interface HistoryResult {
  sessionId: string;
  entries: HistoryEntry[];
  /** The cursor of the next older page; null: this page starts at the beginning. */
  before: string | null;
  /** Entries in the session's history. */
  total: number;
  /**
   * When the page begins inside a run (after its runStart, an older page holds it): that run's runStart entry, so a view
   * shows the run's prompt above the page's first entry. Absent when the page begins with a runStart, at the start, or
   * between runs (a revert).
   */
  runStart?: HistoryEntry;
}

/** Params of workspaceAgent/historyImage. */
export interface HistoryImageParams {
  sessionId: string;
  /** The runStart entry's `seq`. */
  seq: number;
  /** Which of its `images`, from 0. */
  index: number;
}

/** Result of workspaceAgent/historyImage: the image as the model got it. */
export interface HistoryImageResult {
  /** What its bytes are: image/png, image/jpeg, image/gif or image/webp. */
  mediaType: string;
  /** Its bytes, base64 (at most 5 MB of it). */
  data: string;
}

/** Params of workspaceAgent/toolImage. */
export interface ToolImageParams {
  sessionId: string;
  /** The toolResult's `toolUseId`. */
  toolUseId: string;
  /** Which of its `images`, from 0. */
  index: number;
}

/** Params of workspaceAgent/toolOutput. */
export interface ToolOutputParams {
  sessionId: string;
  toolUseId: string;
}

/** Result of workspaceAgent/toolOutput: the output the model got (secrets redacted). */
export interface ToolOutputResult {
  text: string;
}

/** The replaced text and its replacement (the whole file for write_file); `line` is where it starts. */
export interface ApprovalDiff {
  path: string;
  before: string | null;
  after: string;
  line?: number;
}

/** Params of workspaceAgent/approval (server → client): a question that waits for its answer. */
export interface ApprovalParams {
  sessionId: string;
  toolUseId: string;
  todoId: string | null;
  /**
   * `bash`, `write`, `mcp:SERVER`, `network` (a host a sandboxed command or web_fetch reaches for) or `web` (the
   * session's first web_search).
   */
  kind: string;
  message: string;
  /** The command; for `web`, the search's query. */
  command?: string;
  path?: string;
  /**
   * `kind` `network`: the host a sandboxed command (or web_fetch, whose `command` is `web_fetch URL`) reaches for
   * (`pypi.org`, `localhost:3000` for the host's own services); the command stays in the sandbox whatever the answer.
   */
  host?: string;
  /** Why Deny is the default ("deletes files recursively (rm -r)"). */
  destructive?: string;
  askedBecause?: string;
  diff?: ApprovalDiff;
  /** approvals.write = "review": Accept / Reject. */
  review?: boolean;
  options: ApprovalDecision[];
}

/** Result of workspaceAgent/approval. */
export interface ApprovalResult {
  decision: ApprovalDecision;
  reason?: string;
}

/** One MCP server's state (docs/protocol.md, MCP servers). */
export interface McpServerState {
  name: string;
  source: McpSource;
  origin: string;
  state: McpState;
  tools: number;
  reason: string | null;
  /** Its tools' names as the server gives them (ready only). */
  toolNames?: string[];
  /** What it runs: "COMMAND LINE; cwd ...; env NAMES" (or the URL). */
  detail?: string;
  /** sha256 of its exact config: workspaceAgent/mcpTrust sends it back. */
  fingerprint?: string;
}

/** Params of workspaceAgent/mcpRestart: one MCP server by name. */
export interface McpServerRef {
  name: string;
}

/** Params of workspaceAgent/mcpTrust. */
export interface McpTrustParams extends McpServerRef {
  /** The fingerprint of the config the user was shown (workspaceAgent/mcpServers). */
  fingerprint: string;
}

/** Params of workspaceAgent/mcpSetEnabled. */
export interface McpSetEnabledParams extends McpServerRef {
  enabled: boolean;
}

/** Body of workspaceAgent/mcpServers, and the answer of mcpRestart, mcpTrust and mcpSetEnabled: the states after it. */
export interface McpServersPayload {
  servers: McpServerState[];
}

/** workspaceAgent/sandbox: whether commands are confined, and if not why and the fix. */
export interface SandboxStatus {
  mode: SandboxMode;
  active: boolean;
  reason: string | null;
  fix: string | null;
  /** One line for a status bar tooltip or a log. */
  message: string;
}

/**
 * Body of workspaceAgent/contextMeter: how full the context window is, from the last model request's usage (every input
 * token: uncached, cache writes and reads). Every front end shows `label` (`62 k / 200 k`); `near` (from 70% of the
 * window) asks for a warning colour, as compaction starts at `compactAt`; `detail` says in words what compaction does,
 * when, and that `/compact` does it now (a tooltip).
 */
export interface ContextMeter {
  sessionId: string;
  /** The last request's input tokens. */
  used: number;
  /** The context window (setting workspaceAgent.contextWindow). */
  window: number;
  /** Tokens from which the conversation is compacted before the next request. */
  compactAt: number;
  near: boolean;
  label: string;
  detail: string;
}

/** An instruction file a run read (the `notice` event's `instructions`). */
export interface InstructionFile {
  path: string;
  scope: InstructionScope;
  bytes: number;
  cutBytes: number;
}

/** A TCP port a background command listens on, and where the user opens it. */
export interface BackgroundPort {
  /** The port the command listens on (in the sandbox's own network when it runs there). */
  port: number;
  /**
   * The port on the host's 127.0.0.1 that leads to it: the same number when it was free on the host; for a sandboxed
   * command, a forward the server keeps while the command runs.
   */
  hostPort: number;
  /** `http://localhost:HOSTPORT` (an editor opens it through its own forwarding: vscode.env.asExternalUri). */
  url: string;
  /**
   * true when the server forwards the host port into the sandbox; false for an unsandboxed command, which listens on the
   * host itself.
   */
  forwarded: boolean;
}

/** One background command of a session (bash with `run_in_background`). */
export interface BackgroundCommand {
  /** Its id in the session (`b1`, `b2`...): what bash_output and bash_stop take. */
  id: string;
  command: string;
  state: BackgroundState;
  /** How it ended (128+N for signal N); null while it runs, or when the end is not known (the server ended meanwhile). */
  exitCode: number | null;
  /** The bash call that started it (its card links here). */
  toolUseId: string | null;
  /** The plan item it was started under: its file changes are that step's. */
  todoId: string | null;
  /** ISO 8601, UTC. */
  startedAt: string;
  /** ISO 8601, UTC; absent while it runs. */
  endedAt?: string;
  /** The ports it listens on now (none once it ended). */
  ports: BackgroundPort[];
  sandboxed: boolean;
  /** Bytes of output it wrote, all told (the end offset of workspaceAgent/backgroundOutput). */
  outputBytes: number;
  /** Who stopped it (`stopped by the user`, `stopped when the session was cleared`, ...), or why its end is not known. */
  note?: string;
}

/** Result of workspaceAgent/background and workspaceAgent/backgroundStop: a session's background commands, oldest first. */
export interface BackgroundList {
  sessionId: string;
  commands: BackgroundCommand[];
}

/** Params of workspaceAgent/backgroundOutput. */
export interface BackgroundOutputParams {
  sessionId: string;
  id: string;
  /** Where to start (a previous answer's `offset`); 0 when absent. */
  offset?: number;
}

/** Result of workspaceAgent/backgroundOutput. */
export interface BackgroundOutputResult {
  /** The output from `offset` on, its middle cut past 1,000,000 characters. */
  text: string;
  /** Where the next request starts: the end of what was read. */
  offset: number;
  /** Bytes after `offset` no longer kept (only the last 10 MB are), skipped. */
  dropped: number;
  state: BackgroundState;
  exitCode: number | null;
}

/** Params of workspaceAgent/backgroundStop. */
export interface BackgroundStopParams {
  sessionId: string;
  /** The command to stop; absent: every running one of the session. */
  id?: string;
}

/**
 * The text of one edit a tool call made (toolResult `changes` for front ends that show tool calls in detail, such as
 * ACP).
 */
export interface EditText {
  path: string;
  /** null for a new file. */
  oldText: string | null;
  newText: string;
  /** 1-based line of the file where newText starts. */
  line: number;
}

/** Argument of workspaceAgent.revert: a plan item or lastRun. */
export type RevertArgs = RevertItemArgs | RevertLastRunArgs;
/** What workspaceAgent.revert returns. */
export type RevertOutcome = RevertResult | RevertConflictResult | RevertDryRunResult;
/** Result of workspaceAgent/diagnostics: each file's problems. */
export type DiagnosticsResult = FileDiagnostics[];

// -- Events (workspaceAgent/event), in the order a run usually produces them ------------
export const EVENT_RUN_START = 'runStart';
export const EVENT_TEXT = 'text';
export const EVENT_THINKING = 'thinking';
export const EVENT_TOOL_CALL = 'toolCall';
export const EVENT_TOOL_RESULT = 'toolResult';
export const EVENT_SUBAGENT = 'subagent';
export const EVENT_REMINDER = 'reminder';
export const EVENT_RETRY = 'retry';
export const EVENT_PREPARING = 'preparing';
export const EVENT_NOTICE = 'notice';
export const EVENT_ERROR = 'error';
export const EVENT_RUN_END = 'runEnd';
export const EVENT_REVERT = 'revert';
export const EVENT_BACKGROUND = 'background';
export const EVENT_BACKGROUND_OUTPUT = 'backgroundOutput';
export const EVENT_APPROVAL = 'approval';
export const EVENT_HOOK = 'hook';
export const EVENT_KINDS = [
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
] as const;

/**
 * The `runStart` event: a run begins; `attached` names the run's `context` in one line (`selection src/app.py:4-6, 1
 * problem`), absent without one; `mode` is `plan` for a plan-mode run (absent: act); `prompt` is what the model gets
 * (without a `/plan ` prefix; for workspaceAgent/approvePlan the message with the plan).
 */
export interface RunStartEvent {
  sessionId: string;
  kind: typeof EVENT_RUN_START;
  prompt: string;
  /** The run's context in one line ("selection src/app.py:4-6, 1 problem"), if it had one. */
  attached?: string;
  /** `plan` for a plan-mode run; absent for act. */
  mode?: RunMode;
  /**
   * The images the prompt carried, one record each (type, pixels, bytes); absent without any. The history keeps the
   * images themselves: workspaceAgent/historyImage gives one by the entry's `seq` and its index here.
   */
  images?: ImageRecord[];
  /**
   * The @-mentions the server resolved for the model (`@src/app.py`, `@docs/`, `@problems`, `@diff`), in the order of
   * the prompt; absent without any.
   */
  mentions?: string[];
  /**
   * What the user did when `prompt` is not their words (workspaceAgent/approvePlan): `Ran the plan (4 items, 2 edited)`,
   * `Asked for a revised plan (3 items, 1 comment)`. The user's card shows it; `prompt` is what the model got.
   */
  said?: string;
}

/** The `text` event: a piece of assistant text, streamed while the model writes. */
export interface TextEvent {
  sessionId: string;
  kind: typeof EVENT_TEXT;
  text: string;
}

/**
 * The `thinking` event: a piece of the model's thinking, streamed while it thinks (the `thinking` setting); shown folded
 * or dim, never sent as the answer. In a session's history one entry holds one answer's whole thinking, with `seconds`,
 * how long it took.
 */
export interface ThinkingEvent {
  sessionId: string;
  kind: typeof EVENT_THINKING;
  text: string;
  /** History entries: how long the model thought, from its first piece of thinking to what came next. */
  seconds?: number;
}

/**
 * The `toolCall` event: before a tool runs; `summary` is one line (for `bash` the command, else the path and range);
 * `toolKind` is `read`, `edit`, `execute`, `plan` or `other`; `locations` the places it reads or writes, `{path, line}`
 * (absolute paths, 1-based lines or null).
 */
export interface ToolCallEvent {
  sessionId: string;
  kind: typeof EVENT_TOOL_CALL;
  toolUseId: string;
  name: string;
  summary: string;
  todoId: string | null;
  /** What sort of tool it is (absent from older servers). */
  toolKind?: ToolKind;
  /** Where in the workspace the call reads or writes (absolute paths, 1-based lines). */
  locations?: ToolLocation[];
  /** A subagent's call: the `task` call whose subagent made it (absent: the session's own call). */
  parentToolUseId?: string;
}

/**
 * The `toolResult` event: after it ran; `output` is the whole output up to 2,000 characters, else its first and last
 * 1,000 with a line `… N more characters …` between (`workspaceAgent/toolOutput` has it all); `outputChars` its whole
 * length; `exitCode` for `bash` the exit status (128+N for signal N), `null` when it did not finish by itself or for
 * other tools; `changes` the files the call changed, `{path, change, additions, deletions}` (relative paths; empty with
 * checkpoints off or when nothing changed); `sandboxed` (`bash` only, when the command ran): whether it ran in the
 * sandbox; `network` (sandboxed `bash`, when it reached for the network): each host and whether it was allowed;
 * `blocked` (sandboxed `bash` that failed): what the sandbox blocked it from, for the user; `images` the records of the
 * images the result carried (workspaceAgent/toolImage gives each).
 */
export interface ToolResultEvent {
  sessionId: string;
  kind: typeof EVENT_TOOL_RESULT;
  toolUseId: string;
  name: string;
  ok: boolean;
  /** Head and tail when the output is longer than 2,000 characters. */
  output: string;
  todoId: string | null;
  /** bash: the exit status; null when it did not finish by itself. */
  exitCode?: number | null;
  /** Length of the full output (workspaceAgent/toolOutput serves it). */
  outputChars?: number;
  /** Files the call changed. */
  changes?: ChangedFile[];
  /** bash, when the command ran: whether it ran in the sandbox. */
  sandboxed?: boolean;
  /** bash in the sandbox: the hosts it reached for, in order (absent when none). */
  network?: NetworkHost[];
  /** bash in the sandbox, when it failed: what the sandbox blocked (absent when nothing). */
  blocked?: SandboxBlock[];
  /**
   * The images the result carried (an MCP tool's image content, as the model got them), one record each (type, pixels,
   * bytes); absent without any. workspaceAgent/toolImage gives one by `toolUseId` and its index here.
   */
  images?: ImageRecord[];
  /** bash with `run_in_background`, when the command started: its id (the `background` events that follow name it). */
  background?: string;
  /** A subagent's call: the `task` call whose subagent made it (absent: the session's own call). */
  parentToolUseId?: string;
}

/**
 * The `subagent` event: a subagent started by a `task` call (`toolUseId`): sent when it starts, whenever its own plan
 * changes, and when it ends (`stopReason`, with its `usage` and `cost`, which the run's count includes). `todoId` is the
 * session's plan step it works under (its calls' changes are that step's); `items` its own plan, shown under that step.
 * Its tool calls come as `toolCall`/`toolResult` events with `parentToolUseId`; its text is not streamed: its final
 * message is the `task` call's result.
 */
export interface SubagentEvent {
  sessionId: string;
  kind: typeof EVENT_SUBAGENT;
  /** The `task` call that runs it. */
  toolUseId: string;
  /** The agent's name (`explore`, `general`, or a definition's). */
  agent: string;
  /** The task in a few words, as the model gave it. */
  description: string;
  /** The session's plan step it works under (null: none was in progress). */
  todoId: string | null;
  /** Its own plan, as it is now. */
  items: TodoItem[];
  /** Tool calls it made so far. */
  toolCalls: number;
  /** How it ended; absent while it runs. */
  stopReason?: StopReason;
  /** Its tokens, once it ended. */
  usage?: Usage;
  /** Their estimated cost, once it ended (null: the model has no known price). */
  cost?: CostEstimate | null;
}

/** The `reminder` event: the todo reminder was added to the next message. */
export interface ReminderEvent {
  sessionId: string;
  kind: typeof EVENT_REMINDER;
  text: string;
}

/**
 * The `retry` event: a model call failed in a way that may pass and is retried; `message` reads `retrying in 4.0s (rate
 * limited, 429)`. Text streamed before a dropped answer is discarded by the retry.
 */
export interface RetryEvent {
  sessionId: string;
  kind: typeof EVENT_RETRY;
  attempt: number;
  maxAttempts: number;
  delaySeconds: number;
  reason: string;
  message: string;
}

/**
 * The `preparing` event: the checkpoint store's first look at a workspace takes a noticeable time (it stores many files
 * when there is no git index to start from: a folder that is not a repository, a huge untracked folder); it runs in the
 * background while the run goes on. Sent once that has taken half a second, then about every second, when a
 * workspace-changing call has waited half a second for it (`waiting` names the tool: the first such call waits, so its
 * checkpoint is complete), and once when it is over (`ready`). `message` says it in one line: `Preparing checkpoints:
 * 48,000 of 200,000 files`, `... (write_file waits for it)`, `Checkpoints ready: 200,000 files stored in 41 s`. Also
 * sent when a workspace-changing call waits for another task on the same folder (another session, another window,
 * `workspace-agent run` in a terminal: one changing call at a time per folder, so each step's changes are its own):
 * `toolUseId` names the waiting call, `message` reads `bash waits for another task on this folder`, `stored` and `total`
 * are 0, and `ready` comes when it goes on. Not recorded in the history.
 */
export interface PreparingEvent {
  sessionId: string;
  kind: typeof EVENT_PREPARING;
  /** Files stored so far. */
  stored: number;
  /** Files to store (0 while they are still being looked for). */
  total: number;
  /** The store is ready: the last of these events. */
  ready: boolean;
  /** The tool whose call waits for the store (absent: nothing waits). */
  waiting?: string;
  /** The call that waits for another task on this folder (absent: a wait for the store's first look, or nothing waits). */
  toolUseId?: string;
  message: string;
}

/**
 * The `notice` event: something the user should know, e.g. a setting that was ignored and why; at the start of a run
 * that uses instruction files, `instructions` lists them (`[{path, scope: "user" \| "project", bytes, cutBytes}]`, see
 * Project instructions); at the start of a run with MCP servers, `mcpServers` holds their states as in
 * `workspaceAgent/mcpServers` and `message` says them in one line (`MCP servers: time ready (2 tools); marker not
 * started: ...`).
 */
export interface NoticeEvent {
  sessionId: string;
  kind: typeof EVENT_NOTICE;
  message: string;
  instructions?: InstructionFile[];
  mcpServers?: McpServerState[];
}

/** The `error` event: the run stopped on an error. */
export interface ErrorEvent {
  sessionId: string;
  kind: typeof EVENT_ERROR;
  message: string;
}

/** The `runEnd` event: the run is over; `usage` and `cost` as in `RunResult`. */
export interface RunEndEvent {
  sessionId: string;
  kind: typeof EVENT_RUN_END;
  stopReason: StopReason;
  usage: Usage;
  cost?: CostEstimate | null;
  /** With stopReason `cancelled`: what cut the run short (absent from older servers). */
  cause?: StopCause;
  /**
   * With stopReason `max_turns`: the limit the run met (setting maxTurns), which its card states (absent from older
   * servers).
   */
  turnLimit?: number;
}

/**
 * The `revert` event: the user took changes back between runs (workspaceAgent.revert, not a dry run, or
 * workspaceAgent.undoRevert): what was done and to which files, so a conversation shows it, live and in the history;
 * `undoId` undoes a `revert` or `only` (workspaceAgent.undoRevert), and on an `undo` names the revert it undid. Not sent
 * for a dry run, or an `only` that met conflicts (nothing was changed).
 */
export interface RevertEvent {
  sessionId: string;
  kind: typeof EVENT_REVERT;
  action: RevertAction;
  /**
   * What was reverted, as the server names it: `before plan item #2 "Tidy"`, `the start of the last run`, `only plan
   * item #2 "Tidy"`; on an `undo`, the target of the revert it undid.
   */
  target: string;
  /** The plan item reverted to or taken out (null: the last run; on an `undo`, `undoId` names the revert). */
  todoId: string | null;
  restored: string[];
  deleted: string[];
  skipped: SkippedFile[];
  /** Present when a name in `restored` or `deleted` is not valid UTF-8: each such name's bytes. */
  nonUtf8Names?: NonUtf8Name[];
  undoId: string;
}

/**
 * The `background` event: a background command (bash with `run_in_background`) started, its ports changed, or it ended:
 * its whole state, as workspaceAgent/background lists it. Sent also between runs (the command outlives the run that
 * started it). Not recorded in the history.
 */
export interface BackgroundEvent {
  sessionId: string;
  kind: typeof EVENT_BACKGROUND;
  id: string;
  command: string;
  state: BackgroundState;
  exitCode: number | null;
  toolUseId: string | null;
  todoId: string | null;
  startedAt: string;
  endedAt?: string;
  ports: BackgroundPort[];
  sandboxed: boolean;
  outputBytes: number;
  note?: string;
}

/**
 * The `backgroundOutput` event: output a background command wrote since the last of these (at most four a second per
 * command, each at most 8,000 characters: a longer piece keeps its end, after a line saying how much was left out;
 * workspaceAgent/backgroundOutput has it all). Not recorded in the history.
 */
export interface BackgroundOutputEvent {
  sessionId: string;
  kind: typeof EVENT_BACKGROUND_OUTPUT;
  id: string;
  text: string;
  /** The command's output so far, all told, after this piece. */
  outputBytes: number;
}

/**
 * The `approval` event: a question to the user (see [`workspaceAgent/approval`](#workspaceagentapproval)): `status`
 * `waiting` when it is asked, then `allowed` or `denied` when it is answered, also when a cancelled run answers it
 * (`reason`: `the run was cancelled before an answer`, the constant WITHDRAWN_REASON); `reason` on `denied` is the
 * user's; `message` the question's sentence. Sent for every question, however it is asked.
 */
export interface ApprovalEvent {
  sessionId: string;
  kind: typeof EVENT_APPROVAL;
  toolUseId: string;
  todoId: string | null;
  status: ApprovalStatus;
  message: string;
  reason?: string;
}

/**
 * The `hook` event: a hook ran (one event per hook run, the hooks of one event side by side): shown as a folded row
 * under its tool card when `toolUseId` names one (`PostToolUse: prettier — 120 ms`), else in the transcript; `outcome`
 * `blocked` names the hook that refused the call, the stop, the prompt or the item's completion, `message` says what
 * came of it in one line.
 */
export interface HookEvent {
  sessionId: string;
  kind: typeof EVENT_HOOK;
  event: HookEventName;
  /** Its short name: the program its command runs (`prettier`, `check-rm.sh`), or `check` for a plan item's own. */
  hook: string;
  command: string;
  source: HookSource;
  /** Where it is configured, with the line (`~/.claude/settings.json:12`). */
  origin: string;
  outcome: HookOutcome;
  /** What came of it, in one line. */
  message: string;
  durationMs: number;
  /** null when it did not finish by itself (timed out, cancelled) or never started. */
  exitCode: number | null;
  /** What it printed, stdout then stderr, its first 10,000 characters. */
  output: string;
  /** The call it ran for (PreToolUse, PostToolUse, PostToolUseFailure). */
  toolUseId?: string;
  /** The plan item it checked (TaskCompleted). */
  todoId?: string;
  /** A workspace hook: whether it ran in the sandbox. */
  sandboxed?: boolean;
}

/** Body of workspaceAgent/event: the live transcript, one variant per kind. */
export type AgentEvent =
  | RunStartEvent
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
  | HookEvent;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event as recorded in a session's history (workspaceAgent/history): the event without sessionId, plus its place. */
export type HistoryEntry = DistributiveOmit<AgentEvent, 'sessionId'> & { seq: number; run: number };

// -- Settings (package.json contributes them; core/settings.ts reads them) --------------
/**
 * Every `workspaceAgent.*` setting: its kind, who reads it ('server': sent to the
 * server; 'launch': decides how the server starts; 'client': the extension's own) and
 * what a workspace value may do to it (core/settings.ts, WorkspaceRule).
 */
export const SETTINGS = [
  // Run as soon as the server starts, so a workspace must never name it. 'machine': an interpreter path exists on
  // one machine; it is not synced, and in a remote window it is read from the remote's settings, where the server
  // runs.
  { key: 'python', kind: 'string', target: 'launch', workspace: 'ignored', scope: 'machine' },
  // A project may pick its model: the call still goes to the user's endpoint with the user's key, and its tokens
  // count against the user's maxRunTokens.
  { key: 'model', kind: 'string', target: 'server', workspace: 'overrides' },
  // Where the user's API key is sent: the user's choice alone. 'application': one answer for every window, remote
  // ones included (read from the user's own settings there too), and it follows the user through Settings Sync.
  { key: 'baseUrl', kind: 'string', target: 'server', workspace: 'ignored', scope: 'application' },
  // Which account the run is billed to and where the prompts go (Anthropic, your AWS account, your Google Cloud
  // project): the user's choice alone.
  { key: 'provider', kind: 'string', target: 'server', workspace: 'ignored', scope: 'application' },
  // The AWS region your credentials are used in: the user's choice alone.
  { key: 'bedrock.region', kind: 'string', target: 'server', workspace: 'ignored', scope: 'application' },
  // The Google Cloud project your credentials are used in: the user's choice alone.
  { key: 'vertex.projectId', kind: 'string', target: 'server', workspace: 'ignored', scope: 'application' },
  // Where in Google Cloud the prompts go: the user's choice alone.
  { key: 'vertex.region', kind: 'string', target: 'server', workspace: 'ignored', scope: 'application' },
  // Headers sent with every model request, beside the user's credentials (a gateway's key or routing): the user's
  // choice alone.
  { key: 'customHeaders', kind: 'object', target: 'server', workspace: 'ignored', scope: 'application' },
  // These shape a run within the user's limits and send nothing anywhere: a project may set them (a longer command
  // timeout, a bigger file limit, more turns for a big repo).
  { key: 'maxTurns', kind: 'integer', target: 'server', workspace: 'overrides' },
  // How hard the model thinks: like the model, a project may pick it; its tokens count against the user's
  // maxRunTokens.
  { key: 'thinking', kind: 'string', target: 'server', workspace: 'overrides' },
  { key: 'thinkingStyle', kind: 'string', target: 'server', workspace: 'overrides' },
  { key: 'maxTokens', kind: 'integer', target: 'server', workspace: 'overrides' },
  { key: 'bashTimeoutSeconds', kind: 'number', target: 'server', workspace: 'overrides' },
  { key: 'maxFileBytes', kind: 'integer', target: 'server', workspace: 'overrides' },
  { key: 'maxRetries', kind: 'integer', target: 'server', workspace: 'overrides' },
  { key: 'contextWindow', kind: 'integer', target: 'server', workspace: 'overrides' },
  // The user's spending cap: a workspace may set a lower one, never lift it.
  { key: 'maxRunTokens', kind: 'integer', target: 'server', workspace: 'lowers' },
  { key: 'promptCaching', kind: 'boolean', target: 'server', workspace: 'overrides' },
  // The gate in front of every command and write: a workspace may only tighten it.
  { key: 'approvals', kind: 'object', target: 'server', workspace: 'stricter' },
  // What is kept out of commands' environment: a workspace may add names, not drop any.
  { key: 'secretEnvNames', kind: 'array', target: 'server', workspace: 'adds' },
  // The sandbox around commands: a project may only confine them more (turn it from auto to required; never off) and
  // hide more paths from them, never fewer.
  { key: 'sandbox.mode', kind: 'string', target: 'server', workspace: 'confines' },
  { key: 'sandbox.maskedPaths', kind: 'array', target: 'server', workspace: 'adds' },
  // Which hosts commands may reach from the sandbox: the user's choice alone (a project would open the network to
  // itself).
  { key: 'sandbox.allowedDomains', kind: 'array', target: 'server', workspace: 'ignored', scope: 'application' },
  // Whether commands may write the real package caches in the home folder: the same.
  { key: 'sandbox.realCaches', kind: 'boolean', target: 'server', workspace: 'ignored', scope: 'application' },
  // Folders outside the workspace that commands may write: the user's choice alone (a project would open the home
  // folder to itself). 'machine': a path exists on one machine; in a remote window it is read from the remote's
  // settings, where commands run.
  { key: 'sandbox.writablePaths', kind: 'array', target: 'server', workspace: 'ignored', scope: 'machine' },
  // Whether the agent reaches the web without a question: the user's choice alone (a project would open the network
  // to itself).
  { key: 'web', kind: 'string', target: 'server', workspace: 'ignored', scope: 'application' },
  // Whether a workspace's .env may redirect the key: asking the workspace would defeat it.
  { key: 'allowWorkspaceBaseUrl', kind: 'boolean', target: 'server', workspace: 'ignored', scope: 'application' },
  // Checkpoints (what each plan step changed, and revert): sent flat, as the server takes them
  // ("checkpoints.enabled"); a project may set them like the other run settings.
  { key: 'checkpoints.enabled', kind: 'boolean', target: 'server', workspace: 'overrides' },
  { key: 'checkpoints.maxBytes', kind: 'integer', target: 'server', workspace: 'overrides' },
  { key: 'checkpoints.watchFiles', kind: 'boolean', target: 'server', workspace: 'overrides' },
  // The user's MCP servers run programs: a repository's settings may not add any.
  { key: 'mcp.servers', kind: 'object', target: 'server', workspace: 'ignored', scope: 'application' },
  // Language servers are programs the agent starts: a repository's settings may not add any.
  { key: 'lspServers', kind: 'object', target: 'server', workspace: 'ignored', scope: 'application' },
  // A wait before a run's first request, nothing more: a project may set it.
  { key: 'mcp.startupWaitSeconds', kind: 'number', target: 'server', workspace: 'overrides' },
  // Which instruction files (AGENTS.md, CLAUDE.md) are read: they are the project's own text.
  { key: 'instructions.files', kind: 'array', target: 'server', workspace: 'overrides' },
  // What the editor hands the agent, and how the agent shows up in it: a project may tune these (they send nothing
  // anywhere and cost at most what maxRunTokens allows).
  { key: 'context.maxChars', kind: 'integer', target: 'server', workspace: 'overrides' },
  { key: 'context.attachActiveEditor', kind: 'boolean', target: 'client', workspace: 'overrides' },
  { key: 'conversation.openIn', kind: 'string', target: 'client', workspace: 'overrides' },
  { key: 'codeActions.enabled', kind: 'boolean', target: 'server', workspace: 'overrides' },
  { key: 'followAgent', kind: 'boolean', target: 'server', workspace: 'overrides' },
  { key: 'diagnostics.waitSeconds', kind: 'number', target: 'client', workspace: 'overrides' },
] as const;

/** The server's value of each server setting where the user set none (config.py). */
export const SERVER_SETTING_DEFAULTS: Readonly<Record<string, unknown>> = {
  'model': 'claude-sonnet-5-5',
  'baseUrl': null,
  'provider': 'anthropic',
  'bedrock.region': null,
  'vertex.projectId': null,
  'vertex.region': null,
  'customHeaders': {  },
  'maxTurns': 50,
  'thinking': null,
  'thinkingStyle': 'auto',
  'maxTokens': 8192,
  'bashTimeoutSeconds': 120.0,
  'maxFileBytes': 10485760,
  'maxRetries': 4,
  'contextWindow': 200000,
  'maxRunTokens': 0,
  'promptCaching': true,
  'approvals': { bash: 'sandboxed', mcp: 'ask', write: 'allow' },
  'secretEnvNames': [],
  'sandbox.mode': 'auto',
  'sandbox.maskedPaths': [],
  'sandbox.allowedDomains': [],
  'sandbox.realCaches': false,
  'sandbox.writablePaths': [],
  'web': 'ask',
  'allowWorkspaceBaseUrl': false,
  'checkpoints.enabled': true,
  'checkpoints.maxBytes': 1073741824,
  'checkpoints.watchFiles': true,
  'mcp.startupWaitSeconds': 10.0,
  'instructions.files': ['AGENTS.md', 'CLAUDE.md'],
  'context.maxChars': 20000,
  'codeActions.enabled': true,
  'followAgent': false,
};

/**
 * What a workspace rule needs to combine the levels of a setting (contract
 * workspaceRules): `combine` is the way, `order` loosest first, `entries` the
 * kinds of an object and their values, `trim` what is cut from each name, `none`
 * the no-cap value, `start` the server's default a first workspace value is
 * compared with.
 */
export interface Tightening {
  rule: string;
  combine: 'userOnly' | 'toward' | 'union' | 'cap';
  order?: readonly string[];
  entries?: Readonly<Record<string, readonly string[]>>;
  trim?: string;
  none?: number;
  start?: unknown;
}

/** Every setting a workspace may not simply override (core/settingsRules.ts). */
export const TIGHTENING: Readonly<Record<string, Tightening>> = {
  'python': { rule: 'ignored', combine: 'userOnly' },
  'baseUrl': { rule: 'ignored', combine: 'userOnly' },
  'provider': { rule: 'ignored', combine: 'userOnly' },
  'bedrock.region': { rule: 'ignored', combine: 'userOnly' },
  'vertex.projectId': { rule: 'ignored', combine: 'userOnly' },
  'vertex.region': { rule: 'ignored', combine: 'userOnly' },
  'customHeaders': { rule: 'ignored', combine: 'userOnly' },
  'maxRunTokens': { rule: 'lowers', combine: 'cap', none: 0, start: 0 },
  'approvals': { rule: 'stricter', combine: 'toward', order: ['allow', 'sandboxed', 'ask', 'review', 'deny'], entries: { bash: ['sandboxed', 'ask', 'allow', 'deny'], write: ['ask', 'allow', 'deny', 'review'], mcp: ['ask', 'allow', 'deny'] }, start: { bash: 'sandboxed', mcp: 'ask', write: 'allow' } },
  'secretEnvNames': { rule: 'adds', combine: 'union', trim: ' \t\n\r\f\v' },
  'sandbox.mode': { rule: 'confines', combine: 'toward', order: ['off', 'auto', 'required'], start: 'auto' },
  'sandbox.maskedPaths': { rule: 'adds', combine: 'union', trim: ' \t\n\r\f\v' },
  'sandbox.allowedDomains': { rule: 'ignored', combine: 'userOnly' },
  'sandbox.realCaches': { rule: 'ignored', combine: 'userOnly' },
  'sandbox.writablePaths': { rule: 'ignored', combine: 'userOnly' },
  'web': { rule: 'ignored', combine: 'userOnly' },
  'allowWorkspaceBaseUrl': { rule: 'ignored', combine: 'userOnly' },
  'mcp.servers': { rule: 'ignored', combine: 'userOnly' },
  'lspServers': { rule: 'ignored', combine: 'userOnly' },
};

// -- Runtime checks ---------------------------------------------------------------------
// A type is a union of [name, array depth]; a name is a base type, an enumeration, a
// structure or an alias. Fields a payload has beyond these are allowed (a newer server).
type CheckType = readonly (readonly [string, number])[];
type CheckField = readonly [name: string, type: CheckType, optional: boolean];

const ENUMERATIONS: Readonly<Record<string, readonly (string | number)[]>> = {
  StopReason: ['end_turn', 'stop_sequence', 'cancelled', 'max_turns', 'budget', 'refusal', 'error', 'planReady'],
  StopCause: ['user', 'reload', 'restart', 'serverStopped'],
  HostRefusal: ['metadata', 'unattended'],
  RevertAction: ['revert', 'only', 'undo'],
  ThinkingLevel: ['off', 'low', 'medium', 'high', 'max'],
  RunMode: ['act', 'plan'],
  PlanAction: ['run', 'revise'],
  PlanChange: ['new', 'reworded', 'unchanged'],
  TodoStatus: ['pending', 'in_progress', 'completed'],
  ChangeKind: ['added', 'modified', 'deleted'],
  FileSide: ['before', 'after'],
  BackgroundState: ['running', 'exited', 'stopped'],
  ApprovalStatus: ['waiting', 'allowed', 'denied'],
  ApprovalDecision: ['allow', 'allowToolSession', 'allowSession', 'allowAlways', 'deny'],
  Severity: [1, 2, 3, 4],
  ToolKind: ['read', 'edit', 'execute', 'plan', 'search', 'fetch', 'other'],
  SandboxMode: ['auto', 'required', 'off'],
  McpSource: ['user', 'editor', 'workspace', 'acp', 'command line'],
  McpState: ['starting', 'ready', 'failed', 'stopped', 'not started', 'disabled'],
  McpNextStep: ['trust', 'enable', 'restart', 'openSettings'],
  CommandSource: ['built-in', 'workspace', 'claude', 'user', 'skill'],
  InstructionScope: ['user', 'project', 'folder'],
  HookEventName: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Notification', 'PreCompact', 'Stop', 'SubagentStop', 'TaskCompleted'],
  HookOutcome: ['ok', 'blocked', 'failed', 'timedOut', 'skipped', 'cancelled'],
  HookSource: ['user', 'workspace', 'item'],
};

const STRUCTURES: Readonly<Record<string, readonly CheckField[]>> = {
  SessionRef: [
    ['sessionId', [['string', 0]], false],
  ],
  CancelArgs: [
    ['sessionId', [['string', 0]], false],
    ['cause', [['StopCause', 0]], true],
  ],
  TodoItem: [
    ['id', [['string', 0]], false],
    ['text', [['string', 0]], false],
    ['status', [['TodoStatus', 0]], false],
    ['check', [['ItemCheck', 0]], true],
    ['checkCommand', [['string', 0]], true],
  ],
  ItemCheck: [
    ['passed', [['boolean', 0]], false],
    ['firstLine', [['string', 0]], false],
    ['output', [['string', 0]], false],
    ['hook', [['string', 0]], false],
    ['durationMs', [['integer', 0]], false],
  ],
  ItemCheckParams: [
    ['sessionId', [['string', 0]], false],
    ['todoId', [['string', 0]], false],
    ['command', [['string', 0], ['null', 0]], false],
  ],
  Usage: [
    ['inputTokens', [['integer', 0]], false],
    ['outputTokens', [['integer', 0]], false],
    ['cacheWriteTokens', [['integer', 0]], true],
    ['cacheReadTokens', [['integer', 0]], true],
    ['webSearches', [['integer', 0]], true],
  ],
  Position: [
    ['line', [['integer', 0]], false],
    ['character', [['integer', 0]], false],
  ],
  Range: [
    ['start', [['Position', 0]], false],
    ['end', [['Position', 0]], false],
  ],
  ContextDiagnostic: [
    ['path', [['string', 0]], false],
    ['range', [['Range', 0]], false],
    ['severity', [['Severity', 0]], true],
    ['message', [['string', 0]], false],
    ['source', [['string', 0]], true],
    ['code', [['string', 0], ['integer', 0]], true],
  ],
  Selection: [
    ['path', [['string', 0]], false],
    ['range', [['Range', 0]], false],
    ['text', [['string', 0]], false],
  ],
  RunContext: [
    ['activeFile', [['string', 0]], true],
    ['selection', [['Selection', 0]], true],
    ['diagnostics', [['ContextDiagnostic', 1]], true],
  ],
  RunParams: [
    ['prompt', [['string', 0]], false],
    ['sessionId', [['string', 0]], true],
    ['context', [['RunContext', 0]], true],
    ['mode', [['RunMode', 0]], true],
    ['model', [['string', 0]], true],
    ['thinking', [['ThinkingLevel', 0]], true],
    ['images', [['PromptImage', 1]], true],
  ],
  PromptImage: [
    ['data', [['string', 0]], false],
    ['mediaType', [['string', 0]], false],
  ],
  ImageRecord: [
    ['mediaType', [['string', 0]], false],
    ['width', [['integer', 0]], false],
    ['height', [['integer', 0]], false],
    ['bytes', [['integer', 0]], false],
  ],
  CostEstimate: [
    ['usd', [['number', 0]], false],
    ['model', [['string', 0]], false],
  ],
  RunResult: [
    ['sessionId', [['string', 0]], false],
    ['stopReason', [['StopReason', 0]], false],
    ['text', [['string', 0]], false],
    ['todos', [['TodoItem', 1]], false],
    ['usage', [['Usage', 0]], false],
    ['cost', [['CostEstimate', 0], ['null', 0]], true],
    ['error', [['string', 0]], true],
    ['planDiff', [['PlanDiff', 0]], true],
  ],
  PlanDiff: [
    ['items', [['PlanDiffItem', 1]], false],
    ['removed', [['PlanItem', 1]], false],
  ],
  PlanDiffItem: [
    ['id', [['string', 0]], false],
    ['change', [['PlanChange', 0]], false],
    ['previousText', [['string', 0]], true],
  ],
  PlanItem: [
    ['id', [['string', 0]], false],
    ['text', [['string', 0]], false],
    ['edited', [['boolean', 0]], true],
  ],
  PlanComment: [
    ['todoId', [['string', 0]], false],
    ['text', [['string', 0]], false],
  ],
  ApprovePlanParams: [
    ['sessionId', [['string', 0]], false],
    ['items', [['PlanItem', 1]], false],
    ['comments', [['PlanComment', 1]], true],
    ['action', [['PlanAction', 0]], false],
    ['model', [['string', 0]], true],
    ['thinking', [['ThinkingLevel', 0]], true],
  ],
  TodosPayload: [
    ['sessionId', [['string', 0]], false],
    ['items', [['TodoItem', 1]], false],
    ['completed', [['integer', 0]], false],
    ['total', [['integer', 0]], false],
  ],
  TodoCounts: [
    ['completed', [['integer', 0]], false],
    ['total', [['integer', 0]], false],
  ],
  SessionSummary: [
    ['sessionId', [['string', 0]], false],
    ['title', [['string', 0]], false],
    ['updatedAt', [['string', 0]], false],
    ['messages', [['integer', 0]], false],
    ['todos', [['TodoCounts', 0]], false],
    ['running', [['boolean', 0]], false],
  ],
  ModelsParams: [
    ['model', [['string', 0]], true],
  ],
  ModelChoice: [
    ['id', [['string', 0]], false],
    ['label', [['string', 0]], false],
    ['levels', [['ThinkingLevel', 1]], false],
    ['defaultLevel', [['ThinkingLevel', 0]], false],
    ['known', [['boolean', 0]], false],
  ],
  ModelsResult: [
    ['models', [['ModelChoice', 1]], false],
    ['model', [['string', 0]], false],
    ['thinking', [['ThinkingLevel', 0]], false],
  ],
  SessionsResult: [
    ['sessions', [['SessionSummary', 1]], false],
    ['problems', [['string', 1]], false],
  ],
  SlashCommand: [
    ['name', [['string', 0]], false],
    ['description', [['string', 0]], false],
    ['argumentHint', [['string', 0]], true],
    ['source', [['CommandSource', 0]], false],
    ['path', [['string', 0]], true],
  ],
  CommandsResult: [
    ['commands', [['SlashCommand', 1]], false],
    ['problems', [['string', 1]], false],
  ],
  NewSessionResult: [
    ['sessionId', [['string', 0]], false],
  ],
  CancelResult: [
    ['cancelled', [['boolean', 0]], false],
  ],
  SaveDocumentsParams: [
    ['uris', [['string', 1]], false],
  ],
  SaveDocumentsResult: [
    ['saved', [['string', 1]], false],
  ],
  NetworkHost: [
    ['host', [['string', 0]], false],
    ['allowed', [['boolean', 0]], false],
    ['refused', [['HostRefusal', 0]], true],
  ],
  SandboxBlock: [
    ['kind', [['string', 0]], false],
    ['target', [['string', 0]], true],
    ['setting', [['string', 0]], true],
    ['folder', [['string', 0]], true],
  ],
  ChangedFile: [
    ['path', [['string', 0]], false],
    ['pathBytes', [['string', 0]], true],
    ['change', [['ChangeKind', 0]], false],
    ['additions', [['integer', 0]], false],
    ['deletions', [['integer', 0]], false],
    ['binary', [['boolean', 0]], true],
    ['reverted', [['boolean', 0]], true],
    ['unsure', [['string', 0]], true],
  ],
  CommandRun: [
    ['command', [['string', 0]], false],
    ['exitCode', [['integer', 0], ['null', 0]], false],
    ['toolUseId', [['string', 0], ['null', 0]], true],
  ],
  SkippedFile: [
    ['path', [['string', 0]], false],
    ['pathBytes', [['string', 0]], true],
    ['reason', [['string', 0]], false],
  ],
  NonUtf8Name: [
    ['path', [['string', 0]], false],
    ['pathBytes', [['string', 0]], false],
  ],
  ItemChanges: [
    ['todoId', [['string', 0], ['null', 0]], false],
    ['key', [['string', 0]], false],
    ['text', [['string', 0], ['null', 0]], false],
    ['lastText', [['string', 0]], true],
    ['displayName', [['string', 0]], false],
    ['run', [['integer', 0], ['null', 0]], false],
    ['reverted', [['boolean', 0]], false],
    ['revertible', [['boolean', 0]], false],
    ['notRevertibleReason', [['string', 0]], true],
    ['planRow', [['string', 0], ['null', 0]], false],
    ['shown', [['boolean', 0]], false],
    ['files', [['ChangedFile', 1]], false],
    ['commands', [['CommandRun', 1]], false],
    ['skipped', [['SkippedFile', 1]], true],
  ],
  RunInfo: [
    ['run', [['integer', 0]], false],
    ['prompt', [['string', 0], ['null', 0]], false],
    ['startedAt', [['string', 0]], false],
  ],
  RevertRecord: [
    ['undoId', [['string', 0]], false],
    ['target', [['string', 0]], false],
    ['undone', [['boolean', 0]], false],
  ],
  Changes: [
    ['items', [['ItemChanges', 1]], false],
    ['runs', [['RunInfo', 1]], true],
    ['lastRun', [['integer', 0], ['null', 0]], true],
    ['reverts', [['RevertRecord', 1]], false],
  ],
  ChangesResult: [
    ['items', [['ItemChanges', 1]], false],
    ['runs', [['RunInfo', 1]], true],
    ['lastRun', [['integer', 0], ['null', 0]], true],
    ['reverts', [['RevertRecord', 1]], false],
    ['sessionId', [['string', 0]], false],
  ],
  FileVersionParams: [
    ['sessionId', [['string', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['key', [['string', 0]], true],
    ['path', [['string', 0]], false],
    ['pathBytes', [['string', 0]], true],
    ['side', [['FileSide', 0]], false],
  ],
  FileVersionResult: [
    ['text', [['string', 0], ['null', 0]], false],
  ],
  RevertItemArgs: [
    ['sessionId', [['string', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['key', [['string', 0]], true],
    ['force', [['boolean', 0]], true],
    ['dryRun', [['boolean', 0]], true],
    ['only', [['boolean', 0]], true],
  ],
  RevertLastRunArgs: [
    ['sessionId', [['string', 0]], false],
    ['lastRun', [['true', 0]], false],
    ['force', [['boolean', 0]], true],
    ['dryRun', [['boolean', 0]], true],
  ],
  UndoRevertResult: [
    ['restored', [['string', 1]], false],
    ['deleted', [['string', 1]], false],
    ['skipped', [['SkippedFile', 1]], false],
    ['nonUtf8Names', [['NonUtf8Name', 1]], true],
    ['dryRun', [['true', 0]], true],
  ],
  RevertResult: [
    ['restored', [['string', 1]], false],
    ['deleted', [['string', 1]], false],
    ['skipped', [['SkippedFile', 1]], false],
    ['nonUtf8Names', [['NonUtf8Name', 1]], true],
    ['conflicts', [['SkippedFile', 1]], true],
    ['undoId', [['string', 0]], false],
  ],
  RevertConflictResult: [
    ['restored', [['string', 1]], false],
    ['deleted', [['string', 1]], false],
    ['skipped', [['SkippedFile', 1]], false],
    ['nonUtf8Names', [['NonUtf8Name', 1]], true],
    ['conflicts', [['SkippedFile', 1]], false],
    ['undoId', [['null', 0]], false],
  ],
  RevertDryRunResult: [
    ['restored', [['string', 1]], false],
    ['deleted', [['string', 1]], false],
    ['skipped', [['SkippedFile', 1]], false],
    ['nonUtf8Names', [['NonUtf8Name', 1]], true],
    ['conflicts', [['SkippedFile', 1]], true],
    ['undoId', [['null', 0]], false],
    ['dryRun', [['true', 0]], false],
  ],
  UndoRevertArgs: [
    ['sessionId', [['string', 0]], false],
    ['undoId', [['string', 0]], false],
    ['force', [['boolean', 0]], true],
    ['dryRun', [['boolean', 0]], true],
  ],
  DiagnosticsParams: [
    ['uris', [['string', 1]], false],
    ['wait', [['boolean', 0]], true],
    ['all', [['boolean', 0]], true],
  ],
  CodeIntelParams: [
    ['operation', [['string', 0]], false],
    ['uri', [['string', 0]], false],
    ['position', [['unknown', 0]], true],
    ['query', [['string', 0]], true],
    ['newName', [['string', 0]], true],
  ],
  FileDiagnostics: [
    ['uri', [['string', 0]], false],
    ['diagnostics', [['unknown', 1]], false],
  ],
  ToolLocation: [
    ['path', [['string', 0]], false],
    ['line', [['integer', 0], ['null', 0]], true],
  ],
  HistoryParams: [
    ['sessionId', [['string', 0]], false],
    ['before', [['string', 0]], true],
    ['limit', [['integer', 0]], true],
  ],
  HistoryResult: [
    ['sessionId', [['string', 0]], false],
    ['entries', [['HistoryEntry', 1]], false],
    ['before', [['string', 0], ['null', 0]], false],
    ['total', [['integer', 0]], false],
    ['runStart', [['HistoryEntry', 0]], true],
  ],
  HistoryImageParams: [
    ['sessionId', [['string', 0]], false],
    ['seq', [['integer', 0]], false],
    ['index', [['integer', 0]], false],
  ],
  HistoryImageResult: [
    ['mediaType', [['string', 0]], false],
    ['data', [['string', 0]], false],
  ],
  ToolImageParams: [
    ['sessionId', [['string', 0]], false],
    ['toolUseId', [['string', 0]], false],
    ['index', [['integer', 0]], false],
  ],
  ToolOutputParams: [
    ['sessionId', [['string', 0]], false],
    ['toolUseId', [['string', 0]], false],
  ],
  ToolOutputResult: [
    ['text', [['string', 0]], false],
  ],
  ApprovalDiff: [
    ['path', [['string', 0]], false],
    ['before', [['string', 0], ['null', 0]], false],
    ['after', [['string', 0]], false],
    ['line', [['integer', 0]], true],
  ],
  ApprovalParams: [
    ['sessionId', [['string', 0]], false],
    ['toolUseId', [['string', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['kind', [['string', 0]], false],
    ['message', [['string', 0]], false],
    ['command', [['string', 0]], true],
    ['path', [['string', 0]], true],
    ['host', [['string', 0]], true],
    ['destructive', [['string', 0]], true],
    ['askedBecause', [['string', 0]], true],
    ['diff', [['ApprovalDiff', 0]], true],
    ['review', [['boolean', 0]], true],
    ['options', [['ApprovalDecision', 1]], false],
  ],
  ApprovalResult: [
    ['decision', [['ApprovalDecision', 0]], false],
    ['reason', [['string', 0]], true],
  ],
  McpServerState: [
    ['name', [['string', 0]], false],
    ['source', [['McpSource', 0]], false],
    ['origin', [['string', 0]], false],
    ['state', [['McpState', 0]], false],
    ['tools', [['integer', 0]], false],
    ['reason', [['string', 0], ['null', 0]], false],
    ['toolNames', [['string', 1]], true],
    ['detail', [['string', 0]], true],
    ['fingerprint', [['string', 0]], true],
  ],
  McpServerRef: [
    ['name', [['string', 0]], false],
  ],
  McpTrustParams: [
    ['name', [['string', 0]], false],
    ['fingerprint', [['string', 0]], false],
  ],
  McpSetEnabledParams: [
    ['name', [['string', 0]], false],
    ['enabled', [['boolean', 0]], false],
  ],
  McpServersPayload: [
    ['servers', [['McpServerState', 1]], false],
  ],
  SandboxStatus: [
    ['mode', [['SandboxMode', 0]], false],
    ['active', [['boolean', 0]], false],
    ['reason', [['string', 0], ['null', 0]], false],
    ['fix', [['string', 0], ['null', 0]], false],
    ['message', [['string', 0]], false],
  ],
  ContextMeter: [
    ['sessionId', [['string', 0]], false],
    ['used', [['integer', 0]], false],
    ['window', [['integer', 0]], false],
    ['compactAt', [['integer', 0]], false],
    ['near', [['boolean', 0]], false],
    ['label', [['string', 0]], false],
    ['detail', [['string', 0]], false],
  ],
  InstructionFile: [
    ['path', [['string', 0]], false],
    ['scope', [['InstructionScope', 0]], false],
    ['bytes', [['integer', 0]], false],
    ['cutBytes', [['integer', 0]], false],
  ],
  BackgroundPort: [
    ['port', [['integer', 0]], false],
    ['hostPort', [['integer', 0]], false],
    ['url', [['string', 0]], false],
    ['forwarded', [['boolean', 0]], false],
  ],
  BackgroundCommand: [
    ['id', [['string', 0]], false],
    ['command', [['string', 0]], false],
    ['state', [['BackgroundState', 0]], false],
    ['exitCode', [['integer', 0], ['null', 0]], false],
    ['toolUseId', [['string', 0], ['null', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['startedAt', [['string', 0]], false],
    ['endedAt', [['string', 0]], true],
    ['ports', [['BackgroundPort', 1]], false],
    ['sandboxed', [['boolean', 0]], false],
    ['outputBytes', [['integer', 0]], false],
    ['note', [['string', 0]], true],
  ],
  BackgroundList: [
    ['sessionId', [['string', 0]], false],
    ['commands', [['BackgroundCommand', 1]], false],
  ],
  BackgroundOutputParams: [
    ['sessionId', [['string', 0]], false],
    ['id', [['string', 0]], false],
    ['offset', [['integer', 0]], true],
  ],
  BackgroundOutputResult: [
    ['text', [['string', 0]], false],
    ['offset', [['integer', 0]], false],
    ['dropped', [['integer', 0]], false],
    ['state', [['BackgroundState', 0]], false],
    ['exitCode', [['integer', 0], ['null', 0]], false],
  ],
  BackgroundStopParams: [
    ['sessionId', [['string', 0]], false],
    ['id', [['string', 0]], true],
  ],
  EditText: [
    ['path', [['string', 0]], false],
    ['oldText', [['string', 0], ['null', 0]], false],
    ['newText', [['string', 0]], false],
    ['line', [['integer', 0]], false],
  ],
};

const ALIASES: Readonly<Record<string, CheckType>> = {
  RevertArgs: [['RevertItemArgs', 0], ['RevertLastRunArgs', 0]],
  RevertOutcome: [['RevertResult', 0], ['RevertConflictResult', 0], ['RevertDryRunResult', 0]],
  DiagnosticsResult: [['FileDiagnostics', 1]],
};

/** The fields of each event kind on the LSP wire (besides sessionId and kind). */
const EVENTS: Readonly<Record<string, readonly CheckField[]>> = {
  runStart: [
    ['prompt', [['string', 0]], false],
    ['attached', [['string', 0]], true],
    ['mode', [['RunMode', 0]], true],
    ['images', [['ImageRecord', 1]], true],
    ['mentions', [['string', 1]], true],
    ['said', [['string', 0]], true],
  ],
  text: [
    ['text', [['string', 0]], false],
  ],
  thinking: [
    ['text', [['string', 0]], false],
    ['seconds', [['number', 0]], true],
  ],
  toolCall: [
    ['toolUseId', [['string', 0]], false],
    ['name', [['string', 0]], false],
    ['summary', [['string', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['toolKind', [['ToolKind', 0]], true],
    ['locations', [['ToolLocation', 1]], true],
    ['parentToolUseId', [['string', 0]], true],
  ],
  toolResult: [
    ['toolUseId', [['string', 0]], false],
    ['name', [['string', 0]], false],
    ['ok', [['boolean', 0]], false],
    ['output', [['string', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['exitCode', [['integer', 0], ['null', 0]], true],
    ['outputChars', [['integer', 0]], true],
    ['changes', [['ChangedFile', 1]], true],
    ['sandboxed', [['boolean', 0]], true],
    ['network', [['NetworkHost', 1]], true],
    ['blocked', [['SandboxBlock', 1]], true],
    ['images', [['ImageRecord', 1]], true],
    ['background', [['string', 0]], true],
    ['parentToolUseId', [['string', 0]], true],
  ],
  subagent: [
    ['toolUseId', [['string', 0]], false],
    ['agent', [['string', 0]], false],
    ['description', [['string', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['items', [['TodoItem', 1]], false],
    ['toolCalls', [['integer', 0]], false],
    ['stopReason', [['StopReason', 0]], true],
    ['usage', [['Usage', 0]], true],
    ['cost', [['CostEstimate', 0], ['null', 0]], true],
  ],
  reminder: [
    ['text', [['string', 0]], false],
  ],
  retry: [
    ['attempt', [['integer', 0]], false],
    ['maxAttempts', [['integer', 0]], false],
    ['delaySeconds', [['number', 0]], false],
    ['reason', [['string', 0]], false],
    ['message', [['string', 0]], false],
  ],
  preparing: [
    ['stored', [['integer', 0]], false],
    ['total', [['integer', 0]], false],
    ['ready', [['boolean', 0]], false],
    ['waiting', [['string', 0]], true],
    ['toolUseId', [['string', 0]], true],
    ['message', [['string', 0]], false],
  ],
  notice: [
    ['message', [['string', 0]], false],
    ['instructions', [['InstructionFile', 1]], true],
    ['mcpServers', [['McpServerState', 1]], true],
  ],
  error: [
    ['message', [['string', 0]], false],
  ],
  runEnd: [
    ['stopReason', [['StopReason', 0]], false],
    ['usage', [['Usage', 0]], false],
    ['cost', [['CostEstimate', 0], ['null', 0]], true],
    ['cause', [['StopCause', 0]], true],
    ['turnLimit', [['integer', 0]], true],
  ],
  revert: [
    ['action', [['RevertAction', 0]], false],
    ['target', [['string', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['restored', [['string', 1]], false],
    ['deleted', [['string', 1]], false],
    ['skipped', [['SkippedFile', 1]], false],
    ['nonUtf8Names', [['NonUtf8Name', 1]], true],
    ['undoId', [['string', 0]], false],
  ],
  background: [
    ['id', [['string', 0]], false],
    ['command', [['string', 0]], false],
    ['state', [['BackgroundState', 0]], false],
    ['exitCode', [['integer', 0], ['null', 0]], false],
    ['toolUseId', [['string', 0], ['null', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['startedAt', [['string', 0]], false],
    ['endedAt', [['string', 0]], true],
    ['ports', [['BackgroundPort', 1]], false],
    ['sandboxed', [['boolean', 0]], false],
    ['outputBytes', [['integer', 0]], false],
    ['note', [['string', 0]], true],
  ],
  backgroundOutput: [
    ['id', [['string', 0]], false],
    ['text', [['string', 0]], false],
    ['outputBytes', [['integer', 0]], false],
  ],
  approval: [
    ['toolUseId', [['string', 0]], false],
    ['todoId', [['string', 0], ['null', 0]], false],
    ['status', [['ApprovalStatus', 0]], false],
    ['message', [['string', 0]], false],
    ['reason', [['string', 0]], true],
  ],
  hook: [
    ['event', [['HookEventName', 0]], false],
    ['hook', [['string', 0]], false],
    ['command', [['string', 0]], false],
    ['source', [['HookSource', 0]], false],
    ['origin', [['string', 0]], false],
    ['outcome', [['HookOutcome', 0]], false],
    ['message', [['string', 0]], false],
    ['durationMs', [['integer', 0]], false],
    ['exitCode', [['integer', 0], ['null', 0]], false],
    ['output', [['string', 0]], false],
    ['toolUseId', [['string', 0]], true],
    ['todoId', [['string', 0]], true],
    ['sandboxed', [['boolean', 0]], true],
  ],
};

/** The fields a history entry has besides its event's. */
const HISTORY_ENTRY: readonly CheckField[] = [
  ['seq', [['integer', 0]], false],
  ['run', [['integer', 0]], false],
];

/** What each notification carries: a structure, or 'AgentEvent'. */
const NOTIFICATIONS: Readonly<Record<string, string>> = {
  [TODOS_NOTIFICATION]: 'TodosPayload',
  [EVENT_NOTIFICATION]: 'AgentEvent',
  [MCP_SERVERS_NOTIFICATION]: 'McpServersPayload',
  [CHANGES_NOTIFICATION]: 'ChangesResult',
  [SANDBOX_NOTIFICATION]: 'SandboxStatus',
  [CONTEXT_METER_NOTIFICATION]: 'ContextMeter',
};

/** What each request the client sends answers (its result type). */
const REQUEST_RESULTS: Readonly<Record<string, CheckType>> = {
  [RUN_REQUEST]: [['RunResult', 0]],
  [MODELS_REQUEST]: [['ModelsResult', 0]],
  [SESSIONS_REQUEST]: [['SessionsResult', 0]],
  [COMMANDS_REQUEST]: [['CommandsResult', 0]],
  [CHANGES_REQUEST]: [['ChangesResult', 0]],
  [FILE_VERSION_REQUEST]: [['FileVersionResult', 0]],
  [HISTORY_REQUEST]: [['HistoryResult', 0]],
  [HISTORY_IMAGE_REQUEST]: [['HistoryImageResult', 0]],
  [TOOL_IMAGE_REQUEST]: [['HistoryImageResult', 0]],
  [TOOL_OUTPUT_REQUEST]: [['ToolOutputResult', 0]],
  [BACKGROUND_REQUEST]: [['BackgroundList', 0]],
  [BACKGROUND_OUTPUT_REQUEST]: [['BackgroundOutputResult', 0]],
  [BACKGROUND_STOP_REQUEST]: [['BackgroundList', 0]],
  [MCP_RESTART_REQUEST]: [['McpServersPayload', 0]],
  [MCP_TRUST_REQUEST]: [['McpServersPayload', 0]],
  [MCP_SET_ENABLED_REQUEST]: [['McpServersPayload', 0]],
  [SET_ITEM_CHECK_REQUEST]: [['TodosPayload', 0]],
  [APPROVE_PLAN_REQUEST]: [['RunResult', 0]],
};

/** What each server command answers. */
const COMMAND_RESULTS: Readonly<Record<string, CheckType>> = {
  [RUN_COMMAND]: [['RunResult', 0]],
  [CANCEL_COMMAND]: [['CancelResult', 0]],
  [NEW_SESSION_COMMAND]: [['NewSessionResult', 0]],
  [GET_TODOS_COMMAND]: [['TodosPayload', 0]],
  [REVERT_COMMAND]: [['RevertOutcome', 0]],
  [UNDO_REVERT_COMMAND]: [['UndoRevertResult', 0]],
};

/** Every named type of the contract, for `isContract`. */
export interface ContractTypes {
  StopReason: StopReason;
  StopCause: StopCause;
  HostRefusal: HostRefusal;
  RevertAction: RevertAction;
  ThinkingLevel: ThinkingLevel;
  RunMode: RunMode;
  PlanAction: PlanAction;
  PlanChange: PlanChange;
  TodoStatus: TodoStatus;
  ChangeKind: ChangeKind;
  FileSide: FileSide;
  BackgroundState: BackgroundState;
  ApprovalStatus: ApprovalStatus;
  ApprovalDecision: ApprovalDecision;
  Severity: Severity;
  ToolKind: ToolKind;
  SandboxMode: SandboxMode;
  McpSource: McpSource;
  McpState: McpState;
  McpNextStep: McpNextStep;
  CommandSource: CommandSource;
  InstructionScope: InstructionScope;
  HookEventName: HookEventName;
  HookOutcome: HookOutcome;
  HookSource: HookSource;
  SessionRef: SessionRef;
  CancelArgs: CancelArgs;
  TodoItem: TodoItem;
  ItemCheck: ItemCheck;
  ItemCheckParams: ItemCheckParams;
  Usage: Usage;
  Position: Position;
  Range: Range;
  ContextDiagnostic: ContextDiagnostic;
  Selection: Selection;
  RunContext: RunContext;
  RunParams: RunParams;
  PromptImage: PromptImage;
  ImageRecord: ImageRecord;
  CostEstimate: CostEstimate;
  RunResult: RunResult;
  PlanDiff: PlanDiff;
  PlanDiffItem: PlanDiffItem;
  PlanItem: PlanItem;
  PlanComment: PlanComment;
  ApprovePlanParams: ApprovePlanParams;
  TodosPayload: TodosPayload;
  TodoCounts: TodoCounts;
  SessionSummary: SessionSummary;
  ModelsParams: ModelsParams;
  ModelChoice: ModelChoice;
  ModelsResult: ModelsResult;
  SessionsResult: SessionsResult;
  SlashCommand: SlashCommand;
  CommandsResult: CommandsResult;
  NewSessionResult: NewSessionResult;
  CancelResult: CancelResult;
  SaveDocumentsParams: SaveDocumentsParams;
  SaveDocumentsResult: SaveDocumentsResult;
  NetworkHost: NetworkHost;
  SandboxBlock: SandboxBlock;
  ChangedFile: ChangedFile;
  CommandRun: CommandRun;
  SkippedFile: SkippedFile;
  NonUtf8Name: NonUtf8Name;
  ItemChanges: ItemChanges;
  RunInfo: RunInfo;
  RevertRecord: RevertRecord;
  Changes: Changes;
  ChangesResult: ChangesResult;
  FileVersionParams: FileVersionParams;
  FileVersionResult: FileVersionResult;
  RevertItemArgs: RevertItemArgs;
  RevertLastRunArgs: RevertLastRunArgs;
  UndoRevertResult: UndoRevertResult;
  RevertResult: RevertResult;
  RevertConflictResult: RevertConflictResult;
  RevertDryRunResult: RevertDryRunResult;
  UndoRevertArgs: UndoRevertArgs;
  DiagnosticsParams: DiagnosticsParams;
  CodeIntelParams: CodeIntelParams;
  FileDiagnostics: FileDiagnostics;
  ToolLocation: ToolLocation;
  HistoryParams: HistoryParams;
  HistoryResult: HistoryResult;
  HistoryImageParams: HistoryImageParams;
  HistoryImageResult: HistoryImageResult;
  ToolImageParams: ToolImageParams;
  ToolOutputParams: ToolOutputParams;
  ToolOutputResult: ToolOutputResult;
  ApprovalDiff: ApprovalDiff;
  ApprovalParams: ApprovalParams;
  ApprovalResult: ApprovalResult;
  McpServerState: McpServerState;
  McpServerRef: McpServerRef;
  McpTrustParams: McpTrustParams;
  McpSetEnabledParams: McpSetEnabledParams;
  McpServersPayload: McpServersPayload;
  SandboxStatus: SandboxStatus;
  ContextMeter: ContextMeter;
  InstructionFile: InstructionFile;
  BackgroundPort: BackgroundPort;
  BackgroundCommand: BackgroundCommand;
  BackgroundList: BackgroundList;
  BackgroundOutputParams: BackgroundOutputParams;
  BackgroundOutputResult: BackgroundOutputResult;
  BackgroundStopParams: BackgroundStopParams;
  EditText: EditText;
  RevertArgs: RevertArgs;
  RevertOutcome: RevertOutcome;
  DiagnosticsResult: DiagnosticsResult;
  AgentEvent: AgentEvent;
  HistoryEntry: HistoryEntry;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeText(type: CheckType): string {
  return type.map(([name, depth]) => name + '[]'.repeat(depth)).join(' | ');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why `value` is not of `name` (with `depth` array levels), or undefined when it is. */
function atomProblem(value: unknown, name: string, depth: number, at: string): string | undefined {
  if (depth > 0) {
    if (!Array.isArray(value)) {
      return `${at}: expected a list, got ${shown(value)}`;
    }
    for (const [index, item] of value.entries()) {
      const problem = atomProblem(item, name, depth - 1, `${at}[${index}]`);
      if (problem) {
        return problem;
      }
    }
    return undefined;
  }
  const wrong = (expected: string) => `${at}: expected ${expected}, got ${shown(value)}`;
  switch (name) {
    case 'string':
    case 'boolean':
    case 'number':
      return typeof value === name ? undefined : wrong(`a ${name}`);
    case 'integer':
      return Number.isInteger(value) ? undefined : wrong('an integer');
    case 'null':
      return value === null ? undefined : wrong('null');
    case 'true':
      return value === true ? undefined : wrong('true');
    case 'unknown':
      return undefined;
    case 'object':
      return isRecord(value) ? undefined : wrong('an object');
  }
  if (name === 'AgentEvent' || name === 'HistoryEntry') {
    return agentEventProblem(value, at, name === 'HistoryEntry');
  }
  const values = ENUMERATIONS[name];
  if (values) {
    const known = values.includes(value as string | number);
    return known ? undefined : wrong(values.map(shown).join(' | '));
  }
  const alias = ALIASES[name];
  if (alias) {
    return typeProblem(value, alias, at);
  }
  const fields = STRUCTURES[name];
  if (!fields) {
    return `${at}: the contract has no type ${name}`;
  }
  return isRecord(value) ? fieldsProblem(value, fields, at) : wrong(`an object (${name})`);
}

function typeProblem(value: unknown, type: CheckType, at: string): string | undefined {
  const problems: string[] = [];
  for (const [name, depth] of type) {
    const problem = atomProblem(value, name, depth, at);
    if (problem === undefined) {
      return undefined;
    }
    problems.push(problem);
  }
  const expected = `${at}: expected ${typeText(type)}, got ${shown(value)}`;
  return problems.length === 1 ? problems[0] : expected;
}

function fieldsProblem(
  value: Record<string, unknown>,
  fields: readonly CheckField[],
  at: string,
): string | undefined {
  for (const [name, type, optional] of fields) {
    const field = value[name];
    if (field === undefined) {
      if (!optional) {
        return `${at}.${name} is missing`;
      }
      continue;
    }
    const problem = typeProblem(field, type, `${at}.${name}`);
    if (problem) {
      return problem;
    }
  }
  return undefined;
}

/** Why `value` is not a workspaceAgent/event payload the extension knows, or undefined. */
export function agentEventProblem(
  value: unknown,
  at = 'event',
  historyEntry = false,
): string | undefined {
  if (!isRecord(value)) {
    return `${at}: expected an object, got ${shown(value)}`;
  }
  if (historyEntry) {
    const problem = fieldsProblem(value, HISTORY_ENTRY, at);
    if (problem) {
      return problem;
    }
  } else if (typeof value.sessionId !== 'string') {
    return `${at}.sessionId: expected a string, got ${shown(value.sessionId)}`;
  }
  const kind = value.kind;
  const fields = typeof kind === 'string' ? EVENTS[kind] : undefined;
  if (typeof kind !== 'string' || !fields) {
    const known = EVENT_KINDS.join(', ');
    return `${at}.kind: ${shown(value.kind)} is not an event kind this extension knows (${known})`;
  }
  return fieldsProblem(value, fields, `${at} ${kind}`);
}

/** Why `value` is not of the contract type `name` (structure, enumeration, alias), or undefined. */
export function problemIn(name: string, value: unknown, at: string = name): string | undefined {
  return atomProblem(value, name, 0, at);
}

/** Whether `value` is of the contract type `name` (what `problemIn` finds nothing wrong with). */
export function isContract<K extends keyof ContractTypes>(
  name: K,
  value: unknown,
): value is ContractTypes[K] {
  return problemIn(name, value) === undefined;
}

/** Why the answer to request `method` is not what the contract promises, or undefined. */
export function resultProblem(method: string, value: unknown): string | undefined {
  const type = REQUEST_RESULTS[method];
  const unknown = `${method} is not a request of the contract`;
  return type === undefined ? unknown : typeProblem(value, type, method);
}

/** Why the answer to server command `command` is not what the contract promises, or undefined. */
export function commandResultProblem(command: string, value: unknown): string | undefined {
  const type = COMMAND_RESULTS[command];
  const unknown = `${command} is not a command of the contract`;
  return type === undefined ? unknown : typeProblem(value, type, command);
}

/** Why the params of notification `method` are not what the contract promises, or undefined. */
export function notificationProblem(method: string, params: unknown): string | undefined {
  const type = NOTIFICATIONS[method];
  const unknown = `${method} is not a notification of the contract`;
  return type === undefined ? unknown : problemIn(type, params, method);
}
