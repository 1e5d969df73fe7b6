import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TranscriptFormatter } from '../../src/core/transcript';
import type { AgentEvent } from '../../src/protocol';

const s = { sessionId: 's1' };

function run(events: AgentEvent[]): string[] {
  const formatter = new TranscriptFormatter();
  const lines = events.flatMap((event) => formatter.accept(event));
  return [...lines, ...formatter.flush()].map((line) => `${line.level}: ${line.text}`);
}

describe('TranscriptFormatter', () => {
  it('joins streamed text pieces into lines', () => {
    assert.deepEqual(
      run([
        { ...s, kind: 'text', text: 'I will ' },
        { ...s, kind: 'text', text: 'plan first.\nThen wr' },
        { ...s, kind: 'text', text: 'ite.' },
      ]),
      ['info: I will plan first.', 'info: Then write.'],
    );
  });

  it('writes pending text before a tool call, then the call and its result as they come', () => {
    assert.deepEqual(
      run([
        { ...s, kind: 'runStart', prompt: 'Add a greeting' },
        { ...s, kind: 'text', text: 'Writing it now' },
        { ...s, kind: 'toolCall', toolUseId: 't1', name: 'write_file', summary: 'greeting.py', todoId: '2' },
        { ...s, kind: 'toolResult', toolUseId: 't1', name: 'write_file', ok: true, output: 'wrote 3 lines\n', todoId: '2' },
        { ...s, kind: 'toolCall', toolUseId: 't2', name: 'bash', summary: 'false', todoId: null },
        { ...s, kind: 'toolResult', toolUseId: 't2', name: 'bash', ok: false, output: 'exit status 1\nmore', todoId: null },
        { ...s, kind: 'runEnd', stopReason: 'end_turn', usage: { inputTokens: 120, outputTokens: 30 } },
      ]),
      [
        'info: ▶ Task: Add a greeting',
        'info: Writing it now',
        'info: → write_file: greeting.py [#2]',
        'info: ← write_file ok',
        'info:     wrote 3 lines',
        'info: → bash: false',
        'warn: ← bash failed',
        'warn:     exit status 1',
        'warn:     more',
        'info: ■ Run done (tokens: 120 in, 30 out)',
      ],
    );
  });

  it('logs errors as errors and says how a cancelled run ended', () => {
    assert.deepEqual(
      run([
        { ...s, kind: 'reminder', text: '<reminder>Update your todos.</reminder>' },
        { ...s, kind: 'retry', attempt: 1, maxAttempts: 4, delaySeconds: 2, reason: 'overloaded', message: 'retrying in 2 s (overloaded)' },
        { ...s, kind: 'notice', message: 'Ignored ANTHROPIC_BASE_URL from the workspace .env' },
        { ...s, kind: 'error', message: 'ANTHROPIC_API_KEY is not set' },
        { ...s, kind: 'runEnd', stopReason: 'cancelled', usage: { inputTokens: 0, outputTokens: 0 } },
      ]),
      [
        'info: · reminder: <reminder>Update your todos.</reminder>',
        'warn: ↻ model call 1/4 failed: retrying in 2 s (overloaded)',
        'warn: ℹ Ignored ANTHROPIC_BASE_URL from the workspace .env',
        'error: ✖ ANTHROPIC_API_KEY is not set',
        'info: ■ Run cancelled (tokens: 0 in, 0 out)',
      ],
    );
  });
});
