/**
 * One run from the user's side: ask for the task, show a cancellable progress
 * notification while the server works, then say how it ended. A task given while a run
 * goes (the Conversation view's input box, Run Task…) is queued and starts when the run
 * ends; the queue is shown in the Conversation view, where a queued task can be removed.
 * The queue outlives a window reload, held until the user runs its tasks (core/taskQueue.ts).
 *
 * A task sent from the Conversation view gets no toasts while the view is visible
 * (core/toasts.ts): its cards show the progress, the error card its fixes, Escape in its
 * input cancels. A failure without a result (the server went away) gets a card there too.
 *
 * Cancelling (the notification's Cancel button, Escape in the view, or the Cancel Run
 * command) cancels the request's token; vscode-languageclient sends `$/cancelRequest`, the server kills what the
 * run was doing and still answers with a RunResult whose stopReason is "cancelled".
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { COMMAND_IDS, PLAN_MODE_CONTEXT, RUNNING_CONTEXT } from './commands';
import { ProgressTracker } from './core/progress';
import type { AgentState } from './core/state';
import { WAITING_WORDS, resultMessage, shorten } from './core/status';
import { attachmentWords, editorContext } from './core/editorContext';
import type { CodeActionRun } from './core/codeActions';
import { activeEditorContext, snapshot } from './editorContext';
import type { ApprovePlanParams, PromptImage, RunContext, RunMode, RunParams, RunResult } from './protocol';
import { runMode } from './core/planDraft';
import { readAttachActiveEditor, readContextMaxChars } from './settings';
import { promptHistory } from './core/promptHistory';
import { CONTINUE_PROMPT, type Fix, requestFailureFixes, runResultFixes } from './core/errorFixes';
import { type RunOrigin, showsToasts } from './core/toasts';
import type { TodoItem } from './protocol';
import { runTaskSessionWords } from './core/sessions';
import type { SessionKeeper } from './sessions';
import type { Transcript } from './transcript';
import { type QueuedTask, TaskQueue } from './core/taskQueue';

const SHOW_TRANSCRIPT = 'Show Transcript';
const HISTORY_KEY = 'workspaceAgent.promptHistory';
const QUEUE_KEY = 'workspaceAgent.queuedTasks';
const MODE_KEY = 'workspaceAgent.runMode';

/** What runs.ts needs of the Conversation view: whether the user sees it, and a card for a failure. */
export interface RunView {
  readonly visible: boolean;
  readonly onDidChangeVisibility: vscode.Event<void>;
  failure(text: string, fixes: Fix[], prompt?: string): void;
}

/**
 * The run's progress notification, which can go and come back (the Conversation view
 * shown, then hidden): it always shows the run's latest state.
 */
class ProgressToast implements vscode.Disposable {
  private current: { progress: vscode.Progress<{ message?: string; increment?: number }>; tracker: ProgressTracker; close: () => void } | undefined;
  private opening = false;
  private message = '';
  private items: readonly TodoItem[] = [];

  constructor(private readonly onCancel: () => void) {}

  /** The state to show: a message, or the plan's progress when the run has plan items. */
  set(message: string, items: readonly TodoItem[] = []): void {
    this.message = message;
    this.items = items;
    this.report();
  }

  show(): void {
    if (this.current || this.opening) {
      return;
    }
    this.opening = true;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Workspace Agent', cancellable: true },
      (progress, token) =>
        new Promise<void>((resolve) => {
          this.opening = false;
          const cancelled = token.onCancellationRequested(() => this.onCancel());
          this.current = {
            progress,
            tracker: new ProgressTracker(),
            close: () => {
              cancelled.dispose();
              resolve();
            },
          };
          this.report();
        }),
    );
  }

  hide(): void {
    const current = this.current;
    this.current = undefined;
    current?.close();
  }

  dispose(): void {
    this.hide();
    this.opening = false;
  }

  private report(): void {
    const current = this.current;
    if (current) {
      current.progress.report(this.items.length ? current.tracker.update(this.items) : { message: this.message });
    }
  }
}
export class RunController {
  private cancelSource: vscode.CancellationTokenSource | undefined;
  private readonly queue: TaskQueue;
  /** Queued tasks sent from the Conversation view (by id): they run as the view's. */
  private readonly fromView = new Set<number>();
  /** The last task run (for a card's Retry: the same task with the same context). */
  private lastTask: { prompt: string; context?: RunContext } | undefined;
  private view: RunView | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** The run started or ended, the queue or the mode changed. */
  readonly onDidChange = this.changed.event;
  private readonly results = new vscode.EventEmitter<RunResult>();
  /** A run answered (planEditor.ts makes a draft of a `planReady` plan). */
  readonly onDidFinish = this.results.event;

