/**
 * Taking changes back: Revert to Before This Step (a step row's inline action), Undo Only
 * This Step (beside it, when the server announces `revertOnly`: that step's changes alone,
 * later steps' changes to other lines kept; where they overlap the dry run lists the
 * files and nothing is written), Revert Last Run (the Plan view's title) and Undo Revert. Each asks first in a modal that lists
 * what will be restored, deleted and left alone, as the server's dry run of the same
 * revert says (exact, after a reload too); then says what the server did, what it skipped
 * and why, and offers Undo Revert. A server without dry runs gets the older guess from
 * the changes payload. The words come from core/revertText.ts.
 */
import * as vscode from 'vscode';
import type { ChangesKeeper } from './changes';
import type { AgentServer } from './client';
import { type StepNode, findEntry, revertPreview } from './core/changeRows';
import type { AgentState } from './core/state';
import {
  type Confirmation,
  LAST_RUN_TARGET,
  OVERWRITE_SKIPPED,
  type ResultMessage,
  type RevertPlan,
  changesNothing,
  confirmLastRunRevert,
  confirmOnlyRevert,
  confirmOverwrite,
  confirmStepRevert,
  guessedPlan,
  nothingToRevert,
  onlyConflictMessage,
  onlyResultMessage,
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
    await this.changes.refresh(); // the step's entry must be the server's latest
    const current = this.changes.tracker.changes;
    const entry = current && findEntry(current, node);
    const target = revertTarget(node.stepName);
    if (!current || !entry) {
      const since = node.todoId === null ? 'in this session' : `from ${node.stepName} on`;
      void vscode.window.showInformationMessage(`Workspace Agent: nothing to revert: the agent changed no files ${since}.`);
      return;
    }
    const args: RevertArgs = { sessionId, todoId: node.todoId, ...(entry.key !== undefined ? { key: entry.key } : {}) };
    if (this.server.canPreviewRevert) {
      await this.askThenRevert(args, target, (plan) => confirmStepRevert(target, plan));
      return;
    }
    const preview = revertPreview(current, entry);
    if (!preview || changesNothing(guessedPlan(preview))) {
      void vscode.window.showInformationMessage(nothingToRevert(target));
      return;
    }
    await this.revert(confirmStepRevert(target, guessedPlan(preview)), target, args);
  }

  /** Undo Only This Step, beside Revert to Before This Step on a step row. */
  async undoStep(node: StepNode | undefined): Promise<void> {
    const sessionId = this.state.sessionId;
    if (node?.kind !== 'step' || !sessionId || (await this.refused())) {
      return;
    }
    if (!this.server.canRevertOnly) {
      void vscode.window.showInformationMessage('Workspace Agent: this server cannot undo one step alone; use Revert to Before This Step.');
      return;
    }
    await this.changes.refresh();
    const current = this.changes.tracker.changes;
    const entry = current && findEntry(current, node);
    if (!entry) {
      void vscode.window.showInformationMessage(`Workspace Agent: nothing to undo: the agent changed no files in ${node.stepName}.`);
      return;
    }
    const args: RevertArgs = { sessionId, todoId: node.todoId, ...(entry.key !== undefined ? { key: entry.key } : {}), only: true };
    let plan;
    try {
      plan = await this.server.previewRevert(args);
    } catch (error) {
      void vscode.window.showWarningMessage(`Workspace Agent: ${messageOf(error)}`);
      return;
    }
    if (plan.conflicts?.length) {
      const { text, detail } = onlyConflictMessage(node.stepName, plan.conflicts);
      void vscode.window.showWarningMessage(text, { modal: true, detail });
      return;
    }
    if (changesNothing(plan)) {
      void vscode.window.showInformationMessage(`Workspace Agent: nothing to undo: the files of ${node.stepName} are already as before it.`);
      return;
    }
    const question = confirmOnlyRevert(node.stepName, plan);
    const answer = await vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, question.action);
    if (answer !== question.action || (await this.refused())) {
      return;
    }
    let result;
    try {
      result = await this.server.revert(args);
    } catch (error) {
      void vscode.window.showErrorMessage(`Workspace Agent: could not undo ${node.stepName}: ${messageOf(error)}`);
      return;
    }
    const message = onlyResultMessage(node.stepName, result);
    this.report(message);
    if ((await show(message, UNDO)) === UNDO) {
      await this.undo(sessionId, result.undoId);
    }
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
    if (this.changes.tracker.changes?.lastRun === null) {
      void vscode.window.showInformationMessage('Workspace Agent: nothing to revert: no run of this session changed files.');
      return;
    }
    const prompt = this.changes.tracker.lastRunPrompt;
    const args: RevertArgs = { sessionId, lastRun: true };
    if (this.server.canPreviewRevert) {
      await this.askThenRevert(args, LAST_RUN_TARGET, (plan) => confirmLastRunRevert(plan, prompt));
      return;
    }
    await this.revert(confirmLastRunRevert(undefined, prompt), LAST_RUN_TARGET, args);
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
   * The server's dry run first, so the question lists exactly what will be restored,
   * deleted and left alone. When only files the user changed since would be touched,
   * the question is whether to overwrite them.
   */
  private async askThenRevert(args: RevertArgs, target: string, question: (plan: RevertPlan) => Confirmation): Promise<void> {
    let plan;
    try {
      plan = await this.server.previewRevert(args);
    } catch (error) {
      void vscode.window.showWarningMessage(`Workspace Agent: ${messageOf(error)}`);
      return;
    }
    if (!changesNothing(plan)) {
      await this.revert(question(plan), target, args);
    } else if (plan.skipped.length) {
      await this.revert(confirmOverwrite(plan.skipped), target, { ...args, force: true });
    } else {
      void vscode.window.showInformationMessage(nothingToRevert(target));
    }
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
