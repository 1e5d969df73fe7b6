/**
 * Saved sessions: the server keeps every session in the workspace, so after a server or
 * editor restart the extension picks the session back up (core/sessions.ts decides which)
 * and shows its plan; Resume Session… switches to any saved one.
 *
 * Runs wait for the restore (ready()) before they choose their session, so a task typed
 * right after start-up continues the restored session instead of racing it. New Session
 * leaves the current one: the next task starts a new one.
 *
 * A window's session that has nothing saved (its only run failed before the model answered)
 * is still shown after a server restart or a window reload: its history has the error card,
 * whose buttons (Retry, Set API Key…) are the way on. The window's session is kept in the
 * workspace's state for that.
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { PLAN_VIEW_ID } from './commands';
import {
  ProblemTracker,
  type SessionPick,
  chooseSession,
  problemsMessage,
  resumedNote,
  sessionPicks,
  unsavedSession,
} from './core/sessions';
import type { AgentState } from './core/state';
import type { SessionSummary, SessionsResult } from './protocol';
import type { Transcript } from './transcript';

/** The workspace-state key of the session the window showed (read back after a reload). */
const WINDOW_SESSION_KEY = 'workspaceAgent.windowSession';

export class SessionKeeper implements vscode.Disposable {
  private restoring: Promise<void> = Promise.resolve();
  private _restored = false;
  private readonly problems = new ProblemTracker();
  /** The window's session before a reload, until the first restore has looked at it. */
  private remembered: string | undefined;
  private readonly keeping: { dispose(): void };

  constructor(
    private readonly state: AgentState,
    private readonly server: AgentServer,
    private readonly transcript: Transcript,
    private readonly log: vscode.LogOutputChannel,
    memento: vscode.Memento,
  ) {
    this.remembered = memento.get<string>(WINDOW_SESSION_KEY);
    let kept = this.remembered;
    this.keeping = state.onChange(() => {
      const shown = state.shownSessionId;
      if (shown !== kept && (shown !== undefined || this._restored)) {
        kept = shown;
        void memento.update(WINDOW_SESSION_KEY, shown);
      }
    });
  }

  dispose(): void {
    this.keeping.dispose();
  }

  /** Called each time the server has started (the Plan view shown, a command, Restart Server, a new key, ...). */
  serverStarted(): void {
    this.restoring = this.restore()
      .catch((error: unknown) => {
        this.log.warn(`Could not restore the saved session: ${message(error)}`);
      })
      .finally(() => {
        this._restored = true;
      });
  }

  /** The window's session was chosen since it opened (Run Task's words depend on it). */
  get restored(): boolean {
    return this._restored;
  }

  /** Resolves once the server is up and the session it had is restored (or not). */
  async ready(): Promise<void> {
    await this.server.ensureStarted();
    await this.restoring;
  }

  /** Workspace Agent: New Session */
  async newSessionCommand(refuseWhileRunning: () => Promise<boolean>): Promise<void> {
    if (await refuseWhileRunning()) {
      return;
    }
    this.state.clearSession();
    this.transcript.note('— New session —');
    void vscode.window.showInformationMessage('Workspace Agent: new session. The next task starts from a clean plan.');
  }

  /** Workspace Agent: Resume Session… */
  async resumeCommand(refuseWhileRunning: () => Promise<boolean>): Promise<void> {
    if (await refuseWhileRunning()) {
      return;
    }
    let listed: SessionsResult;
    try {
      await this.ready();
      listed = await this.list();
    } catch (error) {
      void vscode.window.showErrorMessage(`Workspace Agent: could not list the saved sessions: ${message(error)}`);
      return;
    }
    if (!listed.sessions.length) {
      void vscode.window.showInformationMessage('Workspace Agent: there is no saved session in this workspace yet.');
      return;
    }
    const items = sessionPicks(listed.sessions, this.state.sessionId, new Date()).map(
      (pick): vscode.QuickPickItem & { pick: SessionPick } => ({
        label: pick.label,
        description: pick.description,
        detail: pick.detail,
        pick,
      }),
    );
    const chosen = await vscode.window.showQuickPick(items, {
      title: 'Workspace Agent: Resume Session',
      placeHolder: 'Pick a saved session: the Plan view shows its plan and the next task continues it',
      matchOnDescription: true,
    });
    if (!chosen || (await refuseWhileRunning())) {
      return;
    }
    const session = listed.sessions.find((s) => s.sessionId === chosen.pick.sessionId);
    try {
      if (session && (await this.switchTo(session))) {
        void vscode.commands.executeCommand(`${PLAN_VIEW_ID}.focus`);
      }
    } catch (error) {
      void vscode.window.showErrorMessage(`Workspace Agent: could not resume the session: ${message(error)}`);
    }
  }

  private async restore(): Promise<void> {
    const epoch = this.state.epoch;
    const listed = await this.list();
    const current = { sessionId: this.state.sessionId, cleared: this.state.cleared };
    const remembered = this.remembered;
    this.remembered = undefined;
    const unsaved = unsavedSession(listed.sessions, current, remembered);
    if (unsaved !== undefined && (await this.hasHistory(unsaved))) {
      if (this.state.resumeSession(undefined, [], epoch, unsaved)) {
        this.transcript.note('— The last session had nothing saved; the next task starts a new one —');
      }
      return;
    }
    const chosen = chooseSession(listed.sessions, current);
    const session = listed.sessions.find((s) => s.sessionId === chosen);
    if (!session) {
      if (this.state.sessionId !== undefined && this.state.resumeSession(undefined, [], epoch)) {
        this.transcript.note('— The last session had nothing saved; the next task starts a new one —');
      }
      return;
    }
    if (await this.switchTo(session, epoch)) {
      this.log.info(`Resumed session ${session.sessionId} (${session.title}).`);
    }
  }

  /** Whether the server kept a history of the session (a failed first run has one, unsaved). */
  private async hasHistory(sessionId: string): Promise<boolean> {
    try {
      return (await this.server.history({ sessionId, limit: 1 })).total > 0;
    } catch {
      return false; // nothing kept (no workspace folder then, or the files were deleted)
    }
  }

  /** Fetches the session's plan and makes it current; false when a run got there first. */
  private async switchTo(session: SessionSummary, epoch = this.state.epoch): Promise<boolean> {
    const todos = await this.server.getTodos(session.sessionId);
    if (!this.state.resumeSession(session.sessionId, todos.items, epoch)) {
      return false;
    }
    this.transcript.note(resumedNote(session));
    return true;
  }

  /** The saved sessions; unreadable files are logged and shown once, with Show Log. */
  private async list(): Promise<SessionsResult> {
    const listed = await this.server.sessions();
    for (const problem of listed.problems) {
      this.log.warn(`Saved session: ${problem}`);
    }
    const fresh = this.problems.fresh(listed.problems);
    if (fresh.length) {
      const showLog = 'Show Log';
      void vscode.window.showWarningMessage(problemsMessage(fresh), showLog).then((answer) => {
        if (answer === showLog) {
          this.log.show();
        }
      });
    }
    return listed;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