  constructor(
    private readonly state: AgentState,
    private readonly server: AgentServer,
    private readonly transcript: Transcript,
    private readonly sessions: SessionKeeper,
    private readonly memento: vscode.Memento,
    private readonly picks?: { runFields(): Pick<RunParams, 'model' | 'thinking'> },
  ) {
    this.queue = TaskQueue.restore(memento.get<unknown>(QUEUE_KEY));
    if (this.queue.items.length) {
      this.transcript.note(
        `${this.queue.items.length} queued task(s) kept from before the window reloaded: ` +
          'run or remove them in the Conversation view.',
      );
    }
    void vscode.commands.executeCommand('setContext', PLAN_MODE_CONTEXT, this.mode === 'plan');
  }

  /** The Conversation view, once it exists (extension.ts). */
  attachView(view: RunView): void {
    this.view = view;
  }

  /** A fix button on a Conversation card: `prompt` is its run's, for Retry. */
  async applyFix(fix: Fix, prompt?: string): Promise<void> {
    switch (fix.action) {
      case 'retry': {
        // The same task with the same context when it is the last one run here, else the card's words.
        const last = this.lastTask;
        if (last && (!prompt || last.prompt === prompt)) {
          this.submit(last.prompt, last.context, 'view');
        } else if (prompt) {
          this.submit(prompt, undefined, 'view');
        }
        return;
      }
      case 'continue':
        this.submit(CONTINUE_PROMPT, undefined, 'view');
        return;
      default:
        await this.doFix(fix, '', undefined);
    }
  }

  /**
   * Plan or Act, as the user last picked it in this workspace: a task in plan mode is
   * explored and planned, nothing changed, until the user runs its plan.
   */
  get mode(): RunMode {
    return runMode(this.memento.get<unknown>(MODE_KEY));
  }

  async setMode(mode: RunMode): Promise<void> {
    if (mode === this.mode) {
      return;
    }
    await this.memento.update(MODE_KEY, mode);
    void vscode.commands.executeCommand('setContext', PLAN_MODE_CONTEXT, mode === 'plan');
    this.transcript.note(mode === 'plan' ? 'Plan mode: the next task is planned first, nothing is changed.' : 'Act mode: the next task runs right away.');
    this.changed.fire();
  }

  /** The tasks queued behind the current run, oldest first (held ones included). */
  get queued(): readonly QueuedTask[] {
    return this.queue.items;
  }

  /** What the user sent before, oldest first (the input box's Up/Down). */
  get history(): string[] {
    const saved = this.memento.get<unknown>(HISTORY_KEY);
    return Array.isArray(saved) ? saved.filter((entry): entry is string => typeof entry === 'string') : [];
  }

  /**
   * A task from the Conversation view's input box (or, `origin` elsewhere, a saved prompt
   * picked in the palette): run now, or queued behind the run.
   */
  send(text: string, images: PromptImage[] = [], origin: RunOrigin = 'view'): void {
    const prompt = text.trim();
    if (!prompt) {
      return;
    }
    const context = readAttachActiveEditor() ? activeEditorContext() : undefined;
    if (images.length) {
      // Not queued: a queued task is kept in the workspace's storage, images are too big for it.
      if (this.busy) {
        void vscode.window.showWarningMessage('Workspace Agent: a task with images can be sent once the current run ends.');
        return;
      }
      void this.memento.update(HISTORY_KEY, promptHistory(this.history, prompt));
      void this.run(prompt, context, images, origin);
      return;
    }
    this.submit(prompt, context, origin);
  }

  /** Takes a queued task off the queue. */
  unqueue(id: number): void {
    this.fromView.delete(id);
    if (this.queue.remove(id)) {
      this.queueChanged();
    }
  }

  /** Run, on a task kept from before a window reload: now, or in its turn behind the run. */
  runQueued(id: number): void {
    if (!this.queue.release(id)) {
      return;
    }
    this.fromView.add(id); // its Run is in the Conversation view
    if (this.busy) {
      this.queueChanged();
    } else {
      this.next(); // takes it off the queue (nothing else waits unheld while idle) and says so
    }
  }

