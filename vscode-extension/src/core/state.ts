/**
 * What the extension knows about the agent: the current session, its plan, and the run.
 *
 * One small state object that the Plan view, the status bar and the commands all read, so
 * they cannot disagree. It decides which todos notifications belong on screen: only the
 * current session's, which is what keeps a stale plan from coming back after New Session.
 * Sessions are saved by the server, so the current one survives a server restart; which
 * saved session becomes current when the server starts is decided in core/sessions.ts.
 * Pure (no `vscode` import): listeners are plain callbacks.
 */
import type { ContextMeter, CostEstimate, PreparingEvent, RunResult, SandboxStatus, StopReason, TodoItem, TodosPayload, Usage } from '../protocol';

export type RunPhase =
  | { kind: 'idle' }
  | { kind: 'running'; prompt: string }
  | { kind: 'finished'; stopReason: StopReason; error?: string }
  /** The request itself failed (server gone, protocol error): no RunResult came back. */
  | { kind: 'failed'; error: string };

export type Listener = () => void;

/** A run that did its task: the walkthrough's "Run a first task" is done only by one. */
export function ranToCompletion(phase: RunPhase): boolean {
  return phase.kind === 'finished' && (phase.stopReason === 'end_turn' || phase.stopReason === 'stop_sequence' || phase.stopReason === 'planReady');
}

/** A question the server waits on (workspaceAgent/approval), and the plan step it is for. */
export interface WaitingApproval {
  toolUseId: string;
  todoId: string | null;
}

/** What the last run in this window used (the status bar's tooltip). */
export interface LastRun {
  usage: Usage;
  /** null: the server knows no price for the model (or is too old to say). */
  cost: CostEstimate | null;
}

export class AgentState {
  private _sessionId: string | undefined;
  /**
   * The window's session when it had nothing saved (its only run failed before the model
   * answered, so the server kept its history but no session): the Conversation view still
   * shows it, its error card with the card's buttons; the next task starts a new session.
   */
  private _unsaved: string | undefined;
  private _items: TodoItem[] = [];
  private _phase: RunPhase = { kind: 'idle' };
  private _cleared = false;
  private _epoch = 0;
  private _lastRun: LastRun | undefined;
  private _sandbox: SandboxStatus | undefined;
  /** Each session's last meter, workspaceAgent/contextMeter (a /clear's new session's comes before it is current). */
  private readonly _contexts = new Map<string, ContextMeter>();
  private _waiting: WaitingApproval[] = [];
  private _preparing: string | undefined;
  /** The plan as the run found it, until the run changes it (not this run's progress). */
  private _staleItems: string | undefined;
  private readonly listeners = new Set<Listener>();

  get lastRun(): LastRun | undefined {
    return this._lastRun;
  }

  /** What the server last said about the sandbox around commands (workspaceAgent/sandbox). */
  get sandbox(): SandboxStatus | undefined {
    return this._sandbox;
  }

  setSandbox(status: SandboxStatus): void {
    this._sandbox = status;
    this.changed();
  }

  /** How full the current session's context window is (its last meter), if known this server's life. */
  get context(): ContextMeter | undefined {
    return this._sessionId === undefined ? undefined : this._contexts.get(this._sessionId);
  }

  acceptContext(meter: ContextMeter): void {
    this._contexts.set(meter.sessionId, meter);
    if (meter.sessionId === this._sessionId) {
      this.changed();
    }
  }

  /**
   * While the checkpoint store's first look at the workspace goes on (event `preparing`):
   * its message, "Preparing checkpoints: 48,000 of 200,000 files", for the run's progress.
   */
  get preparing(): string | undefined {
    return this._preparing;
  }

  acceptPreparing(event: PreparingEvent): void {
    if (event.sessionId !== this._sessionId || !this.running) {
      return;
    }
    const message = event.ready ? undefined : event.message;
    if (message !== this._preparing) {
      this._preparing = message;
      this.changed();
    }
  }

  /** Questions waiting for the user, oldest first (the badge counts them). */
  get waiting(): readonly WaitingApproval[] {
    return this._waiting;
  }

  approvalAsked(waiting: WaitingApproval): void {
    this._waiting = [...this._waiting.filter((w) => w.toolUseId !== waiting.toolUseId), waiting];
    this.changed();
  }

  /** Answered, or withdrawn (the run was cancelled). */
  approvalDone(toolUseId: string): void {
    if (this._waiting.some((w) => w.toolUseId === toolUseId)) {
      this._waiting = this._waiting.filter((w) => w.toolUseId !== toolUseId);
      this.changed();
    }
  }

  get sessionId(): string | undefined {
    return this._sessionId;
  }

