/**
 * Background commands in the editor: the Conversation view's Running section, a status-bar
 * count whose menu opens a port, shows an output or stops a command, Show Output (a
 * read-only editor that follows the output), and Open in Browser through
 * `vscode.env.asExternalUri` (so Remote-SSH and code-server forward the port too). What it
 * shows and says is core/running.ts's; this is the wiring.
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { COMMAND_IDS } from './commands';
import type { FromWebview } from './core/conversationStore';
import { OutputFollower, type RunningRow, RunningList, runningChoices, runningStatus, shownRows } from './core/running';
import type { AgentState } from './core/state';
import type { ConversationView } from './conversationView';
import type { AgentEvent } from './protocol';

export const OUTPUT_SCHEME = 'workspace-agent-background';
/** Show Output reads what came at most this often while output flows. */
const FOLLOW_MS = 300;

export class RunningCommands implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly list = new RunningList();
  private readonly item = vscode.window.createStatusBarItem('workspaceAgent.running', vscode.StatusBarAlignment.Left, 48);
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Show Output's documents, by URI. */
  private readonly followers = new Map<string, { sessionId: string; id: string; follower: OutputFollower; reading?: Promise<void>; again?: ReturnType<typeof setTimeout> }>();
  private readonly disposables: vscode.Disposable[] = [];
  private shownSession: string | undefined;

  constructor(
    private readonly state: AgentState,
    private readonly server: AgentServer,
    private readonly conversation: ConversationView,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.item.name = 'Workspace Agent Background Commands';
    this.item.command = COMMAND_IDS.showRunning;
    this.disposables.push(
      this.item,
      this.changed,
      vscode.workspace.registerTextDocumentContentProvider(OUTPUT_SCHEME, this),
      vscode.workspace.onDidCloseTextDocument((document) => this.followers.delete(document.uri.toString())),
      state.onChange(() => {
        if (state.sessionId !== this.shownSession) {
          void this.refresh();
        }
      }),
    );
  }

  // -- Fed by the extension ------------------------------------------------------------

  /** A workspaceAgent/event: `background` and `backgroundOutput` are this part's. */
  accept(event: AgentEvent): void {
    if (event.kind === 'background') {
      this.list.accept(event.sessionId, event);
      this.render();
    } else if (event.kind === 'backgroundOutput') {
      this.list.wrote(event.sessionId, event.id, event.outputBytes);
      for (const [uri, open] of this.followers) {
        if (open.sessionId === event.sessionId && open.id === event.id) {
          this.follow(uri);
        }
      }
    }
  }

  /** The current session's commands as the server has them (a start, a session switch). */
  async refresh(): Promise<void> {
    const sessionId = this.state.sessionId;
    this.shownSession = sessionId;
    if (sessionId) {
      try {
        this.list.replace(sessionId, (await this.server.background(sessionId)).commands);
      } catch (error) {
        this.log.info(`Background commands of session ${sessionId}: ${message(error)}`);
      }
    }
    this.render();
  }

  /** The server stopped: what it ran stopped with it. */
  serverStopped(): void {
    this.list.serverStopped(new Date());
    this.render();
  }

  /** A Running section's button (the Conversation view). */
  async act(request: Extract<FromWebview, { type: 'background' }>): Promise<void> {
    const sessionId = this.state.sessionId;
    const row = sessionId && request.id ? this.list.find(sessionId, request.id) : undefined;
    switch (request.action) {
      case 'open':
        if (row && request.url && row.ports.some((port) => port.url === request.url)) {
          await openInBrowser(request.url);
        }
        return;
      case 'output':
        if (sessionId && request.id) {
          await this.showOutput(sessionId, request.id, row?.command ?? request.id);
        }
        return;
      case 'stop':
        if (row) {
          await this.stop(row);
        }
        return;
      case 'stopAll':
        await this.stopAll();
        return;
    }
  }

  // -- Show Output ---------------------------------------------------------------------

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.followers.get(uri.toString())?.follower.content() ?? '';
  }

  private async showOutput(sessionId: string, id: string, command: string): Promise<void> {
    const name = command.replace(/[^\w.-]+/g, ' ').trim().slice(0, 40) || id;
    const uri = vscode.Uri.from({ scheme: OUTPUT_SCHEME, path: `/${id} ${name}.log`, query: `${sessionId}/${id}` });
    const key = uri.toString();
    if (!this.followers.has(key)) {
      this.followers.set(key, { sessionId, id, follower: new OutputFollower(command) });
      await this.read(key);
    }
    const document = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(document, { preview: true });
    atTheEnd(editor);
  }

  /** New output came: read it soon (at most every FOLLOW_MS while it flows). */
  private follow(key: string): void {
    const open = this.followers.get(key);
    if (open && !open.again) {
      open.again = setTimeout(() => {
        open.again = undefined;
        void this.read(key);
      }, FOLLOW_MS);
    }
  }

  private async read(key: string): Promise<void> {
    const open = this.followers.get(key);
    if (!open) {
      return;
    }
    const previous = open.reading ?? Promise.resolve();
    open.reading = previous.then(async () => {
      try {
        const result = await this.server.backgroundOutput({ sessionId: open.sessionId, id: open.id, offset: open.follower.offset });
        open.follower.accept(result);
      } catch (error) {
        open.follower.accept({ text: `\n[could not read more: ${message(error)}]\n`, offset: open.follower.offset, dropped: 0, state: 'stopped', exitCode: null });
      }
      const uri = vscode.Uri.parse(key);
      this.changed.fire(uri);
      for (const editor of vscode.window.visibleTextEditors) {
        if (editor.document.uri.toString() === key) {
          setTimeout(() => atTheEnd(editor), 50); // after the editor has the new text
        }
      }
    });
    await open.reading;
  }

  // -- The status bar and its menu -----------------------------------------------------

  private render(): void {
    this.conversation.showRunning(shownRows(this.list.of(this.state.sessionId)));
    const status = runningStatus(this.list.running());
    if (!status) {
      this.item.hide();
      return;
    }
    this.item.text = status.text;
    this.item.tooltip = status.tooltip;
    this.item.accessibilityInformation = { label: status.label };
    this.item.show();
  }

  /** The status bar's menu (the showRunning command): open a port, show an output, stop one. */
  async choose(): Promise<void> {
    const items = runningChoices(this.list.running());
    if (!items.length) {
      void vscode.window.showInformationMessage('Workspace Agent: no background command is running.');
      return;
    }
    const picked = await vscode.window.showQuickPick(items, { placeHolder: 'Background commands: open a port, show an output, or stop one' });
    if (!picked) {
      return;
    }
    const choice = picked.choice;
    switch (choice.action) {
      case 'open':
        await openInBrowser(choice.url);
        return;
      case 'output':
        await this.showOutput(choice.row.sessionId, choice.row.id, choice.row.command);
        return;
      case 'stop':
        await this.stop(choice.row);
        return;
      case 'stopAll':
        await this.stopAll();
        return;
    }
  }

  private async stop(row: RunningRow): Promise<void> {
    try {
      this.list.replace(row.sessionId, (await this.server.backgroundStop({ sessionId: row.sessionId, id: row.id })).commands);
      this.render();
    } catch (error) {
      void vscode.window.showErrorMessage(`Workspace Agent: could not stop ${row.id}: ${message(error)}`);
    }
  }

  /** Every running background command (of each session that has one): Stop All. */
  async stopAll(): Promise<void> {
    const sessions = new Set(this.list.running().map((row) => row.sessionId));
    for (const sessionId of sessions) {
      try {
        this.list.replace(sessionId, (await this.server.backgroundStop({ sessionId })).commands);
      } catch (error) {
        void vscode.window.showErrorMessage(`Workspace Agent: could not stop the background commands: ${message(error)}`);
      }
    }
    this.render();
  }

  dispose(): void {
    for (const open of this.followers.values()) {
      clearTimeout(open.again);
    }
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}

/** A port's URL in the user's browser, through the editor's own forwarding (Remote-SSH, code-server). */
async function openInBrowser(url: string): Promise<void> {
  const external = await vscode.env.asExternalUri(vscode.Uri.parse(url));
  await vscode.env.openExternal(external);
}

function atTheEnd(editor: vscode.TextEditor): void {
  const last = editor.document.lineCount - 1;
  editor.revealRange(new vscode.Range(last, 0, last, 0), vscode.TextEditorRevealType.Default);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
