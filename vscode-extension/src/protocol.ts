/**
 * The editor contract, mirrored from server/workspace_agent/protocol.py.
 *
 * Method, command and notification names, event kinds and statuses live here and nowhere
 * else on the TypeScript side; docs/protocol.md is the written form. A unit test compares
 * these names with the Python module and the document, so the three cannot drift apart.
 * This module imports nothing, so pure logic and tests can use it.
 */

// -- Requests (client -> server) ---------------------------------------------------------
export const RUN_REQUEST = 'workspaceAgent/run';
export const SESSIONS_REQUEST = 'workspaceAgent/sessions';
export const CHANGES_REQUEST = 'workspaceAgent/changes';
export const FILE_VERSION_REQUEST = 'workspaceAgent/fileVersion';
/** A session's conversation as the user saw it, a page at a time. */
export const HISTORY_REQUEST = 'workspaceAgent/history';
/** The whole output of one tool call, as the model got it. */
export const TOOL_OUTPUT_REQUEST = 'workspaceAgent/toolOutput';
/** Stop one MCP server and start it again (`{name}`); answers the states. */
export const MCP_RESTART_REQUEST = 'workspaceAgent/mcpRestart';
/** Trust a workspace's MCP server, the exact config shown (`{name, fingerprint}`). */
export const MCP_TRUST_REQUEST = 'workspaceAgent/mcpTrust';
/** Disable or enable one MCP server (`{name, enabled}`), kept in the user config folder. */
export const MCP_SET_ENABLED_REQUEST = 'workspaceAgent/mcpSetEnabled';
/** `data.nextStep` of an MCP request's error: what the user can do instead. */
export const MCP_NEXT_STEPS = ['trust', 'enable', 'restart', 'openSettings'] as const;
export type McpNextStep = (typeof MCP_NEXT_STEPS)[number];

// -- Commands (workspace/executeCommand), advertised by the server -------------------------
// vscode-languageclient registers these ids as VS Code commands itself: the extension's own
// commands use other ids (workspaceAgent.ui.*).
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

// -- Requests (server -> client) -----------------------------------------------------------
/** Sent before a command runs, when the client announced the capability below. */
export const SAVE_DOCUMENTS_REQUEST = 'workspaceAgent/saveDocuments';
/** Key in the client's `experimental.workspaceAgent` capabilities. */
export const SAVE_DOCUMENTS_CAPABILITY = 'saveDocuments';
/** Sent after a tool changed files, when the client announced the capability below. */
export const DIAGNOSTICS_REQUEST = 'workspaceAgent/diagnostics';
/** Key in the client's `experimental.workspaceAgent` capabilities. */
export const DIAGNOSTICS_CAPABILITY = 'diagnostics';
/** Asks for an approval in place of window/showMessageRequest, when the client announced the capability below. */
export const APPROVAL_REQUEST = 'workspaceAgent/approval';
/** Key in the client's `experimental.workspaceAgent` capabilities. */
export const APPROVALS_CAPABILITY = 'approvals';

// -- Notifications (server -> client) ------------------------------------------------------
export const TODOS_NOTIFICATION = 'workspaceAgent/todos';
export const EVENT_NOTIFICATION = 'workspaceAgent/event';
/** Same name as CHANGES_REQUEST: its result plus sessionId, as a run changes the workspace (at most every 100 ms). */
export const CHANGES_NOTIFICATION = 'workspaceAgent/changes';
/** The MCP servers' states (docs/protocol.md, MCP servers): {servers: McpServerState[]}. */
export const MCP_SERVERS_NOTIFICATION = 'workspaceAgent/mcpServers';

export const MCP_STATES = ['starting', 'ready', 'failed', 'stopped', 'not started', 'disabled'] as const;
export type McpState = (typeof MCP_STATES)[number];

export interface McpServerState {
  name: string;
  source: 'user' | 'editor' | 'workspace' | 'acp' | 'command line';
  /** Where it is configured: a file, the setting, "ACP session/new". */
  origin: string;
  state: McpState;
  tools: number;
  reason: string | null;
  /** Its tools' names as the server gives them (ready only); absent from older servers. */
  toolNames?: string[];
  /** What it runs: "COMMAND LINE; cwd ...; env NAMES" (or the URL). */
  detail?: string;
  /** sha256 of its exact config: workspaceAgent/mcpTrust sends it back. */
  fingerprint?: string;
}