  dispose(): void {
    this.changed.dispose();
    this.results.dispose();
  }

  /** Runs the task now, or queues it while a run goes. */
  private submit(prompt: string, context?: RunContext, origin: RunOrigin = 'elsewhere'): void {
    void this.memento.update(HISTORY_KEY, promptHistory(this.history, prompt));
    if (this.busy) {
      const task = this.queue.add(prompt, context);
      if (origin === 'view') {
        this.fromView.add(task.id);
      }
      this.transcript.note(`Queued: ${shorten(prompt, 80)}`);
      this.queueChanged();
      return;
    }
    void this.run(prompt, context, [], origin);
  }

  /** A run goes, or is being started (its session is being made). */
  private get busy(): boolean {
    return this.state.running || this.cancelSource !== undefined;
  }

  /** The next queued task that is not held, once nothing runs. */
  private next(): void {
    const task = this.queue.takeNext();
    if (task) {
      const origin: RunOrigin = this.fromView.delete(task.id) ? 'view' : 'elsewhere';
      this.queueChanged();
      void this.run(task.text, task.context, [], origin);
    }
  }

  /** Keeps the queue in the workspace's storage (a reload must not lose it) and says so. */
  private queueChanged(): void {
    void this.memento.update(QUEUE_KEY, this.queue.stored());
    this.changed.fire();
  }

