/**
 * The input boxes that ask the user for a task, then hand it to the queue (runQueue.ts):
 * Run Task… (with the active file and selection unless turned off), Ask About Selection…
 * (the editor's context menu) and the server's code actions, pointed here by
 * codeActions.ts (Fix runs at once, Ask asks first).
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import type { CodeActionRun } from './core/codeActions';
import { attachmentWords, editorContext } from './core/editorContext';
import { runTaskSessionWords } from './core/sessions';
import type { AgentState } from './core/state';
import { activeEditorContext, snapshot } from './editorContext';
import type { RunContext, RunMode } from './protocol';
import { readAttachActiveEditor, readContextMaxChars } from './settings';

/** Where a task goes (runQueue.ts): run now, or queued behind the run. */
export interface TaskSink {
  submit(prompt: string, context?: RunContext): void;
}

export class TaskInput {
  constructor(
    private readonly state: AgentState,
    private readonly server: AgentServer,
    /** The window's session was chosen since it opened (sessions.ts): Run Task's words. */
    private readonly sessions: { readonly restored: boolean },
    private readonly modes: { readonly mode: RunMode },
    private readonly queue: TaskSink,
  ) {}

  /**
   * Workspace Agent: Run Task…, with the active file and selection unless turned off. A
   * caller may suggest the task (`{prompt}`, e.g. the walkthrough's example): it is filled
   * in, and the user still confirms it.
   */
  async runTask(suggestion?: unknown): Promise<void> {
    void this.server.ensureStarted(); // while the user types: the SDK's import is then off the path
    const context = readAttachActiveEditor() ? activeEditorContext() : undefined;
    const attached = attachmentWords(context);
    const session = runTaskSessionWords({
      running: this.state.running,
      sessionId: this.state.sessionId,
      cleared: this.state.cleared,
      restored: this.sessions.restored,
    });
    const plan = this.modes.mode === 'plan';
    const planning = plan ? ' Plan mode: the agent plans first and changes nothing until you run the plan.' : '';
    const prompt = await vscode.window.showInputBox({
      title: plan ? 'Workspace Agent: Run Task (Plan Mode)' : 'Workspace Agent: Run Task',
      prompt: `${attached ? `${session} Attached: ${attached}.` : session}${planning}`,
      placeHolder: 'e.g. Fix the failing test in tests/test_parser.py',
      value: suggestedPrompt(suggestion),
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? undefined : 'Describe the task in a few words.'),
    });
    if (prompt?.trim()) {
      this.queue.submit(prompt.trim(), context);
    }
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

  /** A server code action, pointed here by codeActions.ts: Fix runs at once, Ask asks first. */
  async runCodeAction(run: CodeActionRun): Promise<void> {
    if (run.kind === 'ask' && run.context) {
      await this.ask(run.context, 'Workspace Agent: Ask About This', run.prompt);
      return;
    }
    this.queue.submit(run.prompt, run.context);
  }

  /** The input box for a question about `context`, then the run. */
  private async ask(context: RunContext, title: string, suggestion?: string): Promise<void> {
    void this.server.ensureStarted(); // as in runTask: start while the question is typed
    const queued = this.state.running ? ' (queued: it starts when the current run ends)' : '';
    const prompt = await vscode.window.showInputBox({
      title,
      prompt: `About ${attachmentWords(context) ?? 'the active file'}: ask a question or say what to change.${queued}`,
      placeHolder: 'e.g. Why does this return None for an empty list?',
      value: suggestion,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? undefined : 'Ask a question or give an instruction.'),
    });
    if (prompt?.trim()) {
      this.queue.submit(prompt.trim(), context);
    }
  }
}

/** The `prompt` of a command argument like `{prompt: "…"}`, else nothing. */
function suggestedPrompt(suggestion: unknown): string | undefined {
  const prompt = typeof suggestion === 'object' && suggestion !== null ? (suggestion as { prompt?: unknown }).prompt : undefined;
  return typeof prompt === 'string' ? prompt : undefined;
}