/** Answer of workspaceAgent/mcpRestart, mcpTrust and mcpSetEnabled: the states after it. */
export interface McpServersPayload {
  servers: McpServerState[];
}

/** Whether commands run in the sandbox (after `initialized`, and when settings change it). */
export const SANDBOX_NOTIFICATION = 'workspaceAgent/sandbox';

// -- Settings section (initializationOptions / workspace/didChangeConfiguration) -----------
export const SETTINGS_SECTION = 'workspaceAgent';

// -- Protocol version (the server's `initialize` result) -----------------------------------
/** The contract's version this extension speaks; the server must announce the same. */
export const PROTOCOL_VERSION = 1;
/** Key in the server's `experimental.workspaceAgent` capabilities. */
export const PROTOCOL_VERSION_CAPABILITY = 'protocolVersion';
/**
 * Announced true beside it when workspaceAgent.revert / undoRevert take `dryRun`. Checked
 * before sending one: a server without it would ignore the flag and revert.
 */
export const REVERT_DRY_RUN_CAPABILITY = 'revertDryRun';
/** Announced true beside it when workspaceAgent.revert takes `only` (one step's changes alone). */
export const REVERT_ONLY_CAPABILITY = 'revertOnly';
/** Key in the server's `experimental.workspaceAgent` capabilities: `{mode}` at `initialize`. */
export const SANDBOX_CAPABILITY = 'sandbox';

/** workspaceAgent/sandbox: whether commands are confined, and if not why and the fix. */
export interface SandboxStatus {
  mode: 'auto' | 'required' | 'off';
  active: boolean;
  reason: string | null;
  fix: string | null;
  /** One line for a status bar tooltip or a log. */
  message: string;
}

