/**
 * The Conversation view (a webview view in the Workspace Agent container, and the same
 * page in an editor tab on request): the current session's conversation as cards, and an
 * input box to talk to the agent.
 *
 * The host keeps the conversation (core/conversationStore.ts) and posts its cards; the
 * page (src/webview/conversation.ts) only draws them and reports clicks. That way the
 * conversation outlives a hidden view, and a reload, a resume or a server restart reads it
 * back from the server (workspaceAgent/history, newest page first, "Load earlier" for
 * older ones). The page runs under a strict CSP: no inline script, its one script by
 * nonce, resources only from dist/ and media/.
 */
import * as os from 'os';
import * as nodePath from 'path';
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { type Card, type ConversationEvent, type ImageRef, imageKey, planLookup } from './core/conversation';
import { type FromWebview, type PlanCardAction, type QueuedRow, type ToWebview, ConversationStore, isFromWebview } from './core/conversationStore';
import type { PlanCard, PlanCardEdit } from './core/planDraft';
import { type FileNode, changeTree } from './core/changeRows';
import type { ChangesTracker } from './core/changes';
import { attachmentWords } from './core/editorContext';
import { isSafeLink } from './core/markdown';
import type { RunningRow } from './core/running';
import { type MeterView, meterView } from './core/contextMeter';
import type { AgentState } from './core/state';
import { CONVERSATION_VIEW_ID } from './commands';
import { completionItems } from './completion';
import { activeEditorContext } from './editorContext';
import { type AgentEvent, type ApprovalParams, type ApprovalStatus, type PromptImage, type RunMode, SETTINGS_SECTION } from './protocol';
import { type SandboxSetting, blockLines, withHost } from './core/sandboxCard';
import { readAttachActiveEditor, readConversationOpenIn } from './settings';
import type { Fix } from './core/errorFixes';

const PANEL_TYPE = 'workspaceAgent.conversationPanel';
/** package.json's view containers, as VS Code names them: the activity bar's and the Secondary Side Bar's. */
const SIDE_BAR_CONTAINER_ID = 'workbench.view.extension.workspaceAgent';
const SECONDARY_CONTAINER_ID = 'workbench.view.extension.workspaceAgentSecondary';
/** Entries per history page: the first render of a long session draws only these. */
export const HISTORY_PAGE = 200;

/** Read-only documents the view opens: a command's full output, a proposed change. */
export class MemoryDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(readonly scheme: string) {}

  put(path: string, query: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: this.scheme, path: `/${path.replace(/^\/+/, '')}`, query });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** What the view asks of the rest of the extension (runs.ts, approvals.ts, planView.ts, versions.ts). */
export interface ConversationActions {
  send(text: string, images: PromptImage[]): void;
  cancel(): void;
  /** A card's fix button (Retry, Set API Key, Continue…); `prompt` is its run's. */
  fix(fix: Fix, prompt?: string): void;
  unqueue(id: number): void;
  runQueued(id: number): void;
  answer(toolUseId: string, decision: ApprovalParams['options'][number], reason?: string): void;
  showProposed(toolUseId: string): Promise<void>;
  revealStep(todoId: string): Promise<void>;
  /** A revert row's Undo: the same undo as the Plan view's Undo Revert. */
  undoRevert(undoId: string): Promise<void>;
  openChange(node: FileNode): Promise<void>;
  /** The Plan / Act switch of the input box. */
  setMode(mode: RunMode): void;
  /** A plan card's button. */
  plan(action: PlanCardAction): void;
  /** An edit on the plan card, applied to the draft the Plan view shows too. */
  planEdit(edit: PlanCardEdit): void;
  /** The run state the input box shows. */
  runState(): { running: boolean; queued: QueuedRow[]; history: string[]; mode: RunMode };
  /** The Running section's buttons (running.ts): open a port, show an output, stop one or all. */
  background?(request: Extract<FromWebview, { type: 'background' }>): Promise<void>;
}

