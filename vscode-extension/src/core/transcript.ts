/**
 * Formats workspaceAgent/event notifications as transcript lines.
 *
 * Text arrives in streamed pieces that do not end at line breaks; a log channel writes one
 * entry per call, so pieces are joined until a line is complete (or another event comes).
 * Tool calls and results appear as they happen. Pure, for unit tests; transcript.ts writes
 * the lines to a LogOutputChannel.
 */
import type { AgentEvent, StopReason } from '../protocol';

export interface TranscriptLine {
  level: 'info' | 'warn' | 'error';
  text: string;
}

const END_WORDS: Record<StopReason, string> = {
  end_turn: 'done',
  cancelled: 'cancelled',
  max_turns: 'stopped at the turn limit',
  budget: 'stopped at the token budget',
  error: 'stopped by an error',
};

const INDENT = '    ';

function indent(text: string): string[] {
  return text
    .replace(/\s+$/, '')
    .split(/\r?\n/)
    .map((line) => INDENT + line);
}

export class TranscriptFormatter {
  private pending = '';

  /** Lines to write for one event (possibly none while a text line is incomplete). */
  accept(event: AgentEvent): TranscriptLine[] {
    if (event.kind === 'text') {
      return this.text(event.text);
    }
    const lines = this.flush();
    switch (event.kind) {
      case 'runStart':
        lines.push(...event.prompt.trim().split(/\r?\n/).map((line, i) => info(i ? `  ${line}` : `▶ Task: ${line}`)));
        break;
      case 'toolCall':
        lines.push(info(`→ ${event.name}${event.summary ? `: ${event.summary}` : ''}${event.todoId ? ` [#${event.todoId}]` : ''}`));
        break;
      case 'toolResult': {
        const head = `← ${event.name} ${event.ok ? 'ok' : 'failed'}`;
        const level: TranscriptLine['level'] = event.ok ? 'info' : 'warn';
        lines.push({ level, text: head });
        if (event.output.trim()) {
          lines.push(...indent(event.output).map((text) => ({ level, text })));
        }
        break;
      }
      case 'reminder':
        lines.push(info(`· reminder: ${event.text}`));
        break;
      case 'retry':
        lines.push({ level: 'warn', text: `↻ model call ${event.attempt}/${event.maxAttempts} failed: ${event.message}` });
        break;
      case 'notice':
        lines.push({ level: 'warn', text: `ℹ ${event.message}` });
        break;
      case 'error':
        lines.push({ level: 'error', text: `✖ ${event.message}` });
        break;
      case 'runEnd': {
        const usage = event.usage ? ` (tokens: ${event.usage.inputTokens} in, ${event.usage.outputTokens} out)` : '';
        lines.push(info(`■ Run ${END_WORDS[event.stopReason] ?? event.stopReason}${usage}`));
        break;
      }
      default:
        break;
    }
    return lines;
  }

  /** Whatever text is still waiting for its line break. */
  flush(): TranscriptLine[] {
    if (!this.pending.trim()) {
      this.pending = '';
      return [];
    }
    const line = this.pending;
    this.pending = '';
    return [info(line)];
  }

  private text(piece: string): TranscriptLine[] {
    const parts = (this.pending + piece).split(/\r?\n/);
    this.pending = parts.pop() ?? '';
    return parts.filter((line) => line.trim()).map(info);
  }
}

function info(text: string): TranscriptLine {
  return { level: 'info', text };
}
