/**
 * What each plan item of the current session changed, as the extension keeps it.
 *
 * The server sends the whole per-item payload as a run changes the workspace (at most
 * every 100 ms; workspaceAgent/changes notification) and answers the same request on demand (after a
 * resume, a reload, a restart). This tracker decides which of those answers is the
 * newest for the current session, so a slow request never overwrites a fresher
 * notification. The server tells which plan row shows which item against the plan as it
 * has it, and sends no payload when only the plan changed: a plan with other rows asks
 * again. Pure (no `vscode` import): listeners are plain callbacks.
 */
import type { ChangesResult, TodoItem } from '../protocol';
import type { Listener } from './state';

/** A request for the current session's changes, started at a known point. */
export interface FetchTicket {
  readonly sessionId: string;
  readonly notificationsSeen: number;
}

export class ChangesTracker {
  private _sessionId: string | undefined;
  private _changes: ChangesResult | undefined;
  private notifications = 0;
  private planRows = '';
  private readonly listeners = new Set<Listener>();

  get sessionId(): string | undefined {
    return this._sessionId;
  }

  /** The current session's changes; undefined until they are loaded. */
  get changes(): ChangesResult | undefined {
    return this._changes;
  }

  onChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /**
   * The current session is now `sessionId` (undefined: none). True when that is another
   * session than before: its changes must be fetched (beginFetch) and the old ones are gone.
   */
  select(sessionId: string | undefined): boolean {
    if (sessionId === this._sessionId) {
      return false;
    }
    this._sessionId = sessionId;
    this._changes = undefined;
    this.changed();
    return sessionId !== undefined;
  }

  /**
   * The current plan is now `plan`. True when its rows (ids and texts; not statuses) are
   * not the ones seen last and the session has changes: the payload's planRow and shown
   * were told against other rows, so they must be fetched again (beginFetch).
   */
  planIs(plan: readonly Pick<TodoItem, 'id' | 'text'>[]): boolean {
    const rows = JSON.stringify(plan.map((todo) => [todo.id, todo.text]));
    const changed = rows !== this.planRows;
    this.planRows = rows;
    return changed && !!this._changes?.items.length;
  }

  /** Call before requesting the current session's changes; undefined when there is none. */
  beginFetch(): FetchTicket | undefined {
    return this._sessionId === undefined ? undefined : { sessionId: this._sessionId, notificationsSeen: this.notifications };
  }

  /**
   * The answer to a request: applied when it is still the current session's and no
   * notification came after the request was sent (a notification is at least as new).
   */
  acceptFetched(ticket: FetchTicket, result: ChangesResult): boolean {
    if (ticket.sessionId !== this._sessionId || ticket.notificationsSeen !== this.notifications) {
      return false;
    }
    this.apply(result);
    return true;
  }

  /** A workspaceAgent/changes notification: applied when it is the current session's. */
  acceptNotification(payload: ChangesResult): boolean {
    if (payload.sessionId !== this._sessionId) {
      return false;
    }
    this.notifications++;
    this.apply(payload);
    return true;
  }

  /** The prompt of the run Revert Last Run goes back to the start of, when known. */
  get lastRunPrompt(): string | undefined {
    const changes = this._changes;
    const run = changes?.runs?.find((r) => r.run === changes.lastRun);
    return run?.prompt ?? undefined;
  }

  /** True when a revert of this session can be undone (the newest one, not undone yet). */
  get undoableRevert(): string | undefined {
    const last = this._changes?.reverts?.at(-1);
    return last && !last.undone ? last.undoId : undefined;
  }

  private apply(changes: ChangesResult): void {
    this._changes = changes;
    this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      listener();
    }
  }
}

/**
 * Whether there is a run for Revert Last Run to go back to the start of: the server's
 * `lastRun` (the latest run that changed files); from an older server without it,
 * whether any item changed a file.
 */
export function hasLastRun(changes: ChangesResult | undefined): boolean {
  if (changes?.lastRun !== undefined) {
    return changes.lastRun !== null;
  }
  return !!changes?.items.some((item) => item.files.length > 0);
}
