/**
 * Taking changes back: Revert to Before This Step (a step row's inline action), Revert
 * Last Run (the Plan view's title) and Undo Revert. Each asks first in a modal that lists
 * what will be restored and deleted, then says what the server did, what it skipped and
 * why, and offers Undo Revert. The server does the work (workspaceAgent.revert /
 * undoRevert); the words come from core/revertText.ts.
 */
import * as vscode from 'vscode';
import type { ChangesKeeper } from './changes';
import type { AgentServer } from './client';
import { type StepNode, revertPreview } from './core/changeRows';
import type { AgentState } from './core/state';
import {
  type Confirmation,
  LAST_RUN_TARGET,
  OVERWRITE_SKIPPED,
  type ResultMessage,
  confirmLastRunRevert,
  confirmOverwrite,
  confirmStepRevert,
  revertResultMessage,
  revertTarget,
  undoResultMessage,
} from './core/revertText';
import type { RevertArgs } from './protocol';
import type { Transcript } from './transcript';

const UNDO = 'Undo Revert';

export class RevertCommands {
  constructor(
    private readonly state: AgentState,
    private readonly server: AgentServer,
    private readonly changes: ChangesKeeper,
    private readonly transcript: Transcript,
    /** Shows the polite refusal while a run goes; true when it refused. */
    private readonly refuseWhileRunning: (why: string) => Promise<boolean>,
  ) {}

  /** Revert to Before This Step, on a step row of the Plan view. */
  async revertStep(node: StepNode | undefined): Promise<void> {
    const sessionId = this.state.sessionId;
    if (node?.kind !== 'step' || !sessionId || (await this.refused())) {
      return;
    }
    await this.changes.refresh(); // the list in the question must be the server's latest
    const current = this.changes.tracker.changes;
    const preview = current && revertPreview(current, node.todoId);
    if (!preview || preview.restore.length + preview.delete.length === 0) {
      const since = node.todoId === null ? 'in this session' : `from ${node.stepName} on`;
      void vscode.window.showInformationMessage(`Workspace Agent: nothing to revert: the agent changed no files ${since}.`);
      return;
    }
    const target = revertTarget(node.stepName);
    await this.revert(confirmStepRevert(target, preview), target, { sessionId, todoId: node.todoId });
  }

  /** Revert Last Run, in the Plan view's title and the palette. */
  async revertLastRun(): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!sessionId) {
      void vscode.window.showInformationMessage('Workspace Agent: there is no session whose run could be reverted.');
      return;
    }
    if (await this.refused()) {
      return;
    }
    await this.changes.refresh();
    await this.revert(confirmLastRunRevert(this.changes.tracker.lastRunFiles()), LAST_RUN_TARGET, { sessionId, lastRun: true });
  }

  /** Undo Last Revert, in the Plan view's title menu and the palette. */
  async undoLastRevert(): Promise<void> {
    const sessionId = this.state.sessionId;
    const undoId = this.changes.tracker.undoableRevert;
    if (!sessionId || !undoId) {
      void vscode.window.showInformationMessage('Workspace Agent: there is no revert to undo in this session.');
      return;
    }
    await this.undo(sessionId, undoId);
  }

  /**
   * Asks, reverts, says what happened. Files skipped because the user changed them can
   * then be overwritten too (the same revert with `force`, asked about separately).
   */
  private async revert(question: Confirmation, target: string, args: RevertArgs): Promise<void> {
    const answer = await vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, question.action);
    if (answer !== question.action || (await this.refused())) {
      return;
    }
    let result;
    try {
      result = await this.server.revert(args);
    } catch (error) {
      void vscode.window.showErrorMessage(`Workspace Agent: could not revert: ${messageOf(error)}`);
      return;
    }
    const message = revertResultMessage(target, result);
    this.report(message);
    const choice = await show(message, UNDO, ...(result.skipped.length && !args.force ? [OVERWRITE_SKIPPED] : []));
    if (choice === UNDO) {
      await this.undo(args.sessionId, result.undoId);
    } else if (choice === OVERWRITE_SKIPPED) {
      await this.revert(confirmOverwrite(result.skipped), target, { ...args, force: true });
    }
  }

  private async undo(sessionId: string, undoId: string): Promise<void> {
    if (await this.refused()) {
      return;
    }
    try {
      const message = undoResultMessage(await this.server.undoRevert({ sessionId, undoId }));
      this.report(message);
      void show(message);
    } catch (error) {
      void vscode.window.showErrorMessage(`Workspace Agent: could not undo the revert: ${messageOf(error)}`);
    }
  }

  /** The whole account goes to the transcript (a notification names a few files only). */
  private report(message: ResultMessage): void {
    for (const line of [message.text.replace(/^Workspace Agent: /, '↺ '), ...message.details]) {
      this.transcript.note(line);
    }
  }

  private refused(): Promise<boolean> {
    return this.refuseWhileRunning('is working on a task. Cancel the run or wait for it to finish before reverting.');
  }
}

function show(message: ResultMessage, ...actions: string[]): Thenable<string | undefined> {
  return message.severity === 'warning'
    ? vscode.window.showWarningMessage(message.text, ...actions)
    : vscode.window.showInformationMessage(message.text, ...actions);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
