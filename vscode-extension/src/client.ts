/**
 * The language client: starts the Python server, restarts it, and carries requests.
 *
 * Decisions kept here:
 * - The extension owns the run's progress UI (a cancellable notification plus the status
 *   bar), so the client does not announce `window.workDoneProgress`; otherwise the server
 *   would also report each run as a second, non-cancellable progress in the status bar.
 * - Open files are synced to the server, which reads and edits them as the editor has them.
 * - After the agent changed files, the server asks for their problems
 *   (`experimental.workspaceAgent.diagnostics`, diagnostics.ts) to tell it what it broke.
 * - The API key goes into the server's environment as ANTHROPIC_API_KEY, never into
 *   settings, initializationOptions or logs.
 * - A server that stops unexpectedly is reported once, with a Restart action, and not
 *   restarted automatically (a crash at start-up would otherwise loop).
 * - A server that speaks another protocol version (its `initialize` result) is stopped at
 *   once; its interpreter is passed over, which offers the server bundled in the VSIX.
 */
import * as vscode from 'vscode';
import {
  type ClientCapabilities,
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  type FeatureState,
  LanguageClient,
  type NotificationType,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import {
  type AgentEvent,
  ALWAYS_ALLOW_HOSTS_CAPABILITY,
  APPROVALS_CAPABILITY,
  type ApprovalParams,
  type ApprovePlanParams,
  type ApprovalResult,
  type BackgroundList,
  type BackgroundOutputParams,
  type BackgroundOutputResult,
  type BackgroundStopParams,
  type ChangesResult,
  type ContextMeter,
  type FileVersionParams,
  type HistoryImageParams,
  type ToolImageParams,
  type HistoryImageResult,
  type HistoryParams,
  type HistoryResult,
  type ItemCheckParams,
  commandResultProblem,
  isContract,
  notificationProblem,
  resultProblem,
  type McpServersPayload,
  type RevertArgs,
  type RevertDryRunResult,
  type RevertResult,
  type RunParams,
  type SandboxStatus,
  type RunResult,
  CODE_INTEL_CAPABILITY,
  DIAGNOSTICS_CAPABILITY,
  SAVE_DOCUMENTS_CAPABILITY,
  type ModelsResult,
  type SessionsResult,
  type StopCause,
  type CommandsResult,
  SETTINGS_SECTION,
  type TodosPayload,
  type UndoRevertArgs,
  type UndoRevertResult,
} from './protocol';
import * as lsp from './lspExt';
import { isHistoryResult } from './core/conversation';
import { SERVER_MODULE } from './core/pythonEnv';
import { announcement, protocolMismatch } from './core/serverVersion';
import { configurationAnswer, serverEnvironment } from './core/settings';
import type { ServerPython } from './python';
import { readServerSettings, readWrappedSettings } from './settings';
import type { ApiKeyStore } from './apiKey';
import { saveDocuments } from './documents';
import { codeActionMiddleware } from './codeActions';
import { DiagnosticsWatch } from './diagnostics';
import { answerCodeIntel } from './codeIntel';

export interface ServerListener {
  todos(payload: TodosPayload): void;
  event(event: AgentEvent): void;
  /** What the session's plan items changed, as the run changes the workspace (at most every 100 ms). */
  changes(payload: ChangesResult): void;
  /** Whether commands run in the sandbox, and if not why (workspaceAgent/sandbox). */
  sandbox(status: SandboxStatus): void;
  /** How full a session's context window is (workspaceAgent/contextMeter): live only, never in a history. */
  contextMeter(meter: ContextMeter): void;
  /** The MCP servers' states (workspaceAgent/mcpServers). */
  mcpServers(payload: McpServersPayload): void;
  /** The server has started (again): its saved sessions can be listed. */
  started(): void;
  /** The server process went away (stopped, restarted or crashed); its sessions are saved. */
  stopped(): void;
  /** A question for the user (workspaceAgent/approval): resolves with the answer; `token` withdraws it. */
  approval(params: ApprovalParams, token: vscode.CancellationToken): Promise<ApprovalResult>;
  /** The session whose run this window is waiting on, if any (a stop tells the server why it ends). */
  runningSession(): string | undefined;
}

/**
 * The client capabilities that are the extension's own: no `window.workDoneProgress` (see
 * the module doc), `experimental.workspaceAgent.saveDocuments` (documents.ts), and
 * `approvals`: questions come as workspaceAgent/approval and wait in the Conversation view.
 */
class AgentCapabilities implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    if (capabilities.window) {
      capabilities.window.workDoneProgress = false;
    }
    const experimental: unknown = capabilities.experimental;
    capabilities.experimental = {
      ...(typeof experimental === 'object' && experimental !== null ? experimental : {}),
      [SETTINGS_SECTION]: { [SAVE_DOCUMENTS_CAPABILITY]: true, [DIAGNOSTICS_CAPABILITY]: true, [APPROVALS_CAPABILITY]: true, [ALWAYS_ALLOW_HOSTS_CAPABILITY]: true, [CODE_INTEL_CAPABILITY]: true },
    };
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

/** How long a stop waits for the server to take the cause of the run it cuts short. */
const CANCEL_WAIT_MS = 1500;

export class AgentServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly diagnostics = new DiagnosticsWatch();
  private starting: Promise<LanguageClient | undefined> | undefined;
  private failureShown = false;
  private listener: ServerListener | undefined;
  /** Resolves with the listener: a start asked for while the extension is being built waits for it. */
  private readonly connected: Promise<ServerListener>;
  private connect: (listener: ServerListener) => void = () => undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly python: ServerPython,
    private readonly apiKey: ApiKeyStore,
    /** The extension's version, named when a server's protocol version does not fit. */
    private readonly extensionVersion: string,
  ) {
    this.connected = new Promise((resolve) => {
      this.connect = resolve;
    });
  }

  /**
   * Where the server's notifications and questions go, given once every part they reach
   * is built (extension.ts). A view shown while the parts are built asks for the server
   * already: its start waits for this.
   */
  listen(listener: ServerListener): void {
    this.listener = listener;
    this.connect(listener);
  }

  /** The server is running, or starting. */
  get running(): boolean {
    return Boolean(this.client?.isRunning() || this.starting);
  }

  /** The running client, starting the server first if needed; undefined when it cannot start. */
  ensureStarted(): Promise<LanguageClient | undefined> {
    if (this.client?.isRunning()) {
      return Promise.resolve(this.client);
    }
    if (this.client && !this.starting) {
      // The server stopped on its own (a crash): let go of the dead client.
      const dead = this.client;
      this.client = undefined;
      void dead.dispose().catch(() => undefined);
    }
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** The walkthrough's Install step: starts the server, installing a missing one without asking. */
  async installAndStart(): Promise<LanguageClient | undefined> {
    if (this.python.offerPending) {
      // A start waits on the install offer: answer it (a restart would wait behind it).
      this.python.answerOffer('install');
      return this.ensureStarted();
    }
    this.python.installWithoutAsking = true;
    try {
      return await (this.client?.isRunning() ? this.client : this.restart());
    } finally {
      this.python.installWithoutAsking = false;
    }
  }

  async restart(): Promise<LanguageClient | undefined> {
    await this.stop('restart');
    this.failureShown = false;
    this.python.forgetUnusable();
    return this.ensureStarted();
  }

  /**
   * Stops the server. `cause` (a window going away, a restart) is told to the server first
   * for the run still going, so its end in the conversation says why (not just "cancelled").
   */
  async stop(cause?: StopCause): Promise<void> {
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client) {
      const sessionId = cause && client.isRunning() ? this.listener?.runningSession() : undefined;
      if (cause && sessionId) {
        const told = client
          .sendRequest(lsp.cancelCommand.request, { command: lsp.cancelCommand.command, arguments: [{ sessionId, cause }] })
          .catch(() => undefined);
        await Promise.race([told, new Promise((resolve) => setTimeout(resolve, CANCEL_WAIT_MS))]);
      }
      try {
        await client.stop(5000);
      } catch (error) {
        this.log.warn(`Stopping the server: ${String(error)}`);
      }
      await client.dispose().catch(() => undefined);
      this.listener?.stopped();
    }
  }

  async run(params: RunParams, token: vscode.CancellationToken): Promise<RunResult> {
    const client = await this.requireClient();
    return client.sendRequest(lsp.run, params, token);
  }

  /** workspaceAgent/approvePlan: the run of an approved (or to be revised) plan, answered when it ends. */
  async approvePlan(params: ApprovePlanParams, token: vscode.CancellationToken): Promise<RunResult> {
    const client = await this.requireClient();
    return client.sendRequest(lsp.approvePlan, params, token);
  }

  async newSession(): Promise<string> {
    return (await this.execute(lsp.newSessionCommand)).sessionId;
  }

  /** workspaceAgent/models: the models to pick from (with `model` described too). */
  async models(model?: string): Promise<ModelsResult> {
    const client = await this.requireClient();
    return checked(lsp.models.method, await client.sendRequest(lsp.models, model ? { model } : {}));
  }

  /** workspaceAgent/sessions: the saved sessions of the workspace, newest first. */
  async sessions(): Promise<SessionsResult> {
    const client = await this.requireClient();
    return checked(lsp.sessions.method, await client.sendRequest(lsp.sessions));
  }

  /** workspaceAgent/commands: the slash commands (built-ins and saved prompts). */
  async commands(): Promise<CommandsResult> {
    const client = await this.requireClient();
    return checked(lsp.commands.method, await client.sendRequest(lsp.commands));
  }

  /** The workspaceAgent.getTodos command: a session's plan (a saved one is loaded). */
  async getTodos(sessionId: string): Promise<TodosPayload> {
    return this.execute(lsp.getTodosCommand, { sessionId });
  }

  /** workspaceAgent/changes: what each plan item of the session changed. */
  async changes(sessionId: string): Promise<ChangesResult> {
    const client = await this.requireClient();
    return checked(lsp.changes.method, await client.sendRequest(lsp.changes, { sessionId }));
  }

  /** workspaceAgent/fileVersion: a file's text before or after a plan item (null: no file). */
  async fileVersion(params: FileVersionParams, token?: vscode.CancellationToken): Promise<string | null> {
    const client = await this.requireClient();
    return checked(lsp.fileVersion.method, await client.sendRequest(lsp.fileVersion, params, token)).text;
  }

  /** workspaceAgent/history: a page of the session's conversation (the newest without `before`). */
  async history(params: HistoryParams): Promise<HistoryResult> {
    const client = await this.requireClient();
    const result = await client.sendRequest(lsp.history, params);
    if (!isHistoryResult(result)) {
      throw new Error(`unexpected answer to ${lsp.history.method}`);
    }
    return result;
  }

  /** workspaceAgent/historyImage: the `index`-th image of the runStart entry `seq`. */
  async historyImage(params: HistoryImageParams): Promise<HistoryImageResult> {
    const client = await this.requireClient();
    return checked(lsp.historyImage.method, await client.sendRequest(lsp.historyImage, params));
  }

  /** workspaceAgent/toolImage: the `index`-th image of the result of the tool call `toolUseId`. */
  async toolImage(params: ToolImageParams): Promise<HistoryImageResult> {
    const client = await this.requireClient();
    return checked(lsp.toolImage.method, await client.sendRequest(lsp.toolImage, params));
  }

  /** workspaceAgent/toolOutput: the whole output of a tool call, as the model got it. */
  async toolOutput(sessionId: string, toolUseId: string): Promise<string> {
    const client = await this.requireClient();
    return checked(lsp.toolOutput.method, await client.sendRequest(lsp.toolOutput, { sessionId, toolUseId })).text;
  }

  /** workspaceAgent/background: a session's background commands (running or ended). */
  async background(sessionId: string): Promise<BackgroundList> {
    const client = await this.requireClient();
    return checked(lsp.background.method, await client.sendRequest(lsp.background, { sessionId }));
  }

  /** workspaceAgent/backgroundOutput: a background command's output from `offset`. */
  async backgroundOutput(params: BackgroundOutputParams): Promise<BackgroundOutputResult> {
    const client = await this.requireClient();
    return checked(lsp.backgroundOutput.method, await client.sendRequest(lsp.backgroundOutput, params));
  }

  /** workspaceAgent/backgroundStop: stop one background command (or all of the session); the list after. */
  async backgroundStop(params: BackgroundStopParams): Promise<BackgroundList> {
    const client = await this.requireClient();
    return checked(lsp.backgroundStop.method, await client.sendRequest(lsp.backgroundStop, params));
  }

  /** workspaceAgent/mcpRestart: stop one MCP server and start it again; the states after it. */
  async mcpRestart(name: string): Promise<McpServersPayload> {
    const client = await this.requireClient();
    return checked(lsp.mcpRestart.method, await client.sendRequest(lsp.mcpRestart, { name }));
  }

  /** workspaceAgent/mcpTrust: trust a workspace's MCP server, the exact config shown. */
  async mcpTrust(name: string, fingerprint: string): Promise<McpServersPayload> {
    const client = await this.requireClient();
    return checked(lsp.mcpTrust.method, await client.sendRequest(lsp.mcpTrust, { name, fingerprint }));
  }

  /** workspaceAgent/setItemCheck: a plan item's own check (Add Check…), or none. */
  async setItemCheck(params: ItemCheckParams): Promise<TodosPayload> {
    const client = await this.requireClient();
    return checked(lsp.setItemCheck.method, await client.sendRequest(lsp.setItemCheck, params));
  }

  /** workspaceAgent/mcpSetEnabled: turn one MCP server off (kept off) or on again. */
  async mcpSetEnabled(name: string, enabled: boolean): Promise<McpServersPayload> {
    const client = await this.requireClient();
    return checked(lsp.mcpSetEnabled.method, await client.sendRequest(lsp.mcpSetEnabled, { name, enabled }));
  }

  /** The workspaceAgent.revert command. */
  async revert(args: RevertArgs): Promise<RevertResult> {
    const result = await this.execute(lsp.revertCommand, args);
    const conflicts: unknown = (result as { conflicts?: unknown } | null)?.conflicts;
    if (Array.isArray(conflicts) && conflicts.length) {
      // An `only` revert that met later changes to the same lines wrote nothing.
      const files = conflicts.map((c: unknown) => (typeof c === 'object' && c && 'path' in c ? String(c.path) : '?'));
      throw new Error(`later steps changed the same lines in ${files.join(', ')}; nothing was changed`);
    }
    if (!isContract('RevertResult', result)) {
      throw new Error(`unexpected answer to ${lsp.revertCommand.command}`);
    }
    return result;
  }

  /** The server takes back one step's changes alone (`only`: a three-way merge per file). */
  get canRevertOnly(): boolean {
    return this.client?.isRunning() === true && announcement(this.client.initializeResult).revertOnly === true;
  }

  /**
   * workspaceAgent.revert with dryRun: what it would restore, delete and skip. The VSIX's
   * own server announces it; a server that did not would ignore the flag and revert, so
   * it is refused rather than sent.
   */
  async previewRevert(args: RevertArgs): Promise<RevertDryRunResult> {
    const client = await this.requireClient();
    if (announcement(client.initializeResult).revertDryRun !== true) {
      throw new Error('this server cannot tell what a revert would do (no dry run)');
    }
    const result: unknown = await this.execute(lsp.revertCommand, { ...args, dryRun: true });
    if (!isContract('RevertDryRunResult', result)) {
      throw new Error(`unexpected answer to ${lsp.revertCommand.command} (dry run)`);
    }
    return result;
  }

  /** The workspaceAgent.undoRevert command. */
  async undoRevert(args: UndoRevertArgs): Promise<UndoRevertResult> {
    return this.execute(lsp.undoRevertCommand, args);
  }

  /** Sends the current settings to the running server (nothing to do when it is not running). */
  async pushSettings(): Promise<void> {
    if (this.client?.isRunning()) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: readWrappedSettings(this.reportSetting),
      });
    }
  }

  dispose(): void {
    this.diagnostics.dispose();
    void this.stop('reload'); // the window is reloading or closing
  }

  /** A setting value that was not used (a workspace asking for more than it may, a typo). */
  private readonly reportSetting = (problem: string): void => this.log.warn(`Settings: ${problem}`);

  /** Runs a command the server advertises (workspace/executeCommand), typed by lspExt, its answer checked. */
  private async execute<A extends unknown[], R>(command: lsp.ServerCommand<A, R>, ...args: A): Promise<R> {
    const client = await this.requireClient();
    const result = await client.sendRequest(command.request, { command: command.command, arguments: args });
    const problem = commandResultProblem(command.command, result);
    if (problem) {
      throw new Error(`unexpected answer to ${command.command}: ${problem}`);
    }
    return result;
  }

  /** A task sent while the server's start waits on the install offer says so (once an offer). */
  remindOfInstall(): void {
    void this.python.remindOffer(); // nothing when no offer waits
  }

  private async requireClient(): Promise<LanguageClient> {
    const client = await this.ensureStarted();
    if (!client) {
      throw new Error('the Workspace Agent server is not running');
    }
    return client;
  }

  /** Starts the server; `attempt` 2 is the retry with another interpreter after a refusal. */
  private async start(attempt = 1): Promise<LanguageClient | undefined> {
    const listener = await this.connected;
    const python = await this.python.resolve();
    if (!python) {
      return undefined;
    }
    // No `transport`: with TransportKind.stdio the client would append `--stdio`, which the
    // server's command line does not take; a plain executable speaks stdio anyway.
    const serverOptions: ServerOptions = {
      command: python,
      args: ['-m', SERVER_MODULE],
      options: {
        env: serverEnvironment(process.env, await this.apiKey.get()),
        cwd: await this.python.serverCwd(),
      },
    };
    const clientOptions: LanguageClientOptions = {
      // Open files are synced so the agent reads what the editor shows (unsaved text
      // included) and edits open documents through workspace/applyEdit.
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.log,
      initializationOptions: readWrappedSettings(this.reportSetting),
      errorHandler: {
        error: (_error, _message, count) => ({
          action: (count ?? 0) > 3 ? ErrorAction.Shutdown : ErrorAction.Continue,
          handled: true,
        }),
        closed: () => {
          this.reportFailure('the server stopped unexpectedly');
          listener.stopped();
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      initializationFailedHandler: (error) => {
        this.log.error(`The server failed to initialize: ${String(error)}`);
        return false;
      },
      middleware: {
        ...codeActionMiddleware,
        workspace: {
          // The server pulls its section when nothing was pushed: answer with the same
          // filtered settings the push sends (unset keys left to the server's fallbacks).
          configuration: (params) =>
            configurationAnswer(
              params.items.map((item) => item.section),
              readServerSettings(this.reportSetting),
            ),
        },
      },
    };
    const client = new LanguageClient('workspaceAgent', 'Workspace Agent', serverOptions, clientOptions);
    client.registerFeature(new AgentCapabilities());
    client.onRequest(lsp.saveDocuments, saveDocuments);
    client.onRequest(lsp.codeIntel, answerCodeIntel);
    client.onRequest(lsp.approval, (params, token) => listener.approval(params, token));
    client.onRequest(lsp.diagnostics, (params, token) =>
      this.diagnostics.answer(params, (found) => client.code2ProtocolConverter.asDiagnosticsSync(found), token),
    );
    // The payloads are checked before use, against the contract (contract.ts): the types
    // say what the server promises, and a malformed notification is logged with what is
    // wrong and dropped, never handed to a view.
    const onChecked = <P>(type: NotificationType<P>, handle: (params: P) => void) =>
      client.onNotification(type, (params) => {
        const problem = notificationProblem(type.method, params);
        if (problem) {
          this.log.warn(`Dropped a ${type.method} notification: ${problem}`);
          return;
        }
        handle(params);
      });
    onChecked(lsp.todosNotification, (payload) => listener.todos(payload));
    onChecked(lsp.eventNotification, (event) => listener.event(event));
    onChecked(lsp.changesNotification, (payload) => listener.changes(payload));
    onChecked(lsp.mcpServersNotification, (payload) => listener.mcpServers(payload));
    onChecked(lsp.contextMeterNotification, (meter) => listener.contextMeter(meter));
    onChecked(lsp.sandboxNotification, (status) => {
      listener.sandbox(status);
      this.log.info(status.message);
    });
    this.log.info(`Starting the server: ${python} -m ${SERVER_MODULE}`);
    try {
      await client.start();
    } catch (error) {
      this.reportFailure(`the server failed to start: ${error instanceof Error ? error.message : String(error)}`);
      await client.dispose().catch(() => undefined);
      return undefined;
    }
    const mismatch = protocolMismatch(announcement(client.initializeResult), this.extensionVersion);
    if (mismatch) {
      this.log.error(`Workspace Agent: ${mismatch} (the server run by ${python}); stopping it.`);
      await client.stop(5000).catch(() => undefined);
      await client.dispose().catch(() => undefined);
      this.python.markUnusable(python, mismatch);
      return attempt === 1 ? this.start(2) : undefined;
    }
    this.client = client;
    listener.started();
    return client;
  }

  /** One message per failure, with the way out; not repeated until the user restarts. */
  private reportFailure(problem: string): void {
    this.log.error(`Workspace Agent: ${problem}`);
    if (this.failureShown) {
      return;
    }
    this.failureShown = true;
    const restart = 'Restart Server';
    const showLog = 'Show Log';
    void vscode.window.showErrorMessage(`Workspace Agent: ${problem}.`, restart, showLog).then(async (answer) => {
      if (answer === restart) {
        await this.restart();
      } else if (answer === showLog) {
        this.log.show();
      }
    });
  }
}

/** The answer to a request, checked against the contract (contract.ts): a malformed one is an error, never used. */
function checked<R>(method: string, result: R): R {
  const problem = resultProblem(method, result);
  if (problem) {
    throw new Error(`unexpected answer to ${method}: ${problem}`);
  }
  return result;
}
