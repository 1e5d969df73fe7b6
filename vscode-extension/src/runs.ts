/**
 * One run at a time, from the user's side: a cancellable progress notification while the
 * server works, the run begun and ended in the state, and how it ended, for runFixes.ts to
 * tell. Tasks come through the queue (runQueue.ts), which starts the next one when this
 * says it is free; a plan's approval (planEditor.ts) starts its run here too.
 *
 * A task sent from the Conversation view gets no progress notification while the view is
 * visible (core/toasts.ts): its cards show the progress, Escape in its input cancels.
 *
 * Cancelling (the notification's Cancel button, Escape in the view, or the Cancel Run
 * command) cancels the request's token; vscode-languageclient sends `$/cancelRequest`, the server kills what the
 * run was doing and still answers with a RunResult whose stopReason is "cancelled".
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { RUNNING_CONTEXT } from './commands';
import type { AgentState } from './core/state';
import { WAITING_WORDS, shorten } from './core/status';
import { type RunOrigin, showsToasts } from './core/toasts';
import type { ApprovePlanParams, PromptImage, RunContext, RunMode, RunParams, RunResult } from './protocol';
import { ProgressToast } from './runProgress';
import type { Transcript } from './transcript';

const SHOW_TRANSCRIPT = 'Show Transcript';

/** What a run needs of the Conversation view: whether the user sees it (then no progress toast). */
export interface RunView {
  readonly visible: boolean;
  readonly onDidChangeVisibility: vscode.Event<void>;
}

/** What a run needs of the session keeper (sessions.ts): a session being restored is the one to continue. */
export interface SessionRestore {
  ready(): Promise<void>;
}

/** A task: its words and the editor context sent with it. */
export interface Task {
  prompt: string;
  context?: RunContext;
}

/** How a run ended, once the state says so. */
export type RunOutcome =
  /** The server answered (done, cancelled, stopped by a limit...); `planOfThisRun`: its plan items are this run's. */
  | { kind: 'answered'; result: RunResult; planOfThisRun: boolean }
  /** The request failed without an answer (the server went away). */
  | { kind: 'failed'; text: string }
  /** The run could not start (no server, no session): nothing ran. */
  | { kind: 'notStarted'; text: string };

/** A run's end, for runFixes.ts to tell. */
export interface RunEnd extends Task {
  outcome: RunOutcome;
  /** Told in a toast too: the user is not at the Conversation view. */
  toast: boolean;
}

export class RunController implements vscode.Disposable {
  private cancelSource: vscode.CancellationTokenSource | undefined;
  private _lastTask: Task | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** A run started or ended. */
  readonly onDidChange = this.changed.event;
  private readonly results = new vscode.EventEmitter<RunResult>();
  /** A run answered (planEditor.ts makes a draft of a `planReady` plan). */
  readonly onDidFinish = this.results.event;
  private readonly ends = new vscode.EventEmitter<RunEnd>();
  /** A run ended, or could not start: how (runFixes.ts tells the user). */
  readonly onDidEnd = this.ends.event;
  private readonly freed = new vscode.EventEmitter<void>();
  /** Nothing runs any more: the queue's next task may start (runQueue.ts). */
  readonly onDidFree = this.freed.event;

  constructor(
    private readonly state: AgentState,
    private readonly server: AgentServer,
    private readonly transcript: Transcript,
    private readonly sessions: SessionRestore,
    private readonly modes: { readonly mode: RunMode },
    private readonly view: RunView,
    private readonly picks?: { runFields(): Pick<RunParams, 'model' | 'thinking'> },
  ) {}

  /** A run goes, or is being started (its session is being made). */
  get busy(): boolean {
    return this.state.running || this.cancelSource !== undefined;
  }

  /** The last task run (for a card's Retry: the same task with the same context). */
  get lastTask(): Task | undefined {
    return this._lastTask;
  }

