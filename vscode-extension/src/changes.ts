/**
 * Keeps the current session's changes (what each plan item changed) up to date: from the
 * workspaceAgent/changes notification as a run changes the workspace (the latest state, at
 * most every 100 ms; the last one before the run's answer), and from the
 * request whenever the session becomes current (a run in a new session, a resume, a
 * reload), its plan gets other rows, or the server starts again. core/changes.ts decides
 * which answer is newest. Also sets the context keys the Plan view's title actions depend
 * on.
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { CAN_UNDO_REVERT_CONTEXT, HAS_CHANGES_CONTEXT } from './commands';
import { ChangesTracker, hasLastRun } from './core/changes';
import type { AgentState } from './core/state';
import type { ChangesResult } from './protocol';

export class ChangesKeeper implements vscode.Disposable {
  readonly tracker = new ChangesTracker();
  private readonly contexts = new Map<string, boolean>();
  private readonly subscriptions: { dispose(): void }[];

  constructor(
    private readonly state: AgentState,
    private readonly server: AgentServer,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions = [state.onChange(() => this.follow()), this.tracker.onChange(() => this.updateContexts())];
    this.follow();
  }

  /** A workspaceAgent/changes notification; false when it is not the current session's. */
  accept(payload: ChangesResult): boolean {
    return this.tracker.acceptNotification(payload);
  }

  /** Fetches the current session's changes (after a server start, before a revert). */
  async refresh(): Promise<void> {
    const ticket = this.tracker.beginFetch();
    if (!ticket) {
      return;
    }
    try {
      this.tracker.acceptFetched(ticket, await this.server.changes(ticket.sessionId));
    } catch (error) {
      this.log.warn(`Could not read the changes of session ${ticket.sessionId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }

  /** Follows the current session, and its plan's rows (which row shows which item). */
  private follow(): void {
    const otherSession = this.tracker.select(this.state.sessionId);
    const otherRows = this.tracker.planIs(this.state.items);
    if (otherSession || otherRows) {
      void this.refresh();
    }
  }

  private updateContexts(): void {
    this.setContext(HAS_CHANGES_CONTEXT, hasLastRun(this.tracker.changes));
    this.setContext(CAN_UNDO_REVERT_CONTEXT, this.tracker.undoableRevert !== undefined);
  }

  private setContext(key: string, value: boolean): void {
    if (this.contexts.get(key) !== value) {
      this.contexts.set(key, value);
      void vscode.commands.executeCommand('setContext', key, value);
    }
  }
}