export class ConversationView implements vscode.WebviewViewProvider, vscode.Disposable {
  private readonly store: ConversationStore;
  private view: vscode.WebviewView | undefined;
  private panel: vscode.WebviewPanel | undefined;
  private generation = 0;
  private readonly outputs = new MemoryDocuments('workspace-agent-output');
  private readonly disposables: vscode.Disposable[] = [];
  private contextTimer: ReturnType<typeof setTimeout> | undefined;
  private planCard: PlanCard | null = null;
  private runningRows: RunningRow[] = [];
  private meter: MeterView | undefined;
  /** A card to scroll to once a page that was loading has its cards. */
  private pendingReveal: string | undefined;
  private readonly visibility = new vscode.EventEmitter<void>();
  /** The view or its editor tab was shown or hidden. */
  readonly onDidChangeVisibility = this.visibility.event;
  /** The images sent with the last task, for its runStart's card (until the history has them). */
  private sentImages: PromptImage[] | undefined;
  actions: ConversationActions | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly state: AgentState,
    private readonly server: AgentServer,
    private readonly changes: ChangesTracker,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.store = new ConversationStore((todoId) => planLookup(this.state.items)(todoId));
    this.disposables.push(
      vscode.window.registerWebviewViewProvider(CONVERSATION_VIEW_ID, this),
      vscode.workspace.registerTextDocumentContentProvider(this.outputs.scheme, this.outputs),
      this.outputs,
      this.visibility,
      state.onChange(() => this.sessionMaybeChanged()),
      state.onChange(() => this.meterChanged()),
      vscode.window.onDidChangeActiveTextEditor(() => this.contextChanged()),
      vscode.window.onDidChangeTextEditorSelection(() => this.contextChanged()),
    );
  }

  // -- Fed by the extension --------------------------------------------------------------

  /** A workspaceAgent/event of any session (only the current one's is shown). */
  accept(event: AgentEvent): void {
    if (event.sessionId !== this.store.sessionId) {
      if (event.sessionId !== this.state.sessionId) {
        return;
      }
      this.post(this.store.reset(event.sessionId)); // a run in a brand-new session
    }
    const sent = event.kind === 'runStart' && event.images?.length ? this.sentImages : undefined;
    if (event.kind === 'runStart') {
      this.sentImages = undefined;
    }
    this.post(this.store.accept(withoutSession(event), sent));
  }

  ask(params: ApprovalParams): void {
    if (params.sessionId !== this.store.sessionId) {
      this.post(this.store.reset(params.sessionId));
    }
    this.post(this.store.ask(params));
    void this.show(true);
  }

  answered(toolUseId: string, status: Exclude<ApprovalStatus, 'waiting'>, reason?: string): void {
    this.post(this.store.answered(toolUseId, status, reason));
  }

  /** The user can see the conversation: the view, or its editor tab, is visible. */
  get visible(): boolean {
    return this.view?.visible === true || this.panel?.visible === true;
  }

  /** The view itself is on screen (not its editor tab): its side bar is showing. */
  get viewVisible(): boolean {
    return this.view?.visible === true;
  }

  /** A run request that failed without an answer: a card with its fixes. */
  failure(text: string, fixes: Fix[], prompt?: string): void {
    this.post(this.store.failure(text, fixes, prompt));
  }

  /** The run state changed (started, ended, a task queued or taken off). */
  runChanged(): void {
    this.post(this.runMessage());
  }

  /** The session's background commands, as the Running section shows them (core/running.ts). */
  showRunning(rows: RunningRow[]): void {
    this.runningRows = rows;
    this.post({ type: 'running', rows });
  }

  /** The plan that waits for the user, as a card above the input box (null: none). */
  showPlan(card: PlanCard | undefined, focus?: string): void {
    this.planCard = card ?? null;
    this.post({ type: 'plan', plan: this.planCard, ...(focus ? { focus } : {}) });
  }

  /** Reads the current session's newest page again (the server started, a resume). */
  async reload(): Promise<void> {
    const sessionId = this.state.shownSessionId;
    const generation = ++this.generation;
    if (!sessionId) {
      this.post(this.store.reset(undefined));
      return;
    }
    try {
      const started = performance.now();
      const page = await this.server.history({ sessionId, limit: HISTORY_PAGE });
      if (generation === this.generation && this.state.shownSessionId === sessionId) {
        const fetched = performance.now();
        // A run of this session going on in this window is live; any other open run ended with its server.
        const live = this.state.running && this.state.sessionId === sessionId;
        const reset = this.store.reset(sessionId, page, !live);
        const timing = { requestMs: fetched - started, buildMs: performance.now() - fetched };
        this.log.info(
          `Conversation: ${page.entries.length} of ${page.total} entries read in ${timing.requestMs.toFixed(1)} ms, ` +
            `drawn as ${this.store.cards.length} cards after ${timing.buildMs.toFixed(1)} ms`,
        );
        this.post(reset.type === 'reset' ? { ...reset, timing } : reset);
      }
    } catch (error) {
      this.log.warn(`Could not read the conversation of session ${sessionId}: ${message(error)}`);
      if (generation === this.generation) {
        this.post(this.store.reset(sessionId));
      }
    }
  }

  /**
   * Shows the view (the container opens on it), or the editor tab when the user chose that
   * (conversation.openIn); `preserveFocus` keeps the user's focus where it is.
   */
  async show(preserveFocus = false): Promise<void> {
    if (readConversationOpenIn() === 'editor') {
      this.openInEditor(preserveFocus);
      return;
    }
    if (this.view) {
      this.view.show(preserveFocus);
      return;
    }
    await vscode.commands.executeCommand(`${CONVERSATION_VIEW_ID}.focus`);
  }

  /** The Plan view's link: the first card of that step, scrolled to and focused. */
  async showStep(todoId: string): Promise<void> {
    // A hidden view's page is made again when shown (the tab's, when it opens in a tab).
    const drawn = readConversationOpenIn() === 'editor' ? this.panel?.visible === true : this.view?.visible === true;
    await this.show();
    const cardId = this.store.firstCardOfStep(todoId);
    if (cardId && drawn) {
      this.post({ type: 'reveal', cardId });
    } else if (cardId) {
      this.pendingReveal = cardId; // the page being made gets it with its cards ('ready')
    } else {
      void vscode.window.showInformationMessage(`Workspace Agent: no message of step ${todoId} in the conversation yet.`);
    }
  }

  /** Puts text into the input box (the first Run Task after an error: "Retry"). */
  prefill(text: string): void {
    this.post({ type: 'prefill', text });
  }

  /** The same page in an editor tab. */
  openInEditor(preserveFocus = false): void {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      return;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_TYPE, 'Agent Conversation', { viewColumn: vscode.ViewColumn.Active, preserveFocus }, this.webviewOptions());
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'agent.svg');
    this.panel = panel;
    this.attach(panel.webview, 'panel');
    panel.onDidChangeViewState(() => this.visibility.fire());
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.visibility.fire();
    });
  }

  /**
   * Moves the view to the Secondary Side Bar (the container the extension contributes
   * there), or back to its own side bar. `vscode.moveViews` is VS Code's command for it; an
   * older VS Code without it offers its own "Move View" picker on the focused view instead.
   */
  async moveTo(where: 'secondarySideBar' | 'sideBar'): Promise<void> {
    const destinationId = where === 'secondarySideBar' ? SECONDARY_CONTAINER_ID : SIDE_BAR_CONTAINER_ID;
    try {
      await vscode.commands.executeCommand('vscode.moveViews', { viewIds: [CONVERSATION_VIEW_ID], destinationId });
    } catch (error) {
      this.log.info(`vscode.moveViews is not there (${message(error)}): VS Code's Move View picker instead.`);
      await vscode.commands.executeCommand(`${CONVERSATION_VIEW_ID}.focus`);
      await vscode.commands.executeCommand('workbench.action.moveFocusedView');
    }
  }

  // -- vscode.WebviewViewProvider ----------------------------------------------------------

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.description = this.meter?.header;
    // Like the Plan view: the server starts when the view first shows.
    void this.server.ensureStarted();
    view.webview.options = this.webviewOptions();
    this.attach(view.webview, 'view');
    view.onDidChangeVisibility(() => this.visibility.fire());
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
        this.visibility.fire();
      }
    });
    this.visibility.fire();
  }

  dispose(): void {
    clearTimeout(this.contextTimer);
    this.panel?.dispose();
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  // -- The page ----------------------------------------------------------------------------

  private webviewOptions(): vscode.WebviewOptions & vscode.WebviewPanelOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
  }

  private attach(webview: vscode.Webview, host: 'view' | 'panel'): void {
    webview.html = pageHtml(webview, this.extensionUri, host);
    webview.onDidReceiveMessage((raw: unknown) => {
      if (!isFromWebview(raw)) {
        this.log.warn('The Conversation view sent a message it may not send; ignored.');
        return;
      }
      void this.handle(raw, webview).catch((error: unknown) => {
        void vscode.window.showErrorMessage(`Workspace Agent: ${message(error)}`);
      });
    });
  }

  private async handle(request: FromWebview, webview: vscode.Webview): Promise<void> {
    const actions = this.actions;
    switch (request.type) {
      case 'ready':
        await webview.postMessage({
          type: 'reset',
          cards: this.store.shownCards(),
          earlier: this.store.before !== null,
          session: this.store.sessionId !== undefined,
          ...(this.store.sessionId !== undefined ? { sessionId: this.store.sessionId } : {}),
        } satisfies ToWebview);
        await webview.postMessage(this.runMessage());
        await webview.postMessage(this.contextMessage());
        await webview.postMessage({ type: 'meter', meter: this.meter ?? null } satisfies ToWebview);
        await webview.postMessage({ type: 'plan', plan: this.planCard } satisfies ToWebview);
        await webview.postMessage({ type: 'running', rows: this.runningRows } satisfies ToWebview);
        if (this.pendingReveal) {
          await webview.postMessage({ type: 'reveal', cardId: this.pendingReveal } satisfies ToWebview);
          this.pendingReveal = undefined;
        }
        return;
      case 'send':
        this.sentImages = request.images?.length ? request.images : undefined;
        actions?.send(request.text, request.images ?? []);
        return;
      case 'image': {
        const key = imageKey(request.ref);
        try {
          const image = await this.image(request.ref);
          await webview.postMessage({ type: 'image', key, url: `data:${image.mediaType};base64,${image.data}` } satisfies ToWebview);
        } catch (error) {
          this.log.warn(`Conversation: image ${key} of session ${this.store.sessionId ?? '-'}: ${message(error)}`);
          await webview.postMessage({ type: 'image', key, problem: message(error) } satisfies ToWebview);
        }
        return;
      }
      case 'openImage':
        await this.openImage(request.ref);
        return;
      case 'cancel':
        actions?.cancel();
        return;
      case 'fix': {
        const found = this.store.fixOf(request.cardId, request.action);
        if (found?.fix.action === 'setApiKey') {
          this.store.carryRetry(request.cardId); // the server restarts with the key: keep the Retry
        }
        if (found) {
          actions?.fix(found.fix, found.prompt);
        }
        return;
      }
      case 'unqueue':
        actions?.unqueue(request.id);
        return;
      case 'runQueued':
        actions?.runQueued(request.id);
        return;
      case 'loadEarlier':
        await this.loadEarlier();
        return;
      case 'answer':
        actions?.answer(request.toolUseId, request.decision, request.reason);
        return;
      case 'showProposed':
        await actions?.showProposed(request.toolUseId);
        return;
      case 'showStep':
        await actions?.revealStep(request.todoId);
        return;
      case 'undoRevert':
        await actions?.undoRevert(request.undoId);
        return;
      case 'openOutput':
        await this.openOutput(request.toolUseId);
        return;
      case 'allowSandbox':
        await this.allowSandbox(request.toolUseId, request.setting, request.value);
        return;
      case 'openDiff':
        await this.openDiff(request.toolUseId);
        return;
      case 'openFile':
        await this.openFile(request.path);
        return;
      case 'complete': {
        const { items, problem } = await completionItems(request.kind, this.server);
        await webview.postMessage({ type: 'completions', requestId: request.requestId, items, ...(problem ? { problem } : {}) } satisfies ToWebview);
        return;
      }
      case 'setMode':
        actions?.setMode(request.mode);
        return;
      case 'plan':
        actions?.plan(request.action);
        return;
      case 'planEdit':
        actions?.planEdit(request.edit);
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(request.text);
        return;
      case 'background':
        await actions?.background?.(request);
        return;
      case 'openLink':
        if (isSafeLink(request.href)) {
          await vscode.env.openExternal(vscode.Uri.parse(request.href, true));
        }
        return;
    }
  }

  /** A card's image: a tool result's from the server, a prompt's the one this window sent, else the history's. */
  private async image(ref: ImageRef): Promise<PromptImage> {
    const sessionId = this.store.sessionId;
    if (ref.toolUseId !== undefined) {
      if (!sessionId) {
        throw new Error('no session is shown: reopen the session to read its images');
      }
      return this.server.toolImage({ sessionId, toolUseId: ref.toolUseId, index: ref.index });
    }
    const sent = this.store.sentImage(ref);
    if (sent) {
      return sent;
    }
    if (!sessionId || ref.seq === undefined) {
      throw new Error('this image is no longer at hand: reopen the session to read it from its history');
    }
    return this.server.historyImage({ sessionId, seq: ref.seq, index: ref.index });
  }

  /** The image in an editor tab (VS Code's image preview), from a file in the OS's temp folder. */
  private async openImage(ref: ImageRef): Promise<void> {
    let image: PromptImage;
    try {
      image = await this.image(ref);
    } catch (error) {
      const retry = 'Reopen Session';
      const choice = await vscode.window.showErrorMessage(`Workspace Agent: cannot open the image (${message(error)}).`, retry);
      if (choice === retry) {
        await this.reload();
      }
      return;
    }
    const extension = IMAGE_EXTENSIONS[image.mediaType] ?? 'img';
    const name = `${this.store.sessionId ?? 'session'}-${imageKey(ref).replace(/[^\w-]+/g, '-')}.${extension}`;
    const folder = vscode.Uri.file(nodePath.join(os.tmpdir(), 'workspace-agent-images'));
    const file = vscode.Uri.joinPath(folder, name);
    await vscode.workspace.fs.createDirectory(folder);
    await vscode.workspace.fs.writeFile(file, Buffer.from(image.data, 'base64'));
    await vscode.commands.executeCommand('vscode.open', file, { preview: true });
  }

  private async loadEarlier(): Promise<void> {
    const sessionId = this.store.sessionId;
    const before = this.store.before;
    if (!sessionId || before === null) {
      return;
    }
    const page = await this.server.history({ sessionId, before, limit: HISTORY_PAGE });
    const update = this.store.prepend(page);
    if (update) {
      this.post(update);
    }
  }

  private async openOutput(toolUseId: string): Promise<void> {
    const card = this.card(toolUseId);
    if (card?.kind === 'command') {
      await this.openToolOutput(toolUseId, card.command);
    } else if (card?.kind === 'tool') {
      await this.openToolOutput(toolUseId, `${card.name} ${card.summary}`.trim());
    }
  }

  /** A blocked command's fix, asked once more in words, written to the user's settings
   * (a workspace may not open the sandbox: these settings are user-only). */
  private async allowSandbox(toolUseId: string, setting: SandboxSetting, value?: string): Promise<void> {
    const card = this.card(toolUseId);
    const fix = card?.kind === 'command' ? blockLines(card.blocked).find((line) => line.fix?.setting === setting && line.fix.value === value)?.fix : undefined;
    if (!fix) {
      return;
    }
    const choice = await vscode.window.showWarningMessage(fix.confirm, { modal: true }, fix.label.replace('…', ''));
    if (!choice) {
      return;
    }
    const key = setting;
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    try {
      if ((setting === 'sandbox.allowedDomains' || setting === 'sandbox.writablePaths') && fix.value) {
        const kept = config.inspect<string[]>(key)?.globalValue ?? [];
        await config.update(key, withHost(kept, fix.value), vscode.ConfigurationTarget.Global);
      } else {
        await config.update(key, true, vscode.ConfigurationTarget.Global);
      }
      void vscode.window.showInformationMessage(`${SETTINGS_SECTION}.${setting} is set: ask the agent to run the command again.`);
    } catch (error) {
      const open = 'Open Settings';
      const picked = await vscode.window.showErrorMessage(`Could not change ${SETTINGS_SECTION}.${setting}: ${String(error)}. Change it in your user settings.`, open);
      if (picked === open) {
        await vscode.commands.executeCommand('workbench.action.openSettings', `${SETTINGS_SECTION}.${setting}`);
      }
    }
  }

  /** A command's whole output, read-only in an editor (a card's link, a Plan view command row). */
  async openToolOutput(toolUseId: string, command: string): Promise<void> {
    const sessionId = this.state.shownSessionId;
    if (!sessionId) {
      return;
    }
    const text = await this.server.toolOutput(sessionId, toolUseId);
    const name = command.replace(/[^\w.-]+/g, ' ').trim().slice(0, 40) || 'command';
    const uri = this.outputs.put(`${name}.log`, toolUseId, `$ ${command}\n${text}`);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { preview: true });
  }

  /** An edit card's diff: the file's change under that plan step (checkpoints), else the file. */
  private async openDiff(toolUseId: string): Promise<void> {
    const card = this.card(toolUseId);
    if (card?.kind !== 'edit') {
      return;
    }
    const path = normalize(card.files[0]?.path ?? card.path);
    const todoId = card.step?.todoId ?? null;
    const node = fileNodes(changeTree(this.state.items, this.state.sessionId, this.changes.changes)).find(
      (file) => file.todoId === todoId && normalize(file.path) === path,
    );
    if (node && this.actions) {
      await this.actions.openChange(node);
    } else {
      await this.openFile(path);
    }
  }

  private async openFile(path: string): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      return;
    }
    const uri = path.startsWith('/') ? vscode.Uri.file(path) : vscode.Uri.joinPath(folder.uri, normalize(path));
    await vscode.window.showTextDocument(uri, { preview: true });
  }

  private card(toolUseId: string): Card | undefined {
    return this.store.cards.find((card) => card.id === toolUseId);
  }

  /** The context meter changed: the view's header (its description) and the page's meter. */
  private meterChanged(): void {
    const meter = meterView(this.state.context);
    if (JSON.stringify(meter) === JSON.stringify(this.meter)) {
      return;
    }
    this.meter = meter;
    if (this.view) {
      this.view.description = meter?.header; // short: the header is narrow in a side bar
    }
    this.post({ type: 'meter', meter: meter ?? null });
  }

  private sessionMaybeChanged(): void {
    if (this.state.shownSessionId === this.store.sessionId) {
      this.runChanged();
      return;
    }
    if (this.state.running) {
      // A run in a new session: nothing to read back yet, its events follow.
      this.generation++;
      this.post(this.store.reset(this.state.sessionId));
    } else {
      void this.reload();
    }
    this.runChanged();
  }

  private contextChanged(): void {
    clearTimeout(this.contextTimer);
    this.contextTimer = setTimeout(() => this.post(this.contextMessage()), 250);
  }

  private contextMessage(): ToWebview {
    const attached = readAttachActiveEditor() ? attachmentWords(activeEditorContext()) : undefined;
    return { type: 'context', attached: attached ?? null };
  }

  private runMessage(): ToWebview {
    const run = this.actions?.runState() ?? { running: this.state.running, queued: [], history: [], mode: 'act' as const };
    const maxTurns = vscode.workspace.getConfiguration(SETTINGS_SECTION).get<unknown>('maxTurns');
    return { type: 'run', ...run, waiting: this.state.waiting.length, ...(typeof maxTurns === 'number' ? { maxTurns } : {}) };
  }

  private post(message: ToWebview): void {
    for (const webview of [this.view?.webview, this.panel?.webview]) {
      void webview?.postMessage(message);
    }
  }
}

