/**
 * Taking changes back: Revert to Before This Step (a step row's inline action), Undo Only
 * This Step (beside it, when the server announces `revertOnly`: that step's changes alone,
 * later steps' changes to other lines kept; where they overlap the dry run lists the
 * files and nothing is written), Revert Last Run (the Plan view's title) and Undo Revert
 * (also the Undo of a revert's row in the Conversation view, which the server's `revert`
 * event puts there).
 * Each asks first in a modal that lists what will be restored, deleted and left alone, as
 * the server's dry run of the same revert says (exact, after a reload too); then says what
 * the server did, what it skipped and why, and offers Undo Revert. Steps are named as the
 * server names them (displayName); the words come from core/revertText.ts.
 */
import * as vscode from 'vscode';
import type { ChangesKeeper } from './changes';
import type { AgentServer } from './client';
import { type StepNode, findEntry } from './core/changeRows';
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
  notRevertible,
  nothingToRevert,
  onlyConflictMessage,
  onlyResultMessage,
  revertResultMessage,
  revertTarget,
  undoResultMessage,
} from './core/revertText';
import type { ItemChanges, RevertArgs, RevertResult } from './protocol';
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
    const entry = await this.latestEntry(node);
    if (!entry) {
      void vscode.window.showInformationMessage('Workspace Agent: nothing to revert: the agent changed no files from this step on.');
      return;
    }
    if (!entry.revertible) {
      void vscode.window.showInformationMessage(notRevertible(entry.notRevertibleReason ?? 'the agent changed no files from this step on'));
      return;
    }
    const target = revertTarget(entry.displayName);
    const args: RevertArgs = { sessionId, todoId: entry.todoId, key: entry.key };
    await this.askThenRevert(args, target, (plan) => confirmStepRevert(target, plan));
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
    const entry = await this.latestEntry(node);
    if (!entry) {
      void vscode.window.showInformationMessage('Workspace Agent: nothing to undo: the agent changed no files in this step.');
      return;
    }
    const name = entry.displayName;
    const args: RevertArgs = { sessionId, todoId: entry.todoId, key: entry.key, only: true };
    let plan;
    try {
      plan = await this.server.previewRevert(args);
    } catch (error) {
      void vscode.window.showWarningMessage(`Workspace Agent: ${messageOf(error)}`);
      return;
    }
    if (plan.conflicts?.length) {
      const { text, detail } = onlyConflictMessage(name, plan.conflicts);
      void vscode.window.showWarningMessage(text, { modal: true, detail });
      return;
    }
    if (changesNothing(plan)) {
      void vscode.window.showInformationMessage(`Workspace Agent: nothing to undo: the files of ${name} are already as before it.`);
      return;
    }
    const result = await this.confirmAndRevert(confirmOnlyRevert(name, plan), args, `could not undo ${name}`);
    if (!result) {
      return;
    }
    const message = onlyResultMessage(name, result);
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
    await this.askThenRevert({ sessionId, lastRun: true }, LAST_RUN_TARGET, (plan) => confirmLastRunRevert(plan, prompt));
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

  /** Undo on a revert's row in the Conversation view: that revert, undone as Undo Revert does. */
  async undoRevert(undoId: string): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!sessionId) {
      void vscode.window.showInformationMessage('Workspace Agent: there is no session whose revert could be undone.');
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
    const result = await this.confirmAndRevert(question, args, 'could not revert');
    if (!result) {
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

  /**
   * The modal question; once answered yes (and no run started meanwhile), the revert.
   * Undefined when the user said no or the server could not (an error toast that says
   * `failure`, e.g. "could not revert", then why).
   */
  private async confirmAndRevert(question: Confirmation, args: RevertArgs, failure: string): Promise<RevertResult | undefined> {
    const answer = await vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, question.action);
    if (answer !== question.action || (await this.refused())) {
      return undefined;
    }
    try {
      return await this.server.revert(args);
    } catch (error) {
      void vscode.window.showErrorMessage(`Workspace Agent: ${failure}: ${messageOf(error)}`);
      return undefined;
    }
  }

  /** The server's latest entry of a step row's occurrence (the row may be older). */
  private async latestEntry(node: StepNode): Promise<ItemChanges | undefined> {
    await this.changes.refresh();
    const current = this.changes.tracker.changes;
    return current && findEntry(current, node);
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
