import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isContract } from '../../src/contract';
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

  it('tells the checkpoint preparation when it is first reported, when a call waits, and when ready', () => {
    const at = (stored: number, extra: Partial<AgentEvent> = {}): AgentEvent =>
      ({ ...s, kind: 'preparing', stored, total: 12000, ready: false, message: `Preparing checkpoints: ${stored.toLocaleString('en-US')} of 12,000 files`, ...extra }) as AgentEvent;
    assert.deepEqual(
      run([
        { ...s, kind: 'text', text: 'Let me ' },
        at(2000),
        at(5000),
        { ...s, kind: 'text', text: 'look.\n' },
        at(7000, { waiting: 'write_file', message: 'Preparing checkpoints: 7,000 of 12,000 files (write_file waits for it)' }),
        at(9000, { waiting: 'write_file' }),
        at(12000, { ready: true, message: 'Checkpoints ready: 12,000 files stored in 3 s' }),
      ]),
      [
        'info: … Preparing checkpoints: 2,000 of 12,000 files',
        'info: Let me look.',
        'info: … Preparing checkpoints: 7,000 of 12,000 files (write_file waits for it)',
        'info: … Checkpoints ready: 12,000 files stored in 3 s',
      ],
    );
  });

  it('says which image and mentions a run carried', () => {
    assert.deepEqual(
      run([{ ...s, kind: 'runStart', prompt: 'Why?', mentions: ['@problems'], images: [{ mediaType: 'image/webp', width: 5, height: 7, bytes: 40 }] }]),
      ['info: ▶ Task: Why?', 'info:   attached: @problems · image WebP 5x7'],
    );
  });

  it('says what a run carried from the editor', () => {
    assert.deepEqual(
      run([{ ...s, kind: 'runStart', prompt: 'Why?', attached: 'selection src/app.py:4-6, 1 problem' }]),
      ['info: ▶ Task: Why?', 'info:   attached: selection src/app.py:4-6, 1 problem'],
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
        { ...s, kind: 'toolResult', toolUseId: 't2', name: 'bash', ok: false, output: 'no such file\nmore\n[exit status 1]', todoId: null },
        { ...s, kind: 'runEnd', stopReason: 'end_turn', usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 900, cacheWriteTokens: 0 } },
      ]),
      [
        'info: ▶ Task: Add a greeting',
        'info: Writing it now',
        'info: → write_file: greeting.py [#2]',
        'info: ← write_file ok',
        'info:     wrote 3 lines',
        'info: → bash: false',
        'warn: ← bash exit 1',
        'warn:     no such file',
        'warn:     more',
        'info: ■ Run done (tokens: 120 in, 900 cache read, 30 out)',
      ],
    );
  });

  it('logs a question and its answer, with the reason of a denial', () => {
    assert.deepEqual(
      run([
        { ...s, kind: 'approval', toolUseId: 't', todoId: null, status: 'waiting', message: 'Workspace Agent wants to run `rm -rf build`.' },
        { ...s, kind: 'approval', toolUseId: 't', todoId: null, status: 'denied', message: '', reason: 'keep the build' },
      ]),
      ['info: ? Workspace Agent wants to run `rm -rf build`. (waiting for your answer)', 'info: ✗ denied: “keep the build”'],
    );
  });

  it('logs errors as errors and says how a cancelled run ended (never the reminder)', () => {
    assert.deepEqual(
      run([
        { ...s, kind: 'reminder', text: '<reminder>Update your todos.</reminder>' },
        { ...s, kind: 'retry', attempt: 1, maxAttempts: 4, delaySeconds: 2, reason: 'overloaded', message: 'retrying in 2 s (overloaded)' },
        { ...s, kind: 'notice', message: 'Ignored ANTHROPIC_BASE_URL from the workspace .env' },
        { ...s, kind: 'error', message: 'ANTHROPIC_API_KEY is not set' },
        { ...s, kind: 'runEnd', stopReason: 'cancelled', usage: { inputTokens: 0, outputTokens: 0 } },
      ]),
      [
        'warn: ↻ model call 1/4 failed: retrying in 2 s (overloaded)',
        'warn: ℹ Ignored ANTHROPIC_BASE_URL from the workspace .env',
        'error: ✖ ANTHROPIC_API_KEY is not set',
        'info: ■ Run cancelled (tokens: 0 in, 0 out)',
      ],
    );
  });

  it('shows a retried model call with the server\'s message: when, and why', () => {
    assert.deepEqual(
      run([
        { ...s, kind: 'runStart', prompt: 'Fix it' },
        {
          ...s,
          kind: 'retry',
          attempt: 1,
          maxAttempts: 5,
          delaySeconds: 4,
          reason: 'rate limited, 429',
          message: 'retrying in 4.0s (rate limited, 429)',
        },
        { ...s, kind: 'text', text: 'All good now.\n' },
      ]),
      ['info: ▶ Task: Fix it', 'warn: ↻ model call 1/5 failed: retrying in 4.0s (rate limited, 429)', 'info: All good now.'],
    );
  });

  it('says when a retry drops text that was already streamed', () => {
    assert.deepEqual(
      run([
        { ...s, kind: 'text', text: 'Let me look at the pars' },
        { ...s, kind: 'retry', attempt: 2, maxAttempts: 5, delaySeconds: 2.5, reason: 'stream dropped', message: 'retrying in 2.5s (stream dropped)' },
        { ...s, kind: 'text', text: 'Let me look at the parser.\n' },
        { ...s, kind: 'toolCall', toolUseId: 't1', name: 'read_file', summary: 'parser.py', todoId: null },
        { ...s, kind: 'retry', attempt: 1, maxAttempts: 5, delaySeconds: 1, reason: 'overloaded, 529', message: 'retrying in 1.0s (overloaded, 529)' },
      ]),
      [
        'info: Let me look at the pars',
        'warn: ↻ model call 2/5 failed: retrying in 2.5s (stream dropped)',
        'warn:     the answer streamed above was cut off; it is asked for again',
        'info: Let me look at the parser.',
        'info: → read_file: parser.py',
        'warn: ↻ model call 1/5 failed: retrying in 1.0s (overloaded, 529)',
      ],
    );
  });

  it('words a retry from its fields when the message is missing', () => {
    const event = { ...s, kind: 'retry', attempt: 3, maxAttempts: 5, delaySeconds: 8, reason: 'server error, 500' } as unknown as AgentEvent;
    assert.deepEqual(run([event]), ['warn: ↻ model call 3/5 failed: retrying in 8.0s (server error, 500)']);
  });

  it('shows notices as warnings, every line of them', () => {
    assert.deepEqual(
      run([
        { ...s, kind: 'notice', message: 'Compacted the conversation: 12 old tool results became stubs.\nThe plan is kept.' },
        { ...s, kind: 'notice', message: 'session.jsonl: dropped a half-written last record (line 9)' },
      ]),
      [
        'warn: ℹ Compacted the conversation: 12 old tool results became stubs.',
        'warn:     The plan is kept.',
        'warn: ℹ session.jsonl: dropped a half-written last record (line 9)',
      ],
    );
  });
});