const IMAGE_EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

function withoutSession(event: AgentEvent): ConversationEvent {
  const copy: Partial<AgentEvent> = { ...event };
  delete copy.sessionId;
  return copy as ConversationEvent;
}

function fileNodes(nodes: ReturnType<typeof changeTree>): FileNode[] {
  return nodes.flatMap((step) => step.children.filter((child): child is FileNode => child.kind === 'file'));
}

function normalize(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '');
}

function nonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let value = '';
  for (let i = 0; i < 32; i++) {
    value += chars.charAt(Math.floor(Math.random() * chars.length));
  }
  return value;
}

/**
 * `host`: the side view's page leaves the context meter to the view's header (its
 * description); an editor tab has no such header, so its page shows the meter itself.
 */
function pageHtml(webview: vscode.Webview, extensionUri: vscode.Uri, host: 'view' | 'panel'): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'conversation.css'));
  const key = nonce();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`, // data: the thumbnails of pasted images
    `script-src 'nonce-${key}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>Agent Conversation</title>
</head>
<body data-host="${host}">
<main>
  <div id="meter" class="meter" hidden></div>
  <div id="log" aria-label="Conversation with the agent">
    <button id="earlier" class="secondary" type="button" hidden>Load earlier</button>
    <div id="cards" role="log" aria-live="polite" aria-relevant="additions text"></div>
    <div id="empty"></div>
  </div>
  <section id="running" class="running" hidden aria-labelledby="running-title"></section>
  <section id="plan" class="plan-card" hidden aria-labelledby="plan-title"></section>
  <div id="composer" role="form" aria-label="Send a task to the agent">
    <ul id="queued" hidden aria-label="Queued tasks"></ul>
    <div id="chip" class="chip" hidden></div>
    <ul id="images" hidden aria-label="Images to send with the task"></ul>
    <ul id="mentions" hidden aria-label="Mentioned in the task: the agent gets their content"></ul>
    <ul id="completions" role="listbox" hidden aria-label="Completions"></ul>
    <textarea id="input" rows="3" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="completions" aria-label="Task for the agent. Enter sends, Shift+Enter adds a line, Up and Down go through earlier tasks, @ mentions a file, / at the start runs a saved prompt." placeholder="Ask the agent… (Enter sends, Shift+Enter adds a line; paste or drop images)"></textarea>
    <div class="actions">
      <div id="mode" class="mode" role="group" aria-label="Mode of the next task">
        <button id="mode-act" type="button" aria-pressed="true" title="Act: the agent works on the task right away">Act</button>
        <button id="mode-plan" type="button" aria-pressed="false" title="Plan: the agent looks without changing anything and proposes a plan for you to shape and run">Plan</button>
      </div>
      <span id="status" role="status" aria-live="polite"></span>
      <span class="run-buttons">
        <button id="cancel" class="secondary" type="button" hidden aria-label="Cancel the run" title="Cancel the run (Esc in the empty input box)">Cancel</button>
        <button id="send" class="primary" type="button">Send</button>
      </span>
    </div>
  </div>
</main>
<script nonce="${key}" src="${script.toString()}"></script>
</body>
</html>`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