  /**
   * Workspace Agent: Run Task…, with the active file and selection unless turned off. A
   * caller may suggest the task (`{prompt}`, e.g. the walkthrough's example): it is filled
   * in, and the user still confirms it.
   */
  async runTask(suggestion?: unknown): Promise<void> {
    void this.server.ensureStarted(); // while the user types: the SDK's import is then off the path
    const context = readAttachActiveEditor() ? activeEditorContext() : undefined;
    const attached = attachmentWords(context);
    const session = runTaskSessionWords({
      running: this.state.running,
      sessionId: this.state.sessionId,
      cleared: this.state.cleared,
      restored: this.sessions.restored,
    });
    const planning = this.mode === 'plan' ? ' Plan mode: the agent plans first and changes nothing until you run the plan.' : '';
    const prompt = await vscode.window.showInputBox({
      title: this.mode === 'plan' ? 'Workspace Agent: Run Task (Plan Mode)' : 'Workspace Agent: Run Task',
      prompt: `${attached ? `${session} Attached: ${attached}.` : session}${planning}`,
      placeHolder: 'e.g. Fix the failing test in tests/test_parser.py',
      value: suggestedPrompt(suggestion),
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? undefined : 'Describe the task in a few words.'),
    });
    if (prompt?.trim()) {
      this.submit(prompt.trim(), context);
    }
  }

  /** Workspace Agent: Ask About Selection… (the editor's context menu, Ctrl+Shift+Alt+Q) */
  async askAboutSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('Workspace Agent: open a file and select the code to ask about.');
      return;
    }
    const context = editorContext(snapshot(editor), readContextMaxChars());
    if (!context) {
      void vscode.window.showWarningMessage(
        'Workspace Agent: the agent works inside the workspace folder; this file is outside it.',
      );
      return;
    }
    await this.ask(context, 'Workspace Agent: Ask About Selection');
  }

  /** A server code action, pointed here by client.ts: Fix runs at once, Ask asks first. */
  async runCodeAction(run: CodeActionRun): Promise<void> {
    if (run.kind === 'ask' && run.context) {
      await this.ask(run.context, 'Workspace Agent: Ask About This', run.prompt);
      return;
    }
    this.submit(run.prompt, run.context);
  }

  /** The input box for a question about `context`, then the run. */
  private async ask(context: RunContext, title: string, suggestion?: string): Promise<void> {
    void this.server.ensureStarted(); // as in runTask: start while the question is typed
    const queued = this.state.running ? ' (queued: it starts when the current run ends)' : '';
    const prompt = await vscode.window.showInputBox({
      title,
      prompt: `About ${attachmentWords(context) ?? 'the active file'}: ask a question or say what to change.${queued}`,
      placeHolder: 'e.g. Why does this return None for an empty list?',
      value: suggestion,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? undefined : 'Ask a question or give an instruction.'),
    });
    if (prompt?.trim()) {
      this.submit(prompt.trim(), context);
    }
  }

  /** Workspace Agent: Cancel Run */
  cancelRun(): void {
    if (!this.cancelSource) {
      void vscode.window.showInformationMessage('Workspace Agent: no run is going.');
      return;
    }
    this.transcript.note('Cancelling the run…');
    this.cancelSource.cancel();
  }

  /** Workspace Agent: New Session */
  async newSession(): Promise<void> {
    if (await this.refuseWhileRunning('is working on a task. Cancel the run before starting a new session.')) {
      return;
    }
    this.state.clearSession();
    this.transcript.note('— New session —');
    void vscode.window.showInformationMessage('Workspace Agent: new session. The next task starts from a clean plan.');
  }

  /** Shows the polite refusal when a run is going; true when it refused. */
  async refuseWhileRunning(why: string): Promise<boolean> {
    if (!this.state.running) {
      return false;
    }
    const cancel = 'Cancel Run';
    const answer = await vscode.window.showInformationMessage(`Workspace Agent ${why}`, cancel, SHOW_TRANSCRIPT);
    if (answer === cancel) {
      this.cancelRun();
    } else if (answer === SHOW_TRANSCRIPT) {
      this.transcript.show();
    }
    return true;
  }

  private async run(prompt: string, context?: RunContext, images: PromptImage[] = [], origin: RunOrigin = 'elsewhere'): Promise<void> {
    // Taken at once, so a task given while the session is being created queues behind this one.
    const source = new vscode.CancellationTokenSource();
    this.cancelSource = source;
    this.lastTask = { prompt, ...(context ? { context } : {}) };
    let sessionId: string;
    try {
      await this.sessions.ready(); // a session being restored right now is the one to continue
      sessionId = this.state.sessionId ?? (await this.server.newSession());
    } catch (error) {
      this.cancelSource = undefined;
      source.dispose();
      this.startFailed(prompt, error, context, origin);
      return;
    }
    if (this.state.running || source.token.isCancellationRequested) {
      this.cancelSource = undefined;
      source.dispose();
      this.next();
      return;
    }
    const mode = this.mode;
    await this.execute(source, sessionId, prompt, (token) =>
      this.server.run({ prompt, sessionId, mode, ...(context ? { context } : {}), ...(images.length ? { images } : {}), ...this.picks?.runFields() }, token), context, undefined, origin);
  }

  /**
   * Run This Plan / Keep Planning: workspaceAgent/approvePlan starts a run of the session
   * (act mode for `run`, plan mode for `revise`) shown like any other. A refusal (nothing
   * ran: see docs/protocol.md) goes to `refused` with the server's words.
   */
  async approvePlan(params: ApprovePlanParams, refused: (text: string) => void): Promise<void> {
    if (this.busy) {
      refused(`session ${params.sessionId} has a run in progress: wait for it to end or cancel it, then approve the plan again`);
      return;
    }
    const source = new vscode.CancellationTokenSource();
    this.cancelSource = source;
    const label = params.action === 'run' ? 'Running the plan' : 'Revising the plan';
    await this.execute(source, params.sessionId, label, (token) => this.server.approvePlan({ ...params, ...this.picks?.runFields() }, token), undefined, refused);
  }

  /** One run, begun: progress, the state, the result's message (or `refused`'s, for a refusal). */
  private async execute(
    source: vscode.CancellationTokenSource,
    sessionId: string,
    prompt: string,
    send: (token: vscode.CancellationToken) => Promise<RunResult>,
    context?: RunContext,
    refused?: (text: string) => void,
    origin: RunOrigin = 'elsewhere',
  ): Promise<void> {
    this.state.startRun(sessionId, prompt);
    this.changed.fire();
    void vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, true);
    const toast = new ProgressToast(() => this.cancelRun());
    const toasts = (): boolean => showsToasts(origin, this.view?.visible ?? false);
    toast.set(shorten(prompt, 60));
    if (toasts()) {
      toast.show();
    }
    // The view shown or hidden during the run: the notification goes, or comes back.
    const visibility = this.view?.onDidChangeVisibility(() => (toasts() ? toast.show() : toast.hide()));
    const planChanged = this.state.onChange(() => {
      if (!this.state.running) {
        return;
      }
      if (this.state.waiting.length) {
        toast.set(WAITING_WORDS);
      } else if (this.state.preparing) {
        toast.set(this.state.preparing); // the checkpoint store's first scan: what the first change waits for
      } else {
        toast.set(shorten(prompt, 60), this.state.runItems);
      }
    });
    try {
      const result = await send(source.token);
      this.finished(result, prompt, context, toasts());
      this.results.fire(result);
    } catch (error) {
      if (refused) {
        this.state.failRun(message(error));
        refused(message(error));
      } else {
        this.failed(error, prompt, context, toasts());
      }
    } finally {
      planChanged.dispose();
      visibility?.dispose();
      toast.dispose();
      this.cancelSource = undefined;
      source.dispose();
      void vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, false);
      this.changed.fire();
      this.next();
    }
  }

  /** `toast`: the end is told in a toast too (the user is not at the Conversation view). */
  private finished(result: RunResult, prompt: string, context: RunContext | undefined, toast: boolean): void {
    // The plan an earlier run left, untouched by this one: not this run's progress.
    const planOfThisRun = this.state.runItems.length > 0 || result.todos.length === 0 || !this.state.items.length;
    const cleared = result.sessionId !== this.state.sessionId; // `/clear`: the server started a new session
    this.state.finishRun(result);
    if (cleared) {
      this.state.clearSession();
      this.transcript.note('— New session —');
    }
    if (!toast) {
      return; // the Conversation view's cards say it, the error card with its fixes
    }
    const { severity, text } = resultMessage(result, planOfThisRun);
    const show =
      severity === 'error'
        ? vscode.window.showErrorMessage
        : severity === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    this.offerFixes(show, text, runResultFixes(result), prompt, context);
  }

  private failed(error: unknown, prompt: string, context: RunContext | undefined, toast: boolean): void {
    const text = message(error);
    this.state.failRun(text);
    this.transcript.note(`The run failed: ${text}`);
    this.view?.failure(`The run failed: ${text}`, requestFailureFixes(text), prompt);
    if (toast) {
      this.offerFixes(vscode.window.showErrorMessage, `Workspace Agent: the run failed: ${text}`, requestFailureFixes(text), prompt, context);
    }
  }

  /** The run could not start (no server, no session): nothing ran, the task is kept for Retry. */
  private startFailed(prompt: string, error: unknown, context: RunContext | undefined, origin: RunOrigin): void {
    const text = message(error);
    this.view?.failure(`Could not start the run: ${text}`, requestFailureFixes(text), prompt);
    if (!showsToasts(origin, this.view?.visible ?? false)) {
      return;
    }
    this.offerFixes(
      vscode.window.showErrorMessage,
      `Workspace Agent: could not start the run: ${text}`,
      requestFailureFixes(text),
      prompt,
      context,
    );
  }

  /** Shows the message with its fixes as buttons, and does the one chosen. */
  private offerFixes(
    show: (text: string, ...items: string[]) => Thenable<string | undefined>,
    text: string,
    fixes: Fix[],
    prompt: string,
    context?: RunContext,
  ): void {
    void show(text, ...fixes.map((fix) => fix.label)).then(async (answer) => {
      const fix = fixes.find((candidate) => candidate.label === answer);
      if (fix) {
        await this.doFix(fix, prompt, context);
      }
    });
  }

  /** Does what a fix button says (a toast's or a card's). */
  private async doFix(fix: Fix, prompt: string, context?: RunContext): Promise<void> {
    switch (fix.action) {
      case 'continue':
        this.submit(CONTINUE_PROMPT, undefined, 'elsewhere');
        break;
      case 'setApiKey':
        await vscode.commands.executeCommand(COMMAND_IDS.setApiKey);
        break;
      case 'retry':
        this.submit(prompt, context);
        break;
      case 'openSettings':
        await vscode.commands.executeCommand('workbench.action.openSettings', fix.setting);
        break;
      case 'restartServer':
        await vscode.commands.executeCommand(COMMAND_IDS.restartServer);
        break;
      case 'showTranscript':
        this.transcript.show();
        break;
    }
  }
}

/** The `prompt` of a command argument like `{prompt: "…"}`, else nothing. */
function suggestedPrompt(suggestion: unknown): string | undefined {
  const prompt = typeof suggestion === 'object' && suggestion !== null ? (suggestion as { prompt?: unknown }).prompt : undefined;
  return typeof prompt === 'string' ? prompt : undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