describe('the contract check of AgentEvent', () => {
  it('accepts an event with its session and a known kind', () => {
    assert.ok(isContract('AgentEvent', { sessionId: 's1', kind: 'text', text: 'hi' }));
    const usage = { inputTokens: 1, outputTokens: 2, cacheWriteTokens: 0, cacheReadTokens: 0 };
    assert.ok(isContract('AgentEvent', { sessionId: 's1', kind: 'runEnd', stopReason: 'end_turn', usage, cost: null }));
  });

  it('skips what is not one: a kind of a newer server, no session, not an object', () => {
    for (const value of [{ sessionId: 's1', kind: 'daydream' }, { kind: 'text', text: 'x' }, { sessionId: 7, kind: 'text' }, null, 'text', []]) {
      assert.equal(isContract('AgentEvent', value), false, JSON.stringify(value));
    }
  });
});

describe('the run end line', () => {
  it('adds the estimated cost when the server has one, and nothing when it has none', () => {
    const end = (cost: unknown): string[] =>
      new TranscriptFormatter()
        .accept({ sessionId: 's1', kind: 'runEnd', stopReason: 'end_turn', usage: { inputTokens: 120, outputTokens: 30 }, cost } as AgentEvent)
        .map((line) => line.text);
    assert.deepEqual(end({ usd: 0.00234, model: 'claude-haiku-4-5' }), ['■ Run done (tokens: 120 in, 30 out; ≈ $0.0023, estimated)']);
    assert.deepEqual(end(null), ['■ Run done (tokens: 120 in, 30 out)']);
  });
});
