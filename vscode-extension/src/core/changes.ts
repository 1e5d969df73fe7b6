/**
 * What each plan item of the current session changed, as the extension keeps it.
 *
 * The server sends the whole per-item payload after every workspace-changing tool call
 * (workspaceAgent/changes notification) and answers the same request on demand (after a
 * resume, a reload, a restart). This tracker decides which of those answers is the
 * newest for the current session, so a slow request never overwrites a fresher
 * notification, and it remembers where the last run started, for Revert Last Run.
 * Pure (no `vscode` import): listeners are plain callbacks.
 */
import { CHANGE_KINDS, type ChangesResult, type ItemChanges, type RevertResult } from '../protocol';
import type { Listener } from './state';

/** Accepts a changes payload only when it has the shape the protocol promises. */
export function isChangesResult(value: unknown): value is ChangesResult {
  if (!isObject(value) || typeof value.sessionId !== 'string' || !Array.isArray(value.items)) {
    return false;
  }
  const reverts: unknown = value.reverts ?? [];
  return (
    value.items.every(isItemChanges) &&
    Array.isArray(reverts) &&
    reverts.every((r) => isObject(r) && typeof r.undoId === 'string' && typeof r.undone === 'boolean')
  );
}

function isItemChanges(value: unknown): value is ItemChanges {
  if (!isObject(value) || !(value.todoId === null || typeof value.todoId === 'string')) {
    return false;
  }
  const { files, commands } = value;
  return (
    Array.isArray(files) &&
    files.every(
      (file) =>
        isObject(file) &&
        typeof file.path === 'string' &&
        (CHANGE_KINDS as readonly unknown[]).includes(file.change) &&
        typeof file.additions === 'number' &&
        typeof file.deletions === 'number',
    ) &&
    Array.isArray(commands) &&
    commands.every((c) => isObject(c) && typeof c.command === 'string' && (c.exitCode === null || typeof c.exitCode === 'number'))
  );
}

/** Accepts the result of workspaceAgent.revert / undoRevert (undoId only with `withUndoId`). */
export function isRevertResult(value: unknown, withUndoId: boolean): value is RevertResult {
  const strings = (list: unknown): boolean => Array.isArray(list) && list.every((entry) => typeof entry === 'string');
  return (
    isObject(value) &&
    strings(value.restored) &&
    strings(value.deleted) &&
    Array.isArray(value.skipped) &&
    value.skipped.every((s) => isObject(s) && typeof s.path === 'string' && typeof s.reason === 'string') &&
    (!withUndoId || typeof value.undoId === 'string')
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** A request for the current session's changes, started at a known point. */
export interface FetchTicket {
  readonly sessionId: string;
  readonly notificationsSeen: number;
}

/** Where the last run started, for Revert Last Run's confirmation. */
type RunBase = { kind: 'known'; changes: ChangesResult } | { kind: 'unknown' };

export class ChangesTracker {
  private _sessionId: string | undefined;
  private _changes: ChangesResult | undefined;
  private notifications = 0;
  /** The payload when the run going now started (or 'pending': not loaded yet). */
  private candidate: ChangesResult | 'pending' | undefined;
  private lastRunBase: RunBase = { kind: 'unknown' };
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
    this.candidate = undefined;
    this.lastRunBase = { kind: 'unknown' };
    this.changed();
    return sessionId !== undefined;
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
    if (this.candidate === 'pending') {
      this.candidate = result;
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
    if (this.candidate === 'pending') {
      this.candidate = undefined; // what the workspace was at the run's start is not known
      this.lastRunBase = { kind: 'unknown' };
    }
    this.apply(payload);
    return true;
  }

  /**
   * A run starts in the current session. Its start becomes "the last run" once it changes
   * files (the server's lastRun is the latest run that changed files).
   */
  runStarted(sessionId: string): void {
    if (sessionId === this._sessionId) {
      this.candidate = this._changes ?? 'pending';
    }
  }

  /**
   * The files the last run changed, as far as this window saw it (undefined: the run
   * started before this window knew the session's changes, e.g. before a reload).
   */
  lastRunFiles(): string[] | undefined {
    if (this.lastRunBase.kind === 'unknown' || !this._changes) {
      return undefined;
    }
    return changedSince(this.lastRunBase.changes, this._changes);
  }

  /** True when a revert of this session can be undone (the newest one, not undone yet). */
  get undoableRevert(): string | undefined {
    const last = this._changes?.reverts?.at(-1);
    return last && !last.undone ? last.undoId : undefined;
  }

  private apply(changes: ChangesResult): void {
    if (this.candidate && this.candidate !== 'pending' && changedSince(this.candidate, changes).length) {
      this.lastRunBase = { kind: 'known', changes: this.candidate };
      this.candidate = undefined;
    }
    this._changes = changes;
    this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      listener();
    }
  }
}

/** Paths whose per-item entry (change, line counts) differs between two payloads, sorted. */
export function changedSince(before: ChangesResult, after: ChangesResult): string[] {
  const entries = (changes: ChangesResult): Map<string, string> => {
    const map = new Map<string, string>();
    for (const item of changes.items) {
      for (const file of item.files) {
        map.set(`${item.todoId ?? ''}\0${file.path}`, `${file.change}:${file.additions}:${file.deletions}:${file.binary ? 1 : 0}`);
      }
    }
    return map;
  };
  const old = entries(before);
  const now = entries(after);
  const paths = new Set<string>();
  for (const [key, value] of now) {
    if (old.get(key) !== value) {
      paths.add(key.slice(key.indexOf('\0') + 1));
    }
  }
  for (const key of old.keys()) {
    if (!now.has(key)) {
      paths.add(key.slice(key.indexOf('\0') + 1));
    }
  }
  return [...paths].sort();
}

/** Whether any item changed a file (for Revert Last Run). */
export function hasFileChanges(changes: ChangesResult | undefined): boolean {
  return !!changes?.items.some((item) => item.files.length > 0);
}
