/**
 * Plan or Act, the mode of the next task, as the user last picked it in this workspace
 * (the input box's switch, the Plan Mode / Act Mode commands): a task in plan mode is
 * explored and planned, nothing changed, until the user runs its plan. The context key
 * `workspaceAgent.planMode` follows it for package.json's `when` clauses.
 */
import * as vscode from 'vscode';
import { PLAN_MODE_CONTEXT } from './commands';
import { runMode } from './core/planDraft';
import type { RunMode } from './protocol';
import type { Transcript } from './transcript';

const MODE_KEY = 'workspaceAgent.runMode';

export class RunModeSetting implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** The user switched the mode. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly memento: vscode.Memento,
    private readonly transcript: Transcript,
  ) {
    void vscode.commands.executeCommand('setContext', PLAN_MODE_CONTEXT, this.mode === 'plan');
  }

  get mode(): RunMode {
    return runMode(this.memento.get<unknown>(MODE_KEY));
  }

  async setMode(mode: RunMode): Promise<void> {
    if (mode === this.mode) {
      return;
    }
    await this.memento.update(MODE_KEY, mode);
    void vscode.commands.executeCommand('setContext', PLAN_MODE_CONTEXT, mode === 'plan');
    this.transcript.note(mode === 'plan' ? 'Plan mode: the next task is planned first, nothing is changed.' : 'Act mode: the next task runs right away.');
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
