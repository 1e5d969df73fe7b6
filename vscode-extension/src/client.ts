/**
 * The language client: starts the Python server, restarts it, and carries requests.
 *
 * Decisions kept here:
 * - The extension owns the run's progress UI (a cancellable notification plus the status
 *   bar), so the client does not announce `window.workDoneProgress`; otherwise the server
 *   would also report each run as a second, non-cancellable progress in the status bar.
 * - Open files are synced to the server, which reads and edits them as the editor has them.
 * - The API key goes into the server's environment as ANTHROPIC_API_KEY, never into
 *   settings, initializationOptions or logs.
 * - A server that stops unexpectedly is reported once, with a Restart action, and not
 *   restarted automatically (a crash at start-up would otherwise loop).
 */
import * as vscode from 'vscode';
import {
  type ClientCapabilities,
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  type FeatureState,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import {
  type AgentEvent,
  EVENT_KINDS,
  EVENT_NOTIFICATION,
  GET_TODOS_COMMAND,
  NEW_SESSION_COMMAND,
  type NewSessionResult,
  RUN_REQUEST,
  type RunParams,
  type RunResult,
  SAVE_DOCUMENTS_CAPABILITY,
  SAVE_DOCUMENTS_REQUEST,
  SESSIONS_REQUEST,
  type SessionsResult,
  SETTINGS_SECTION,
  TODOS_NOTIFICATION,
  type TodosPayload,
} from './protocol';
import { isTodosPayload } from './core/plan';
import { isSessionsResult } from './core/sessions';
import { SERVER_MODULE } from './core/pythonEnv';
import { serverEnvironment } from './core/settings';
import type { ServerPython } from './python';
import { readServerSettings, readWrappedSettings } from './settings';
import type { ApiKeyStore } from './apiKey';
import { saveDocuments } from './documents';

export interface ServerListener {
  todos(payload: TodosPayload): void;
  event(event: AgentEvent): void;
  /** The server has started (again): its saved sessions can be listed. */
  started(): void;
  /** The server process went away (stopped, restarted or crashed); its sessions are saved. */
  stopped(): void;
}

/**
 * The client capabilities that are the extension's own: no `window.workDoneProgress` (see
 * the module doc), and `experimental.workspaceAgent.saveDocuments` (documents.ts).
 */
class AgentCapabilities implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    if (capabilities.window) {
      capabilities.window.workDoneProgress = false;
    }
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, [SETTINGS_SECTION]: { [SAVE_DOCUMENTS_CAPABILITY]: true } };
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

export class AgentServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private failureShown = false;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly python: ServerPython,
    private readonly apiKey: ApiKeyStore,
    private readonly listener: ServerListener,
  ) {}

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

  async restart(): Promise<LanguageClient | undefined> {
    await this.stop();
    this.failureShown = false;
    return this.ensureStarted();
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (error) {
        this.log.warn(`Stopping the server: ${String(error)}`);
      }
      await client.dispose().catch(() => undefined);
      this.listener.stopped();
    }
  }

  async run(params: RunParams, token: vscode.CancellationToken): Promise<RunResult> {
    const client = await this.requireClient();
    return client.sendRequest<RunResult>(RUN_REQUEST, params, token);
  }

  async newSession(): Promise<string> {
    const client = await this.requireClient();
    const result = (await client.sendRequest(ExecuteCommandRequest.type, {
      command: NEW_SESSION_COMMAND,
      arguments: [],
    })) as NewSessionResult;
    return result.sessionId;
  }

  /** workspaceAgent/sessions: the saved sessions of the workspace, newest first. */
  async sessions(): Promise<SessionsResult> {
    const client = await this.requireClient();
    const result: unknown = await client.sendRequest(SESSIONS_REQUEST, {});
    if (!isSessionsResult(result)) {
      throw new Error(`unexpected answer to ${SESSIONS_REQUEST}`);
    }
    return result;
  }

  /** The workspaceAgent.getTodos command: a session's plan (a saved one is loaded). */
  async getTodos(sessionId: string): Promise<TodosPayload> {
    const client = await this.requireClient();
    const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
      command: GET_TODOS_COMMAND,
      arguments: [{ sessionId }],
    });
    if (!isTodosPayload(result)) {
      throw new Error(`unexpected answer to ${GET_TODOS_COMMAND}`);
    }
    return result;
  }

  /** Sends the current settings to the running server (nothing to do when it is not running). */
  async pushSettings(): Promise<void> {
    if (this.client?.isRunning()) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: readWrappedSettings() });
    }
  }

  dispose(): void {
    void this.stop();
  }

  private async requireClient(): Promise<LanguageClient> {
    const client = await this.ensureStarted();
    if (!client) {
      throw new Error('the Workspace Agent server is not running');
    }
    return client;
  }

  private async start(): Promise<LanguageClient | undefined> {
    const python = await this.python.resolve();
    if (!python) {
      return undefined;
    }
    const folder = vscode.workspace.workspaceFolders?.[0];
    // No `transport`: with TransportKind.stdio the client would append `--stdio`, which the
    // server's command line does not take; a plain executable speaks stdio anyway.
    const serverOptions: ServerOptions = {
      command: python,
      args: ['-m', SERVER_MODULE],
      options: {
        env: serverEnvironment(process.env, await this.apiKey.get()),
        ...(folder?.uri.scheme === 'file' ? { cwd: folder.uri.fsPath } : {}),
      },
    };
    const clientOptions: LanguageClientOptions = {
      // Open files are synced so the agent reads what the editor shows (unsaved text
      // included) and edits open documents through workspace/applyEdit.
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.log,
      initializationOptions: readWrappedSettings(),
      errorHandler: {
        error: (_error, _message, count) => ({
          action: (count ?? 0) > 3 ? ErrorAction.Shutdown : ErrorAction.Continue,
          handled: true,
        }),
        closed: () => {
          this.reportFailure('the server stopped unexpectedly');
          this.listener.stopped();
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      initializationFailedHandler: (error) => {
        this.log.error(`The server failed to initialize: ${String(error)}`);
        return false;
      },
      middleware: {
        workspace: {
          // The server pulls its section when nothing was pushed: answer with the same
          // filtered settings the push sends (unset keys left to the server's fallbacks).
          configuration: (params) =>
            params.items.map((item) => (item.section === SETTINGS_SECTION ? readServerSettings() : null)),
        },
      },
    };
    const client = new LanguageClient('workspaceAgent', 'Workspace Agent', serverOptions, clientOptions);
    client.registerFeature(new AgentCapabilities());
    client.onRequest(SAVE_DOCUMENTS_REQUEST, saveDocuments);
    client.onNotification(TODOS_NOTIFICATION, (payload: unknown) => {
      if (isTodosPayload(payload)) {
        this.listener.todos(payload);
      }
    });
    client.onNotification(EVENT_NOTIFICATION, (event: AgentEvent) => {
      if ((EVENT_KINDS as readonly string[]).includes(event?.kind)) {
        this.listener.event(event);
      }
    });
    this.log.info(`Starting the server: ${python} -m ${SERVER_MODULE}`);
    try {
      await client.start();
    } catch (error) {
      this.reportFailure(`the server failed to start: ${error instanceof Error ? error.message : String(error)}`);
      await client.dispose().catch(() => undefined);
      return undefined;
    }
    this.client = client;
    this.listener.started();
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
