/**
 * Formats workspaceAgent/event notifications as transcript lines.
 *
 * Text arrives in streamed pieces that do not end at line breaks; a log channel writes one
 * entry per call, so pieces are joined until a line is complete (or another event comes).
 * Tool calls and results appear as they happen (a command's with its exit status once);
 * questions and their answers too; the todo reminder (for the model) never. A retried model call is a warning that
 * says when the next attempt comes and why (the server's `message`), and, when the failed
 * call had already streamed text, that this text is dropped (the retry answers afresh).
 * Notices are warnings too. Pure, for unit tests; transcript.ts writes the lines to a
 * LogOutputChannel.
 */
import type { AgentEvent, StopCause, StopReason, Usage } from '../protocol';
import { attachedLine } from './attached';
import { exitCodeOf } from './conversation';
import { costAmount } from './status';

export interface TranscriptLine {
  level: 'info' | 'warn' | 'error';
  text: string;
}

const END_WORDS: Record<StopReason, string> = {
  end_turn: 'done',
  stop_sequence: 'done (at a stop sequence)',
  cancelled: 'cancelled',
  max_turns: 'stopped at the turn limit',
  budget: 'stopped at the token budget',
  refusal: 'the model declined the request',
  error: 'stopped by an error',
  planReady: 'the plan is ready',
};

/** Why a cancelled run stopped (runEnd's `cause`). */
const CAUSE_WORDS: Record<StopCause, string> = {
  user: 'cancelled by you',
  reload: 'stopped: the window was reloaded (or closed)',
  restart: "stopped: the agent's server was restarted",
  serverStopped: "stopped: the agent's server stopped",
};

const INDENT = '    ';

function indent(text: string): string[] {
  return text
    .replace(/\s+$/, '')
    .split(/\r?\n/)
    .map((line) => INDENT + line);
}

/** A message over several lines: the first after the marker, the others indented. */
function marked(level: TranscriptLine['level'], marker: string, message: string): TranscriptLine[] {
  const [first = '', ...rest] = message.trim().split(/\r?\n/);
  return [{ level, text: `${marker} ${first}` }, ...rest.map((line) => ({ level, text: INDENT + line }))];
}

/** The server's "retrying in 4.0s (rate limited, 429)", or the same words from the fields. */
function retryMessage(event: Extract<AgentEvent, { kind: 'retry' }>): string {
  if (typeof event.message === 'string' && event.message.trim()) {
    return event.message.trim();
  }
  const delay = typeof event.delaySeconds === 'number' ? `${event.delaySeconds.toFixed(1)}s` : 'a moment';
  return `retrying in ${delay}${event.reason ? ` (${event.reason})` : ''}`;
}

export class TranscriptFormatter {
  private pending = '';
  /** A `preparing` line was written, and whether it said that a call waits. */
  private preparing: { waitTold: boolean } | undefined;
  /** Text was streamed since the model call began (a retry drops it). */
  private streamed = false;

  /** Lines to write for one event (possibly none while a text line is incomplete). */
  accept(event: AgentEvent): TranscriptLine[] {
    if (event.kind === 'text') {
      this.streamed ||= event.text.trim() !== '';
      return this.text(event.text);
    }
    if (event.kind === 'preparing') {
      return this.preparingLine(event); // may come mid-answer: the text goes on after it
    }
    const lines = this.flush();
    const dropped = this.streamed;
    this.streamed = false;
    switch (event.kind) {
      case 'runStart':
        lines.push(...(event.said ?? event.prompt).trim().split(/\r?\n/).map((line, i) => info(i ? `  ${line}` : `▶ Task: ${line}`)));
        {
          const attached = attachedLine(event);
          if (attached) {
            lines.push(info(`  attached: ${attached}`));
          }
        }
        break;
      case 'toolCall':
        lines.push(info(`→ ${event.name}${event.summary ? `: ${event.summary}` : ''}${event.todoId ? ` [#${event.todoId}]` : ''}`));
        break;
      case 'toolResult': {
        // A command's head says its exit status once (not "ok" and then "[exit status 1]").
        const exit = exitCodeOf(event);
        const outcome = exit === undefined ? (event.ok ? 'ok' : 'failed') : exit === null ? 'did not finish' : `exit ${exit}`;
        const level: TranscriptLine['level'] = event.ok ? 'info' : 'warn';
        lines.push({ level, text: `← ${event.name} ${outcome}` });
        const output = exit === undefined ? event.output : event.output.replace(/\n?\[exit status -?\d+\]\s*$/, '');
        if (output.trim()) {
          lines.push(...indent(output).map((text) => ({ level, text })));
        }
        break;
      }
      case 'approval':
        if (event.status === 'waiting') {
          lines.push(info(`? ${event.message} (waiting for your answer)`));
        } else {
          lines.push(info(`${event.status === 'allowed' ? '✓ allowed' : '✗ denied'}${event.reason ? `: “${event.reason}”` : ''}`));
        }
        break;
      case 'reminder':
        break; // the todo nag is for the model, not for the user's log
      case 'retry': {
        const attempt = event.attempt && event.maxAttempts ? ` ${event.attempt}/${event.maxAttempts}` : '';
        lines.push({ level: 'warn', text: `↻ model call${attempt} failed: ${retryMessage(event)}` });
        if (dropped) {
          lines.push({ level: 'warn', text: `${INDENT}the answer streamed above was cut off; it is asked for again` });
        }
        break;
      }
      case 'notice':
        lines.push(...marked('warn', 'ℹ', event.message));
        break;
      case 'error':
        lines.push(...marked('error', '✖', event.message));
        break;
      case 'runEnd': {
        const cost = costAmount(event.cost);
        const usage = event.usage ? ` (tokens: ${usageWords(event.usage)}${cost ? `; ${cost}, estimated` : ''})` : '';
        const words = event.stopReason === 'cancelled' && event.cause ? CAUSE_WORDS[event.cause] : undefined;
        lines.push(info(`■ Run ${words ?? END_WORDS[event.stopReason] ?? event.stopReason}${usage}`));
        break;
      }
      default:
        break;
    }
    return lines;
  }

  /**
   * The checkpoint store's first scan, in a few lines: when it starts to be told, when a call
   * waits for it, and when it is ready; not the reports about every second between.
   */
  private preparingLine(event: Extract<AgentEvent, { kind: 'preparing' }>): TranscriptLine[] {
    const waiting = event.waiting !== undefined;
    if (event.ready) {
      const told = this.preparing !== undefined;
      this.preparing = undefined;
      return told ? [info(`… ${event.message}`)] : [];
    }
    if (this.preparing && (this.preparing.waitTold || !waiting)) {
      return [];
    }
    this.preparing = { waitTold: waiting };
    return [info(`… ${event.message}`)];
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

/** "120 in, 30 out", with the prompt-cache reads and writes when there were any. */
export function usageWords(usage: Usage): string {
  const parts = [`${usage.inputTokens} in`];
  if (usage.cacheReadTokens) parts.push(`${usage.cacheReadTokens} cache read`);
  if (usage.cacheWriteTokens) parts.push(`${usage.cacheWriteTokens} cache write`);
  parts.push(`${usage.outputTokens} out`);
  return parts.join(', ');
}
