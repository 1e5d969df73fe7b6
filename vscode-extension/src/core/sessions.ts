/**
 * Saved sessions from the extension's side: which one becomes current when the server
 * starts, how Resume Session… describes them, and which unreadable-file problems are new.
 *
 * The server saves every session in the workspace and lists them with
 * workspaceAgent/sessions (newest first), so a conversation and its plan outlive a server
 * or editor restart. Pure (no `vscode` import), for unit tests; sessions.ts does the I/O.
 */
import type { SessionSummary } from '../protocol';
import { shorten } from './status';

/** What the window knows about its session when the server (re)starts. */
export interface CurrentSession {
  sessionId: string | undefined;
  /** The user chose New Session (and has not run a task since). */
  cleared: boolean;
}

/**
 * The session to make current once the server has started:
 * - the current one when it is saved: a restart keeps the user where they were;
 * - none after New Session (the user asked for a clean start), or when the current session
 *   is not saved (it had no conversation yet, so nothing is lost);
 * - otherwise, in a window that has no session yet, the newest saved one.
 */
export function chooseSession(saved: readonly SessionSummary[], current: CurrentSession): string | undefined {
  if (current.sessionId !== undefined) {
    return saved.some((s) => s.sessionId === current.sessionId) ? current.sessionId : undefined;
  }
  return current.cleared ? undefined : saved[0]?.sessionId;
}

/**
 * The window's session that has nothing saved, to show in the Conversation view rather than
 * nothing (its only run failed before the model answered: the server kept its history, with
 * the error card and its buttons, but no session to continue). `remembered`: the window's
 * session before a window reload (the extension keeps it in the workspace's state), looked
 * at only when the window has no session yet and New Session did not clear it.
 */
export function unsavedSession(saved: readonly SessionSummary[], current: CurrentSession, remembered: string | undefined): string | undefined {
  const id = current.sessionId ?? (current.cleared ? undefined : remembered);
  return id !== undefined && !saved.some((s) => s.sessionId === id) ? id : undefined;
}

/**
 * What Run Task… says about the session the task goes to. Before the window's session is
 * restored (right after a reload, the server not started yet) the task continues the last
 * saved session if there is one, and the words say exactly that.
 */
export function runTaskSessionWords(s: { running: boolean; sessionId: string | undefined; cleared: boolean; restored: boolean }): string {
  if (s.running) {
    return 'What should the agent do after this run? (queued: it starts when the current run ends)';
  }
  if (s.sessionId) {
    return 'What should the agent do next? (continues the current session)';
  }
  if (s.cleared || s.restored) {
    return 'What should the agent do? (starts a new session)';
  }
  return 'What should the agent do? (continues the last session, or starts one if there is none)';
}

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", else the date (UTC). */
export function formatAge(updatedAt: string, now: Date): string {
  const then = Date.parse(updatedAt);
  if (Number.isNaN(then)) {
    return updatedAt;
  }
  const seconds = (now.getTime() - then) / 1000;
  if (seconds < 60) {
    return 'just now';
  }
  if (seconds < 3600) {
    return `${Math.floor(seconds / 60)} min ago`;
  }
  if (seconds < 86_400) {
    return `${Math.floor(seconds / 3600)} h ago`;
  }
  const days = Math.floor(seconds / 86_400);
  if (days < 7) {
    return days === 1 ? 'yesterday' : `${days} days ago`;
  }
  return new Date(then).toISOString().slice(0, 10);
}

/** "2/5", or "no plan" for a session whose agent made none. */
export function todosFraction(session: SessionSummary): string {
  return session.todos.total ? `${session.todos.completed}/${session.todos.total}` : 'no plan';
}

/** One row of the Resume Session… quick pick. */
export interface SessionPick {
  sessionId: string;
  /** The title (the session's first prompt), on one line. */
  label: string;
  /** "3/3 · updated 5 min ago", then "running" and "current" when they apply. */
  description: string;
  /** The number of messages. */
  detail: string;
}

export function sessionPicks(saved: readonly SessionSummary[], currentId: string | undefined, now: Date): SessionPick[] {
  return saved.map((session) => ({
    sessionId: session.sessionId,
    label: shorten(session.title, 80) || '(untitled)',
    description: [
      todosFraction(session),
      `updated ${formatAge(session.updatedAt, now)}`,
      ...(session.running ? ['running'] : []),
      ...(session.sessionId === currentId ? ['current'] : []),
    ].join(' · '),
    detail: `${session.messages} message${session.messages === 1 ? '' : 's'}`,
  }));
}

/** The transcript's line when a saved session becomes current. */
export function resumedNote(session: SessionSummary): string {
  return `— Resumed session: ${shorten(session.title, 80) || '(untitled)'} (plan ${todosFraction(session)}); the next task continues it —`;
}

/**
 * Problems (unreadable session files) are shown once per window: the same file is listed
 * again at every restart and every Resume Session…, and is not worth a second warning.
 */
export class ProblemTracker {
  private readonly seen = new Set<string>();

  /** The problems not reported before (and remembers them). */
  fresh(problems: readonly string[]): string[] {
    const fresh = problems.filter((problem) => !this.seen.has(problem));
    for (const problem of fresh) {
      this.seen.add(problem);
    }
    return [...new Set(fresh)];
  }
}

/** The warning for problems listed with the sessions. */
export function problemsMessage(problems: readonly string[]): string {
  return problems.length === 1
    ? `Workspace Agent: a saved session could not be read: ${problems[0]}.`
    : `Workspace Agent: ${problems.length} saved sessions could not be read; the log lists them.`;
}
