/**
 * How a run's end is told, and what its fix buttons do (core/errorFixes.ts says which:
 * Retry, Continue, Set API Key, Open Settings, Restart Server, Show Transcript). In the
 * Conversation view its cards say it, the error card with its fixes; a failure without a
 * result (the server went away, or the run could not start) gets a card there too. When the
 * user is not at the view, a toast says it too, the fixes as its buttons.
 */
import * as vscode from 'vscode';
import { COMMAND_IDS } from './commands';
import { CONTINUE_PROMPT, type Fix, requestFailureFixes, runResultFixes } from './core/errorFixes';
import { resultMessage } from './core/status';
import type { RunOrigin } from './core/toasts';
import type { RunContext } from './protocol';
import type { RunEnd, Task } from './runs';
import type { Transcript } from './transcript';

/** What the fixes need of the runs (runs.ts): how each ended, and the last task for Retry. */
export interface EndedRuns {
  readonly onDidEnd: vscode.Event<RunEnd>;
  readonly lastTask: Task | undefined;
}

/** Where a retried or continued task goes (runQueue.ts). */
export interface RetrySink {
  submit(prompt: string, context?: RunContext, origin?: RunOrigin): void;
}

/** The Conversation view's error card. */
export interface FailureCards {
  failure(text: string, fixes: Fix[], prompt?: string): void;
}

export class RunFixes implements vscode.Disposable {
  private readonly ended: vscode.Disposable;

  constructor(
    private readonly runs: EndedRuns,
    private readonly queue: RetrySink,
    private readonly cards: FailureCards,
    private readonly transcript: Transcript,
  ) {
    this.ended = runs.onDidEnd((end) => this.tell(end));
  }

  /** A fix button on a Conversation card: `prompt` is its run's, for Retry. */
  async applyFix(fix: Fix, prompt?: string): Promise<void> {
    switch (fix.action) {
      case 'retry': {
        // The same task with the same context when it is the last one run here, else the card's words.
        const last = this.runs.lastTask;
        if (last && (!prompt || last.prompt === prompt)) {
          this.queue.submit(last.prompt, last.context, 'view');
        } else if (prompt) {
          this.queue.submit(prompt, undefined, 'view');
        }
        return;
      }
      case 'continue':
        this.queue.submit(CONTINUE_PROMPT, undefined, 'view');
        return;
      default:
        await this.doFix(fix, '', undefined);
    }
  }

  dispose(): void {
    this.ended.dispose();
  }

  private tell({ outcome, prompt, context, toast }: RunEnd): void {
    switch (outcome.kind) {
      case 'answered': {
        if (!toast) {
          return; // the Conversation view's cards say it, the error card with its fixes
        }
        const { severity, text } = resultMessage(outcome.result, outcome.planOfThisRun);
        const show =
          severity === 'error'
            ? vscode.window.showErrorMessage
            : severity === 'warning'
              ? vscode.window.showWarningMessage
              : vscode.window.showInformationMessage;
        this.offerFixes(show, text, runResultFixes(outcome.result), prompt, context);
        return;
      }
      case 'failed':
        this.cards.failure(`The run failed: ${outcome.text}`, requestFailureFixes(outcome.text), prompt);
        if (toast) {
          this.offerFixes(vscode.window.showErrorMessage, `Workspace Agent: the run failed: ${outcome.text}`, requestFailureFixes(outcome.text), prompt, context);
        }
        return;
      case 'notStarted':
        // Nothing ran: the task is kept for Retry.
        this.cards.failure(`Could not start the run: ${outcome.text}`, requestFailureFixes(outcome.text), prompt);
        if (toast) {
          this.offerFixes(vscode.window.showErrorMessage, `Workspace Agent: could not start the run: ${outcome.text}`, requestFailureFixes(outcome.text), prompt, context);
        }
        return;
    }
  }

  /** Shows the message with its fixes as buttons, and does the one chosen. */
  private offerFixes(
    show: (text: string, ...items: string[]) => Thenable<string | undefined>,
    text: string,
    fixes: Fix[],
    prompt: string,
    context?: RunContext,
  ): void {
    void show(text, ...fixes.map((fix) => fix.label)).then(async (answer) => {
      const fix = fixes.find((candidate) => candidate.label === answer);
      if (fix) {
        await this.doFix(fix, prompt, context);
      }
    });
  }

  /** Does what a fix button says (a toast's or a card's). */
  private async doFix(fix: Fix, prompt: string, context?: RunContext): Promise<void> {
    switch (fix.action) {
      case 'continue':
        this.queue.submit(CONTINUE_PROMPT, undefined, 'elsewhere');
        break;
      case 'setApiKey':
        await vscode.commands.executeCommand(COMMAND_IDS.setApiKey);
        break;
      case 'retry':
        this.queue.submit(prompt, context);
        break;
      case 'openSettings':
        await vscode.commands.executeCommand('workbench.action.openSettings', fix.setting);
        break;
      case 'restartServer':
        await vscode.commands.executeCommand(COMMAND_IDS.restartServer);
        break;
      case 'showTranscript':
        this.transcript.show();
        break;
    }
  }
}