  /** The session the Conversation view shows: the current one, else the unsaved one it left. */
  get shownSessionId(): string | undefined {
    return this._sessionId ?? this._unsaved;
  }

  get items(): readonly TodoItem[] {
    return this._items;
  }

  /**
   * The plan as this run's progress: empty while it is still the plan an earlier run left
   * (a question after a finished plan must not show "2/2" of the old one).
   */
  get runItems(): readonly TodoItem[] {
    return this.running && this._staleItems !== undefined ? [] : this._items;
  }

  get phase(): RunPhase {
    return this._phase;
  }

  get running(): boolean {
    return this._phase.kind === 'running';
  }

  /** True after New Session until the next run: a server restart keeps the clean start. */
  get cleared(): boolean {
    return this._cleared;
  }

  /**
   * Changes whenever the current session may have changed (a run, New Session, a resume).
   * An answer computed from an older epoch (a restore that raced a run) is not applied.
   */
  get epoch(): number {
    return this._epoch;
  }

  onChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** A run starts in `sessionId` (already created on the server). */
  startRun(sessionId: string, prompt: string): void {
    if (this.running) {
      throw new Error('a run is already going');
    }
    if (sessionId !== this._sessionId) {
      this._items = [];
    }
    this._staleItems = this._items.length ? JSON.stringify(this._items) : undefined;
    this._sessionId = sessionId;
    this._unsaved = undefined;
    this._cleared = false;
    this._epoch++;
    this._phase = { kind: 'running', prompt };
    this._preparing = undefined;
    this.changed();
  }

  /** Shows the plan of a todos notification; false when it is not the current session's. */
  acceptTodos(payload: TodosPayload): boolean {
    if (payload.sessionId !== this._sessionId) {
      return false;
    }
    this._items = payload.items.map((item) => ({ ...item }));
    if (this._staleItems !== undefined && JSON.stringify(this._items) !== this._staleItems) {
      this._staleItems = undefined;
    }
    this.changed();
    return true;
  }

  /** The run answered: its plan is the last word on the plan. */
  finishRun(result: RunResult): void {
    if (result.sessionId === this._sessionId) {
      this._items = result.todos.map((item) => ({ ...item }));
    }
    this._preparing = undefined;
    this._phase = {
      kind: 'finished',
      stopReason: result.stopReason,
      ...(result.error !== undefined ? { error: result.error } : {}),
    };
    this._lastRun = { usage: result.usage, cost: result.cost ?? null };
    this._waiting = [];
    this.changed();
  }

  /** The run request failed without a result. */
  failRun(error: string): void {
    this._phase = { kind: 'failed', error };
    this._preparing = undefined;
    this._waiting = [];
    this.changed();
  }

  /**
   * The user took changes back (a `revert` event of the current session): the last run's
   * outcome is no longer the news, so a stale error icon goes (the tooltip keeps its tokens).
   */
  reverted(sessionId: string): void {
    if (sessionId === this._sessionId && !this.running && this._phase.kind !== 'idle') {
      this._phase = { kind: 'idle' };
      this.changed();
    }
  }

  /**
   * The server went away. Its sessions are saved, so the current one and its plan stay on
   * screen; when the server starts again, resumeSession() confirms or drops it. A run still
   * going keeps its phase until its request fails (failRun); otherwise the status is idle.
   */
  serverStopped(): void {
    if (!this.running && this._phase.kind !== 'idle') {
      this._phase = { kind: 'idle' };
      this.changed();
    }
  }

  /**
   * Make `sessionId` (a saved session) current with its plan, or, with undefined, start
   * clean (the current session was not saved; `unsaved`: its id, when its history is there
   * to show). Refused (false) while a run goes, and when `epoch` is given and the session
   * changed since it was read.
   */
  resumeSession(sessionId: string | undefined, items: readonly TodoItem[], epoch?: number, unsaved?: string): boolean {
    if (this.running || (epoch !== undefined && epoch !== this._epoch)) {
      return false;
    }
    if (sessionId !== this._sessionId) {
      this._phase = { kind: 'idle' };
      this._epoch++;
    }
    this._unsaved = sessionId === undefined ? unsaved : undefined;
    this._sessionId = sessionId;
    this._items = sessionId === undefined ? [] : items.map((item) => ({ ...item }));
    if (sessionId !== undefined) {
      this._cleared = false;
    }
    this.changed();
    return true;
  }

  /** Forget the session and its plan (New Session). */
  clearSession(): void {
    this._sessionId = undefined;
    this._unsaved = undefined;
    this._items = [];
    this._phase = { kind: 'idle' };
    this._cleared = true;
    this._waiting = [];
    this._epoch++;
    this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      listener();
    }
  }
}
