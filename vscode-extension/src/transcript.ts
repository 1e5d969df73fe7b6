/**
 * The live transcript: a LogOutputChannel fed by workspaceAgent/event as the run goes
 * (streamed text, tool calls, tool results, errors). Formatting is in core/transcript.ts.
 */
import * as vscode from 'vscode';
import { type TranscriptLine, TranscriptFormatter } from './core/transcript';
import type { AgentEvent } from './protocol';

export class Transcript implements vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel('Workspace Agent Transcript', { log: true });
  private readonly formatter = new TranscriptFormatter();

  accept(event: AgentEvent): void {
    this.write(this.formatter.accept(event));
  }

  /** A line of the extension's own (a new session, a restarted server). */
  note(text: string): void {
    this.write([...this.formatter.flush(), { level: 'info', text }]);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }

  private write(lines: TranscriptLine[]): void {
    for (const { level, text } of lines) {
      this.channel[level](text);
    }
  }
}
