/**
 * Every custom method of the protocol, declared once with its payload types (the way
 * rust-analyzer's `lsp_ext.ts` does), so call sites pass these objects and get typed
 * params and results: no method strings, no casts.
 *
 * GENERATED from contract/workspace-agent.json by scripts/generate_contract.py: do not
 * edit; change the JSON and run `make generate`. The types come from
 * vscode-languageserver-protocol, the package vscode-languageclient is built on (same
 * version), not from vscode-languageclient itself, so this module stays free of `vscode`
 * and the unit tests can import it.
 */
import {
  ExecuteCommandRequest,
  NotificationType,
  RequestType,
  RequestType0,
} from 'vscode-languageserver-protocol';
import {
  APPROVAL_REQUEST,
  APPROVE_PLAN_REQUEST,
  type AgentEvent,
  type ApprovalParams,
  type ApprovalResult,
  type ApprovePlanParams,
  BACKGROUND_OUTPUT_REQUEST,
  BACKGROUND_REQUEST,
  BACKGROUND_STOP_REQUEST,
  type BackgroundList,
  type BackgroundOutputParams,
  type BackgroundOutputResult,
  type BackgroundStopParams,
  CANCEL_COMMAND,
  CHANGES_NOTIFICATION,
  CHANGES_REQUEST,
  CODE_INTEL_REQUEST,
  COMMANDS_REQUEST,
  CONTEXT_METER_NOTIFICATION,
  type CancelArgs,
  type CancelResult,
  type ChangesResult,
  type CodeIntelParams,
  type CommandsResult,
  type ContextMeter,
  DIAGNOSTICS_REQUEST,
  type DiagnosticsParams,
  type DiagnosticsResult,
  EVENT_NOTIFICATION,
  FILE_VERSION_REQUEST,
  type FileVersionParams,
  type FileVersionResult,
  GET_TODOS_COMMAND,
  HISTORY_IMAGE_REQUEST,
  HISTORY_REQUEST,
  type HistoryImageParams,
  type HistoryImageResult,
  type HistoryParams,
  type HistoryResult,
  type ItemCheckParams,
  MCP_RESTART_REQUEST,
  MCP_SERVERS_NOTIFICATION,
  MCP_SET_ENABLED_REQUEST,
  MCP_TRUST_REQUEST,
  MODELS_REQUEST,
  type McpServerRef,
  type McpServersPayload,
  type McpSetEnabledParams,
  type McpTrustParams,
  type ModelsParams,
  type ModelsResult,
  NEW_SESSION_COMMAND,
  type NewSessionResult,
  REVERT_COMMAND,
  RUN_COMMAND,
  RUN_REQUEST,
  type RevertArgs,
  type RevertOutcome,
  type RunParams,
  type RunResult,
  SANDBOX_NOTIFICATION,
  SAVE_DOCUMENTS_REQUEST,
  SESSIONS_REQUEST,
  SET_ITEM_CHECK_REQUEST,
  type SandboxStatus,
  type SaveDocumentsParams,
  type SaveDocumentsResult,
  type SessionRef,
  type SessionsResult,
  TODOS_NOTIFICATION,
  TOOL_IMAGE_REQUEST,
  TOOL_OUTPUT_REQUEST,
  type TodosPayload,
  type ToolImageParams,
  type ToolOutputParams,
  type ToolOutputResult,
  UNDO_REVERT_COMMAND,
  type UndoRevertArgs,
  type UndoRevertResult,
} from './contract';

// -- Requests (client -> server) --------------------------------------------------------
/** Runs a task in a session (a new one without sessionId). */
export const run = new RequestType<RunParams, RunResult, void>(RUN_REQUEST);
/**
 * The models to pick from (the agent's table of model families, agent/thinking.py), each with the thinking levels it
 * takes, and the model and level the settings give; with `model`, that model is in the list too (an id the table does
 * not know).
 */