  /** Runs the task now (the queue calls this when nothing runs). */
  async start(prompt: string, context?: RunContext, images: PromptImage[] = [], origin: RunOrigin = 'elsewhere'): Promise<void> {
    // Taken at once, so a task given while the session is being created queues behind this one.
    const source = new vscode.CancellationTokenSource();
    this.cancelSource = source;
    this._lastTask = { prompt, ...(context ? { context } : {}) };
    this.server.remindOfInstall(); // a start waiting on the install offer: the task waits with it
    let sessionId: string;
    try {
      await this.sessions.ready(); // a session being restored right now is the one to continue
      sessionId = this.state.sessionId ?? (await this.server.newSession());
    } catch (error) {
      this.cancelSource = undefined;
      source.dispose();
      const toast = showsToasts(origin, this.view.visible);
      this.ends.fire({ outcome: { kind: 'notStarted', text: message(error) }, prompt, ...(context ? { context } : {}), toast });
      return;
    }
    if (this.state.running || source.token.isCancellationRequested) {
      this.cancelSource = undefined;
      source.dispose();
      this.freed.fire();
      return;
    }
    const mode = this.modes.mode;
    await this.execute(source, sessionId, prompt, (token) =>
      this.server.run({ prompt, sessionId, mode, ...(context ? { context } : {}), ...(images.length ? { images } : {}), ...this.picks?.runFields() }, token), context, undefined, origin);
  }

  /**
   * Run This Plan / Keep Planning: workspaceAgent/approvePlan starts a run of the session
   * (act mode for `run`, plan mode for `revise`) shown like any other. A refusal (nothing
   * ran: see docs/protocol.md) goes to `refused` with the server's words. Its toasts are a
   * task from the view's: a plan is approved in the side bar (the Conversation view's plan
   * card, the Plan view), so they show only while the Conversation view is hidden.
   */
  async approvePlan(params: ApprovePlanParams, refused: (text: string) => void): Promise<void> {
    if (this.busy) {
      refused(`session ${params.sessionId} has a run in progress: wait for it to end or cancel it, then approve the plan again`);
      return;
    }
    const source = new vscode.CancellationTokenSource();
    this.cancelSource = source;
    const label = params.action === 'run' ? 'Running the plan' : 'Revising the plan';
    await this.execute(source, params.sessionId, label, (token) => this.server.approvePlan({ ...params, ...this.picks?.runFields() }, token), undefined, refused, 'view');
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

  dispose(): void {
    this.changed.dispose();
    this.results.dispose();
    this.ends.dispose();
    this.freed.dispose();
  }

  /** One run, begun: progress, the state, how it ended (or `refused`'s words, for a refusal). */
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
    const toasts = (): boolean => showsToasts(origin, this.view.visible);
    toast.set(shorten(prompt, 60));
    if (toasts()) {
      toast.show();
    }
    // The view shown or hidden during the run: the notification goes, or comes back.
    const visibility = this.view.onDidChangeVisibility(() => (toasts() ? toast.show() : toast.hide()));
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
    const task: Task = { prompt, ...(context ? { context } : {}) };
    try {
      const result = await send(source.token);
      this.finished(result, task, toasts());
      this.results.fire(result);
    } catch (error) {
      if (refused) {
        this.state.failRun(message(error));
        refused(message(error));
      } else {
        const text = message(error);
        this.state.failRun(text);
        this.transcript.note(`The run failed: ${text}`);
        this.ends.fire({ outcome: { kind: 'failed', text }, ...task, toast: toasts() });
      }
    } finally {
      planChanged.dispose();
      visibility.dispose();
      toast.dispose();
      this.cancelSource = undefined;
      source.dispose();
      void vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, false);
      this.changed.fire();
      this.freed.fire();
    }
  }

  /** The state takes the result (a `/clear` starts a new session); then its end is told. */
  private finished(result: RunResult, task: Task, toast: boolean): void {
    // The plan an earlier run left, untouched by this one: not this run's progress.
    const planOfThisRun = this.state.runItems.length > 0 || result.todos.length === 0 || !this.state.items.length;
    const cleared = result.sessionId !== this.state.sessionId; // `/clear`: the server started a new session
    this.state.finishRun(result);
    if (cleared) {
      this.state.clearSession();
      this.transcript.note('— New session —');
    }
    this.ends.fire({ outcome: { kind: 'answered', result, planOfThisRun }, ...task, toast });
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
