/**
 * What the extension knows about the agent: the current session, its plan, and the run.
 *
 * One small state object that the Plan view, the status bar and the commands all read, so
 * they cannot disagree. It decides which todos notifications belong on screen: only the
 * current session's, which is what keeps a stale plan from coming back after New Session.
 * Pure (no `vscode` import): listeners are plain callbacks.
 */
import type { RunResult, StopReason, TodoItem, TodosPayload } from '../protocol';

export type RunPhase =
  | { kind: 'idle' }
  | { kind: 'running'; prompt: string }
  | { kind: 'finished'; stopReason: StopReason; error?: string }
  /** The request itself failed (server gone, protocol error): no RunResult came back. */
  | { kind: 'failed'; error: string };

export type Listener = () => void;

export class AgentState {
  private _sessionId: string | undefined;
  private _items: TodoItem[] = [];
  private _phase: RunPhase = { kind: 'idle' };
  private readonly listeners = new Set<Listener>();

  get sessionId(): string | undefined {
    return this._sessionId;
  }

  get items(): readonly TodoItem[] {
    return this._items;
  }

  get phase(): RunPhase {
    return this._phase;
  }

  get running(): boolean {
    return this._phase.kind === 'running';
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
    this._sessionId = sessionId;
    this._phase = { kind: 'running', prompt };
    this.changed();
  }

  /** Shows the plan of a todos notification; false when it is not the current session's. */
  acceptTodos(payload: TodosPayload): boolean {
    if (payload.sessionId !== this._sessionId) {
      return false;
    }
    this._items = payload.items.map((item) => ({ ...item }));
    this.changed();
    return true;
  }

  /** The run answered: its plan is the last word on the plan. */
  finishRun(result: RunResult): void {
    if (result.sessionId === this._sessionId) {
      this._items = result.todos.map((item) => ({ ...item }));
    }
    this._phase = {
      kind: 'finished',
      stopReason: result.stopReason,
      ...(result.error !== undefined ? { error: result.error } : {}),
    };
    this.changed();
  }

  /** The run request failed without a result. */
  failRun(error: string): void {
    this._phase = { kind: 'failed', error };
    this.changed();
  }

  /**
   * The server went away and its sessions with it. The next task starts a new session; a
   * run still going keeps its plan on screen until its request fails (failRun).
   */
  serverStopped(): void {
    if (this.running) {
      this._sessionId = undefined;
      this.changed();
    } else {
      this.clearSession();
    }
  }

  /** Forget the session and its plan (New Session). */
  clearSession(): void {
    this._sessionId = undefined;
    this._items = [];
    this._phase = { kind: 'idle' };
    this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      listener();
    }
  }
}