export const models = new RequestType<ModelsParams, ModelsResult, void>(MODELS_REQUEST);
/** The saved sessions, newest first. */
export const sessions = new RequestType0<SessionsResult, void>(SESSIONS_REQUEST);
/**
 * The slash commands a prompt can start with (`/NAME ARGUMENTS`): the built-ins, then the saved prompts
 * (`.workspace-agent/commands/NAME.md`, then `.claude/commands/NAME.md` in the workspace, then `commands/NAME.md` in the
 * user's config folder; the first of a name wins), read afresh on every request.
 */
export const commands = new RequestType0<CommandsResult, void>(COMMANDS_REQUEST);
/** What each plan item of a session changed (checkpoints). */
export const changes = new RequestType<SessionRef, ChangesResult, void>(CHANGES_REQUEST);
/** The text of a file before or after a plan item, for a diff. */
export const fileVersion = new RequestType<FileVersionParams, FileVersionResult, void>(FILE_VERSION_REQUEST);
/** A session's conversation as the user saw it, a page at a time (history/). */
export const history = new RequestType<HistoryParams, HistoryResult, void>(HISTORY_REQUEST);
/**
 * One image a prompt carried, from a session's history: the `index`-th of the `images` of its runStart entry `seq`, for
 * a transcript to show (a thumbnail) when it draws the entry.
 */
export const historyImage = new RequestType<HistoryImageParams, HistoryImageResult, void>(HISTORY_IMAGE_REQUEST);
/**
 * One image a tool's result carried (an MCP tool's image content), for a card's thumbnail: the `index`-th of the
 * `images` of the toolResult of `toolUseId`.
 */
export const toolImage = new RequestType<ToolImageParams, HistoryImageResult, void>(TOOL_IMAGE_REQUEST);
/** The whole output of one tool call, as the model got it. */
export const toolOutput = new RequestType<ToolOutputParams, ToolOutputResult, void>(TOOL_OUTPUT_REQUEST);
/**
 * A session's background commands (bash with `run_in_background`): those running in this server and those that ended,
 * also before a reload (their output files stay in the session's folder), newest last.
 */
export const background = new RequestType<SessionRef, BackgroundList, void>(BACKGROUND_REQUEST);
/**
 * A background command's output from `offset` (0: from the start of what is kept, the last 10 MB), for Show Output; it
 * does not move the model's place (bash_output).
 */
export const backgroundOutput = new RequestType<BackgroundOutputParams, BackgroundOutputResult, void>(BACKGROUND_OUTPUT_REQUEST);
/**
 * Stops one background command (`id`), or every one of the session (no `id`: Stop All): SIGTERM to its processes,
 * SIGKILL to what is left after 5 seconds; answers once they are gone, with the session's list.
 */
export const backgroundStop = new RequestType<BackgroundStopParams, BackgroundList, void>(BACKGROUND_STOP_REQUEST);
/** Stop one MCP server and start it again (`{name}`); answers the states. */
export const mcpRestart = new RequestType<McpServerRef, McpServersPayload, void>(MCP_RESTART_REQUEST);
/** Trust a workspace's MCP server, the exact config shown (`{name, fingerprint}`). */
export const mcpTrust = new RequestType<McpTrustParams, McpServersPayload, void>(MCP_TRUST_REQUEST);
/** Disable or enable one MCP server (`{name, enabled}`), kept in the user config folder. */
export const mcpSetEnabled = new RequestType<McpSetEnabledParams, McpServersPayload, void>(MCP_SET_ENABLED_REQUEST);
/**
 * Give one plan item a check of the user's own (`{sessionId, todoId, command}`: a shell command that runs, as the user's
 * hooks do, when the item is marked completed; `command` null or empty takes it away); answers the plan, also sent as
 * workspaceAgent/todos.
 */
export const setItemCheck = new RequestType<ItemCheckParams, TodosPayload, void>(SET_ITEM_CHECK_REQUEST);
/**
 * Answers a plan (a run that stopped with `planReady`) with the plan as the user left it: action `run` starts an
 * act-mode run of it, `revise` a plan-mode run that revises it; the result is that run's, as for workspaceAgent/run (a
 * revised plan's carries `planDiff`).
 */