export const STOP_REASONS = ['end_turn', 'cancelled', 'max_turns', 'budget', 'error'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

// Checkpoints: how a file changed under a plan item, and the sides of a diff.
export const CHANGE_KINDS = ['added', 'modified', 'deleted'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
export const FILE_SIDES = ['before', 'after'] as const;
export type FileSide = (typeof FILE_SIDES)[number];

// Kinds of workspaceAgent/event, in the order a run usually produces them.
export const EVENT_RUN_START = 'runStart';
export const EVENT_TEXT = 'text';
export const EVENT_TOOL_CALL = 'toolCall';
export const EVENT_TOOL_RESULT = 'toolResult';
export const EVENT_REMINDER = 'reminder';
export const EVENT_RETRY = 'retry';
export const EVENT_NOTICE = 'notice';
export const EVENT_ERROR = 'error';
export const EVENT_RUN_END = 'runEnd';
/** A question to the user (workspaceAgent/approval) and its answer. */
export const EVENT_APPROVAL = 'approval';
export const EVENT_KINDS = [
  EVENT_RUN_START,
  EVENT_TEXT,
  EVENT_TOOL_CALL,
  EVENT_TOOL_RESULT,
  EVENT_REMINDER,
  EVENT_RETRY,
  EVENT_NOTICE,
  EVENT_ERROR,
  EVENT_RUN_END,
  EVENT_APPROVAL,
] as const;

/** One step of the agent's plan. */
export interface TodoItem {
  id: string;
  text: string;
  status: TodoStatus;
}

/** Tokens billed for a run: uncached input, output, and prompt-cache writes and reads. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheWriteTokens?: number;
  cacheReadTokens?: number;
}

/** An LSP position and range (UTF-16 code units, which is what VS Code counts too). */
export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

/** LSP DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint. */
export type Severity = 1 | 2 | 3 | 4;

/** A problem the editor shows, located by a path relative to the workspace root. */
export interface ContextDiagnostic {
  path: string;
  range: Range;
  severity?: Severity;
  message: string;
  source?: string;
  code?: string | number;
}

/** What the editor knows as the user asks; paths relative to the workspace root, with "/". */
export interface RunContext {
  activeFile?: string;
  selection?: { path: string; range: Range; text: string };
  diagnostics?: ContextDiagnostic[];
}

/** Params of workspaceAgent/run: without sessionId the server starts a new session. */
export interface RunParams {
  prompt: string;
  sessionId?: string;
  /** Put ahead of the prompt in the model's message (docs/protocol.md, workspaceAgent/run). */
  context?: RunContext;
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
  /** null when the server knows no price for the model. */
  cost?: CostEstimate | null;
  /** Present when stopReason is "error": a message meant for the user. */
  error?: string;
}

/** Body of workspaceAgent/todos: the whole plan, sent on every change and at every run start. */
export interface TodosPayload {
  sessionId: string;
  items: TodoItem[];
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
  todos: { completed: number; total: number };
  /** A run is going in it (in this server). */
  running: boolean;
}

/** Result of workspaceAgent/sessions: newest first, plus one line per unreadable file. */
export interface SessionsResult {
  sessions: SessionSummary[];
  problems: string[];
}

/** Result of the workspaceAgent.getTodos command (the same shape as workspaceAgent/todos). */
export type GetTodosResult = TodosPayload;

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

/** A file changed under a plan item (path relative to the workspace root, with "/"). */
export interface ChangedFile {
  path: string;
  change: ChangeKind;
  additions: number;
  deletions: number;
  /** Present (true) for binary files: no line counts, no text versions. */
  binary?: boolean;
  /** The file is now as before that step (a revert took the change back). */
  reverted?: boolean;
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
  reason: string;
}

/**
 * What one occurrence of a plan item changed; todoId null: changes made before any item
 * was in progress. Ids are reused by later plans: `key` names this occurrence. `key`,
 * `text` and `run` are absent from servers that predate them (one entry per id there).
 */
export interface ItemChanges {
  todoId: string | null;
  key?: string;
  /** The item's text when it first changed something (null: before the plan, or not recorded). */
  text?: string | null;
  /** Its latest text, when it was reworded since. */
  lastText?: string;
  /** The run (RunInfo.run) of its first change. */
  run?: number;
  /** Its changes are taken back now (a revert to before it, or an `only` revert of it). */
  reverted?: boolean;
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

/** Result of workspaceAgent/changes. */
export interface ChangesResult {
  sessionId: string;
  items: ItemChanges[];
  /** The runs the items (and lastRun) belong to; absent from older servers. */
  runs?: RunInfo[];
  /** The run Revert Last Run goes back to the start of (null: no run changed files). */
  lastRun?: number | null;
  reverts: RevertRecord[];
}

/** Body of the workspaceAgent/changes notification (the same shape). */
export type ChangesPayload = ChangesResult;

/** Params of workspaceAgent/fileVersion. */
export interface FileVersionParams {
  sessionId: string;
  todoId: string | null;
  /** The occurrence (ItemChanges.key); without it, the latest occurrence of todoId. */
  key?: string;
  path: string;
  side: FileSide;
}

/** Result of workspaceAgent/fileVersion: null when the file did not exist on that side. */
export interface FileVersionResult {
  text: string | null;
}

/**
 * Argument of workspaceAgent.revert: a plan item (its key, else todoId: null = before the
 * plan) or lastRun. `dryRun` only says what would be done (REVERT_DRY_RUN_CAPABILITY).
 */
export type RevertArgs =
  | { sessionId: string; todoId: string | null; key?: string; force?: boolean; dryRun?: boolean; only?: boolean }
  | { sessionId: string; lastRun: true; force?: boolean; dryRun?: boolean };

/** Result of workspaceAgent.revert; undoId undoes it with workspaceAgent.undoRevert. */
export interface RevertResult {
  restored: string[];
  deleted: string[];
  skipped: SkippedFile[];
  undoId: string;
  /** `only` reverts: files where later changes overlap the step's; when any, nothing was written (undoId null). */
  conflicts?: SkippedFile[];
}

/** Result of workspaceAgent.revert with dryRun: what it would do; nothing was changed. */
export interface RevertDryRunResult {
  restored: string[];
  deleted: string[];
  skipped: SkippedFile[];
  undoId: null;
  dryRun: true;
  /** `only` reverts: files where later steps changed the same lines (then nothing would be written). */
  conflicts?: SkippedFile[];
}

/** Argument of workspaceAgent.undoRevert. */
export interface UndoRevertArgs {
  sessionId: string;
  undoId: string;
  force?: boolean;
  dryRun?: boolean;
}

/** Result of workspaceAgent.undoRevert. */
export interface UndoRevertResult {
  restored: string[];
  deleted: string[];
  skipped: SkippedFile[];
}

/**
 * Params of workspaceAgent/diagnostics: the files the agent changed. `wait` (default true):
 * let the language servers report first (bounded by the client's own timeout); false: the
 * problems known right now (asked before a tool runs).
 */
export interface DiagnosticsParams {
  uris: string[];
  wait?: boolean;
}

/** Each file's problems as LSP Diagnostic objects. */
export type DiagnosticsResult = { uri: string; diagnostics: unknown[] }[];

/** Kinds of tools, for showing their calls by kind. */
export type ToolKind = 'read' | 'edit' | 'execute' | 'plan' | 'other';

/** A place a tool call is about. */
export interface ToolLocation {
  path: string;
  line?: number | null;
}

export const APPROVAL_STATUSES = ['waiting', 'allowed', 'denied'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** The `approval` event: a question asked (waiting), then its answer. */
export interface ApprovalEventFields {
  kind: typeof EVENT_APPROVAL;
  toolUseId: string;
  todoId: string | null;
  status: ApprovalStatus;
  message: string;
  reason?: string;
}

/** Params of workspaceAgent/history: the `limit` newest entries older than `before`. */
export interface HistoryParams {
  sessionId: string;
  before?: string;
  limit?: number;
}

/** An event as recorded in a session's history: its position and its run. */
export type HistoryEntry = DistributiveOmit<AgentEvent, 'sessionId'> & { seq: number; run: number };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Result of workspaceAgent/history, in chronological order; `before` null at the start. */
export interface HistoryResult {
  sessionId: string;
  entries: HistoryEntry[];
  before: string | null;
  total: number;
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

/** `allowToolSession`: offered for an MCP tool's call only, that tool alone for the session (`allowSession` is then its whole server). */
export const APPROVAL_DECISIONS = ['allow', 'allowToolSession', 'allowSession', 'deny'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** Params of workspaceAgent/approval (server → client): a question that waits for its answer. */
export interface ApprovalParams {
  sessionId: string;
  toolUseId: string;
  todoId: string | null;
  kind: string;
  message: string;
  command?: string;
  path?: string;
  /** Why Deny is the default ("deletes files recursively (rm -r)"). */
  destructive?: string;
  askedBecause?: string;
  /** The replaced text and its replacement (the whole file for write_file); `line` is where it starts. */
  diff?: { path: string; before: string | null; after: string; line?: number };
  /** approvals.write = "review": Accept / Reject. */
  review?: boolean;
  options: ApprovalDecision[];
}

/** Result of workspaceAgent/approval. */
export interface ApprovalResult {
  decision: ApprovalDecision;
  reason?: string;
}

interface EventBase {
  sessionId: string;
}

/** Body of workspaceAgent/event: the live transcript, one variant per kind. */
export type AgentEvent =
  | (EventBase & {
      kind: typeof EVENT_RUN_START;
      prompt: string;
      /** The run's context in one line ("selection src/app.py:4-6, 1 problem"), if it had one. */
      attached?: string;
    })
  | (EventBase & { kind: typeof EVENT_TEXT; text: string })
  | (EventBase & {
      kind: typeof EVENT_TOOL_CALL;
      toolUseId: string;
      name: string;
      summary: string;
      todoId: string | null;
      /** What sort of tool it is (absent from older servers). */
      toolKind?: ToolKind;
      /** Where in the workspace the call reads or writes (absolute paths, 1-based lines). */
      locations?: ToolLocation[];
    })
  | (EventBase & {
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
    })
  | (EventBase & ApprovalEventFields)
  | (EventBase & { kind: typeof EVENT_REMINDER; text: string })
  | (EventBase & {
      kind: typeof EVENT_RETRY;
      attempt: number;
      maxAttempts: number;
      delaySeconds: number;
      reason: string;
      message: string;
    })
  | (EventBase & { kind: typeof EVENT_NOTICE; message: string })
  | (EventBase & { kind: typeof EVENT_ERROR; message: string })
  | (EventBase & { kind: typeof EVENT_RUN_END; stopReason: StopReason; usage: Usage; cost?: CostEstimate | null });
