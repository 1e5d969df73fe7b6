/**
 * Every custom method of the protocol, declared once with its payload types (the way
 * rust-analyzer's `lsp_ext.ts` does), so call sites pass these objects and get typed
 * params and results: no method strings, no casts.
 *
 * The names come from protocol.ts (mirrored from server/workspace_agent/protocol.py and
 * checked against it and docs/protocol.md by test/unit/protocol.test.ts, which also checks
 * that this module declares every method the server has). The types come from
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
  type AgentEvent,
  APPROVAL_REQUEST,
  type ApprovalParams,
  type ApprovalResult,
  CHANGES_NOTIFICATION,
  SANDBOX_NOTIFICATION,
  type SandboxStatus,
  CHANGES_REQUEST,
  type ChangesPayload,
  type ChangesResult,
  DIAGNOSTICS_REQUEST,
  type DiagnosticsParams,
  type DiagnosticsResult,
  EVENT_NOTIFICATION,
  FILE_VERSION_REQUEST,
  type FileVersionParams,
  type FileVersionResult,
  MCP_RESTART_REQUEST,
  MCP_SERVERS_NOTIFICATION,
  MCP_SET_ENABLED_REQUEST,
  MCP_TRUST_REQUEST,
  MODELS_REQUEST,
  type ModelsParams,
  type ModelsResult,
  type McpServersPayload,
  GET_TODOS_COMMAND,
  HISTORY_REQUEST,
  HISTORY_IMAGE_REQUEST,
  type HistoryImageParams,
  type HistoryImageResult,
  type HistoryParams,
  type HistoryResult,
  type GetTodosResult,
  NEW_SESSION_COMMAND,
  type NewSessionResult,
  REVERT_COMMAND,
  type RevertArgs,
  type RevertResult,
  RUN_COMMAND,
  RUN_REQUEST,
  APPROVE_PLAN_REQUEST,
  type ApprovePlanParams,
  type RunParams,
  type RunResult,
  SAVE_DOCUMENTS_REQUEST,
  SESSIONS_REQUEST,
  COMMANDS_REQUEST,
  type CommandsResult,
  type SaveDocumentsParams,
  type SaveDocumentsResult,
  type SessionsResult,
  TODOS_NOTIFICATION,
  TOOL_OUTPUT_REQUEST,
  type ToolOutputParams,
  type ToolOutputResult,
  type TodosPayload,
  UNDO_REVERT_COMMAND,
  type UndoRevertArgs,
  type UndoRevertResult,
} from './protocol';

// -- Requests (client -> server) ---------------------------------------------------------
export const run = new RequestType<RunParams, RunResult, void>(RUN_REQUEST);
/** The plan as the user left it: `run` it (act mode) or `revise` it (plan mode, planDiff). */
export const approvePlan = new RequestType<ApprovePlanParams, RunResult, void>(APPROVE_PLAN_REQUEST);
/** The models to pick from, with their thinking levels (the status-bar picker). */
export const models = new RequestType<ModelsParams, ModelsResult, void>(MODELS_REQUEST);
/** Takes no params. */
export const sessions = new RequestType0<SessionsResult, void>(SESSIONS_REQUEST);
/** The slash commands a prompt can start with. Takes no params. */
export const commands = new RequestType0<CommandsResult, void>(COMMANDS_REQUEST);
/** What each plan item of a session changed (checkpoints). */
export const changes = new RequestType<{ sessionId: string }, ChangesResult, void>(CHANGES_REQUEST);
/** The text of a file before or after a plan item, for a diff. */
export const fileVersion = new RequestType<FileVersionParams, FileVersionResult, void>(FILE_VERSION_REQUEST);
/** A page of a session's conversation (the Conversation view after a reload or a resume). */
export const history = new RequestType<HistoryParams, HistoryResult, void>(HISTORY_REQUEST);
/** One image a prompt carried, from the history (a prompt card's thumbnail). */
export const historyImage = new RequestType<HistoryImageParams, HistoryImageResult, void>(HISTORY_IMAGE_REQUEST);
/** The whole output of one tool call ("Open full output"). */
export const toolOutput = new RequestType<ToolOutputParams, ToolOutputResult, void>(TOOL_OUTPUT_REQUEST);
/** The MCP Servers view's actions; each answers the states after it. */
export const mcpRestart = new RequestType<{ name: string }, McpServersPayload, void>(MCP_RESTART_REQUEST);
export const mcpTrust = new RequestType<{ name: string; fingerprint: string }, McpServersPayload, void>(MCP_TRUST_REQUEST);
export const mcpSetEnabled = new RequestType<{ name: string; enabled: boolean }, McpServersPayload, void>(
  MCP_SET_ENABLED_REQUEST,
);

// -- Requests (server -> client) ---------------------------------------------------------
export const saveDocuments = new RequestType<SaveDocumentsParams, SaveDocumentsResult, void>(SAVE_DOCUMENTS_REQUEST);
export const diagnostics = new RequestType<DiagnosticsParams, DiagnosticsResult, void>(DIAGNOSTICS_REQUEST);
/** A question shown in place; open until answered or cancelled with the run. */
export const approval = new RequestType<ApprovalParams, ApprovalResult, void>(APPROVAL_REQUEST);

// -- Notifications (server -> client) ----------------------------------------------------
export const todos = new NotificationType<TodosPayload>(TODOS_NOTIFICATION);
export const event = new NotificationType<AgentEvent>(EVENT_NOTIFICATION);
/** Same method name as the `changes` request: its result, as the run changes the workspace (at most every 100 ms). */
export const changesNotification = new NotificationType<ChangesPayload>(CHANGES_NOTIFICATION);
export const mcpServersNotification = new NotificationType<McpServersPayload>(MCP_SERVERS_NOTIFICATION);
export const sandboxNotification = new NotificationType<SandboxStatus>(SANDBOX_NOTIFICATION);

// -- Commands (workspace/executeCommand) --------------------------------------------------

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
  return { command, request: new RequestType<CommandParams<A>, R, void>(ExecuteCommandRequest.method) };
}

/** What the server's code actions carry (core/codeActions.ts points them at the extension's run). */
export const runCommand = serverCommand<[RunParams], RunResult>(RUN_COMMAND);
export const newSessionCommand = serverCommand<[], NewSessionResult>(NEW_SESSION_COMMAND);
export const getTodosCommand = serverCommand<[{ sessionId: string }], GetTodosResult>(GET_TODOS_COMMAND);
export const revertCommand = serverCommand<[RevertArgs], RevertResult>(REVERT_COMMAND);
export const undoRevertCommand = serverCommand<[UndoRevertArgs], UndoRevertResult>(UNDO_REVERT_COMMAND);