export const approvePlan = new RequestType<ApprovePlanParams, RunResult, void>(APPROVE_PLAN_REQUEST);

// -- Requests (server -> client) --------------------------------------------------------
/** Sent before a command runs when the client announced the capability below. */
export const saveDocuments = new RequestType<SaveDocumentsParams, SaveDocumentsResult, void>(SAVE_DOCUMENTS_REQUEST);
/**
 * Sent after a tool changed files, and with `all` for a prompt's `@problems`, when the client announced the capability
 * below.
 */
export const diagnostics = new RequestType<DiagnosticsParams, DiagnosticsResult, void>(DIAGNOSTICS_REQUEST);
/**
 * Asks for an approval in place of window/showMessageRequest, when the client announced the capability below; open until
 * answered, or cancelled with the run.
 */
export const approval = new RequestType<ApprovalParams, ApprovalResult, void>(APPROVAL_REQUEST);
/**
 * Asks the editor's language extensions about code, for the code_intel and rename_symbol tools, when the client
 * announced the capability below (then those tools are answered by the editor, not by configured language servers).
 */
export const codeIntel = new RequestType<CodeIntelParams, unknown, void>(CODE_INTEL_REQUEST);

// -- Notifications (server -> client) ---------------------------------------------------
/** The whole plan, sent on every change and at every run start. */
export const todosNotification = new NotificationType<TodosPayload>(TODOS_NOTIFICATION);
/** The live transcript, one event per notification (see `events`). */
export const eventNotification = new NotificationType<AgentEvent>(EVENT_NOTIFICATION);
/** The MCP servers' states, whenever one changes. */
export const mcpServersNotification = new NotificationType<McpServersPayload>(MCP_SERVERS_NOTIFICATION);
/**
 * Same name as CHANGES_REQUEST: the request's result plus sessionId, pushed after every workspace-changing tool call (at
 * most every 100 ms).
 */
export const changesNotification = new NotificationType<ChangesResult>(CHANGES_NOTIFICATION);
/** Whether commands run in the sandbox, and if not why: after `initialized` and after a settings change. */
export const sandboxNotification = new NotificationType<SandboxStatus>(SANDBOX_NOTIFICATION);
/**
 * How full a session's context window is: after each model request of the session's own agent (not a subagent's) and
 * after `/compact`.
 */
export const contextMeterNotification = new NotificationType<ContextMeter>(CONTEXT_METER_NOTIFICATION);

// -- Commands (workspace/executeCommand) ------------------------------------------------

/** `workspace/executeCommand` params with the command's own argument list. */
export interface CommandParams<A extends unknown[]> {
  command: string;
  arguments: A;
}

/**
 * A command the server advertises, with its arguments and result: `request` is
 * `workspace/executeCommand` typed for this one command (the standard request type
 * returns `any`).
 */
export interface ServerCommand<A extends unknown[], R> {
  readonly command: string;
  readonly request: RequestType<CommandParams<A>, R, void>;
}

function serverCommand<A extends unknown[], R>(command: string): ServerCommand<A, R> {
  const request = new RequestType<CommandParams<A>, R, void>(ExecuteCommandRequest.method);
  return { command, request };
}

export const runCommand = serverCommand<[RunParams], RunResult>(RUN_COMMAND);
export const cancelCommand = serverCommand<[CancelArgs], CancelResult>(CANCEL_COMMAND);
export const newSessionCommand = serverCommand<[], NewSessionResult>(NEW_SESSION_COMMAND);
export const getTodosCommand = serverCommand<[SessionRef], TodosPayload>(GET_TODOS_COMMAND);
export const revertCommand = serverCommand<[RevertArgs], RevertOutcome>(REVERT_COMMAND);
export const undoRevertCommand = serverCommand<[UndoRevertArgs], UndoRevertResult>(UNDO_REVERT_COMMAND);
