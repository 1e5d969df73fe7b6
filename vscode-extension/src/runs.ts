/**
 * One run from the user's side: ask for the task, show a cancellable progress
 * notification while the server works, then say how it ended.
 *
 * Cancelling (the notification's Cancel button or the Cancel Run command) cancels the
 * request's token; vscode-languageclient sends `$/cancelRequest`, the server kills what the
 * run was doing and still answers with a RunResult whose stopReason is "cancelled".
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { COMMAND_IDS, RUNNING_CONTEXT } from './commands';
import { ProgressTracker } from './core/progress';
import type { AgentState } from './core/state';
import { resultMessage, shorten } from './core/status';
import { attachmentWords, editorContext } from './core/editorContext';
import type { CodeActionRun } from './core/codeActions';
import { activeEditorContext, snapshot } from './editorContext';
import type { RunContext, RunResult } from './protocol';
import { readAttachActiveEditor, readContextMaxChars } from './settings';
import type { SessionKeeper } from './sessions';
import type { Transcript } from './transcript';

const SHOW_TRANSCRIPT = 'Show Transcript';

export class RunController {
  private cancelSource: vscode.CancellationTokenSource | undefined;

  constructor(
    private readonly state: AgentState,
    private readonly server: AgentServer,
    private readonly transcript: Transcript,
    private readonly sessions: SessionKeeper,
  ) {}

  /**
   * Workspace Agent: Run Task…, with the active file and selection unless turned off. A
   * caller may suggest the task (`{prompt}`, e.g. the walkthrough's example): it is filled
   * in, and the user still confirms it.
   */
  async runTask(suggestion?: unknown): Promise<void> {
    if (await this.refuseWhileRunning('is already working on a task. Wait for it to finish, or cancel it first.')) {
      return;
    }
    const context = readAttachActiveEditor() ? activeEditorContext() : undefined;
    const attached = attachmentWords(context);
    const session = this.state.sessionId
      ? 'What should the agent do next? (continues the current session)'
      : 'What should the agent do? (starts a new session)';
    const prompt = await vscode.window.showInputBox({
      title: 'Workspace Agent: Run Task',
      prompt: attached ? `${session} Attached: ${attached}.` : session,
      placeHolder: 'e.g. Fix the failing test in tests/test_parser.py',
      value: suggestedPrompt(suggestion),
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? undefined : 'Describe the task in a few words.'),
    });
    if (!prompt?.trim() || (await this.refuseWhileRunning('is already working on a task.'))) {
      return;
    }
    await this.run(prompt.trim(), context);
  }

  /** Workspace Agent: Ask About Selection… (the editor's context menu, Ctrl+Shift+Alt+Q) */
  async askAboutSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('Workspace Agent: open a file and select the code to ask about.');
      return;
    }
    const context = editorContext(snapshot(editor), readContextMaxChars());
    if (!context) {
      void vscode.window.showWarningMessage(
        'Workspace Agent: the agent works inside the workspace folder; this file is outside it.',
      );
      return;
    }
    await this.ask(context, 'Workspace Agent: Ask About Selection');
  }

  /** A server code action, pointed here by client.ts: Fix runs at once, Ask asks first. */
  async runCodeAction(run: CodeActionRun): Promise<void> {
    if (run.kind === 'ask' && run.context) {
      await this.ask(run.context, 'Workspace Agent: Ask About This', run.prompt);
      return;
    }
    if (await this.refuseWhileRunning('is already working on a task. Wait for it to finish, or cancel it first.')) {
      return;
    }
    await this.run(run.prompt, run.context);
  }

  /** The input box for a question about `context`, then the run. */
  private async ask(context: RunContext, title: string, suggestion?: string): Promise<void> {
    if (await this.refuseWhileRunning('is already working on a task. Wait for it to finish, or cancel it first.')) {
      return;
    }
    const prompt = await vscode.window.showInputBox({
      title,
      prompt: `About ${attachmentWords(context) ?? 'the active file'}: ask a question or say what to change.`,
      placeHolder: 'e.g. Why does this return None for an empty list?',
      value: suggestion,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? undefined : 'Ask a question or give an instruction.'),
    });
    if (!prompt?.trim() || (await this.refuseWhileRunning('is already working on a task.'))) {
      return;
    }
    await this.run(prompt.trim(), context);
  }

  /** Workspace Agent: Cancel Run */
  cancelRun(): void {
    if (!this.cancelSource) {
      void vscode.window.showInformationMessage('Workspace Agent: no run is going.');
      return;
    }
    this.transcript.note('Cancelling the run…');
    this.cancelSource.cancel();
  }

  /** Workspace Agent: New Session */
  async newSession(): Promise<void> {
    if (await this.refuseWhileRunning('is working on a task. Cancel the run before starting a new session.')) {
      return;
    }
    this.state.clearSession();
    this.transcript.note('— New session —');
    void vscode.window.showInformationMessage('Workspace Agent: new session. The next task starts from a clean plan.');
  }

  /** Shows the polite refusal when a run is going; true when it refused. */
  async refuseWhileRunning(why: string): Promise<boolean> {
    if (!this.state.running) {
      return false;
    }
    const cancel = 'Cancel Run';
    const answer = await vscode.window.showInformationMessage(`Workspace Agent ${why}`, cancel, SHOW_TRANSCRIPT);
    if (answer === cancel) {
      this.cancelRun();
    } else if (answer === SHOW_TRANSCRIPT) {
      this.transcript.show();
    }
    return true;
  }

  private async run(prompt: string, context?: RunContext): Promise<void> {
    let sessionId: string;
    try {
      await this.sessions.ready(); // a session being restored right now is the one to continue
      sessionId = this.state.sessionId ?? (await this.server.newSession());
    } catch (error) {
      void vscode.window.showErrorMessage(`Workspace Agent: could not start the run: ${message(error)}`);
      return;
    }
    if (this.state.running) {
      return; // another Run Task won the race while the session was being created
    }
    const source = new vscode.CancellationTokenSource();
    this.cancelSource = source;
    this.state.startRun(sessionId, prompt);
    void vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, true);
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Workspace Agent', cancellable: true },
        (progress, token) => {
          const tracker = new ProgressTracker();
          progress.report({ message: shorten(prompt, 60) });
          const cancelled = token.onCancellationRequested(() => this.cancelRun());
          const planChanged = this.state.onChange(() => {
            if (this.state.running) {
              progress.report(tracker.update(this.state.items));
            }
          });
          return this.server
            .run({ prompt, sessionId, ...(context ? { context } : {}) }, source.token)
            .finally(() => {
              cancelled.dispose();
              planChanged.dispose();
            });
        },
      );
      this.finished(result);
    } catch (error) {
      this.failed(error);
    } finally {
      this.cancelSource = undefined;
      source.dispose();
      void vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, false);
    }
  }

  private finished(result: RunResult): void {
    this.state.finishRun(result);
    const { severity, text } = resultMessage(result);
    const show =
      severity === 'error'
        ? vscode.window.showErrorMessage
        : severity === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    void show(text, SHOW_TRANSCRIPT).then((answer) => {
      if (answer === SHOW_TRANSCRIPT) {
        this.transcript.show();
      }
    });
  }

  private failed(error: unknown): void {
    const text = message(error);
    this.state.failRun(text);
    this.transcript.note(`The run failed: ${text}`);
    const restart = 'Restart Server';
    void vscode.window
      .showErrorMessage(`Workspace Agent: the run failed: ${text}`, SHOW_TRANSCRIPT, restart)
      .then((answer) => {
        if (answer === SHOW_TRANSCRIPT) {
          this.transcript.show();
        } else if (answer === restart) {
          void vscode.commands.executeCommand(COMMAND_IDS.restartServer);
        }
      });
  }
}

/** The `prompt` of a command argument like `{prompt: "…"}`, else nothing. */
function suggestedPrompt(suggestion: unknown): string | undefined {
  const prompt = typeof suggestion === 'object' && suggestion !== null ? (suggestion as { prompt?: unknown }).prompt : undefined;
  return typeof prompt === 'string' ? prompt : undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
