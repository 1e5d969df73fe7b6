import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Card, ConversationBuilder, type ConversationEvent, INTERRUPTED_WORDS, endWords } from '../../src/core/conversation';
import { isFromWebview } from '../../src/core/conversationStore';
import { revertRowDetail, revertRowText } from '../../src/core/revertText';
import { TranscriptFormatter } from '../../src/core/transcript';
import type { RevertEvent } from '../../src/protocol';

const steps = (todoId: string): string | undefined => ({ '2': 'Format the code' })[todoId];
const usage = { inputTokens: 10, outputTokens: 5 };

function build(events: ConversationEvent[]): Card[] {
  const builder = new ConversationBuilder(steps);
  for (const event of events) {
    builder.accept(event);
  }
  return [...builder.cards];
}

function revert(fields: Partial<Omit<RevertEvent, 'sessionId' | 'kind'>> = {}): ConversationEvent {
  return {
    kind: 'revert',
    action: 'revert',
    target: 'before plan item #2 "Format the code"',
    todoId: '2',
    restored: ['a.py', 'b.py', 'c.py'],
    deleted: [],
    skipped: [{ path: 'd.py', reason: 'changed after the agent\'s last change to it' }],
    undoId: 'u1',
    ...fields,
  };
}

const run: ConversationEvent[] = [
  { kind: 'runStart', prompt: 'Tidy up' },
  { kind: 'runEnd', stopReason: 'end_turn', usage },
];

describe('revert rows in the Conversation', () => {
  it('says what a revert took back, with its step and an Undo', () => {
    const rows = build([...run, revert()]).filter((card) => card.kind === 'revert');
    assert.deepEqual(rows, [
      {
        kind: 'revert',
        id: 'revert:u1',
        action: 'revert',
        text: 'Reverted to before step #2 “Format the code”: 3 files restored, 1 skipped',
        detail: "restored a.py\nrestored b.py\nrestored c.py\nskipped d.py (changed after the agent's last change to it)",
        warning: true,
        step: { todoId: '2', label: 'Plan item #2 · Format the code' },
        undoId: 'u1',
      },
    ]);
  });

  it('an undo marks its revert undone (no Undo any more) and adds its own row', () => {
    const cards = build([
      ...run,
      revert(),
      revert({ action: 'undo', todoId: null, restored: ['a.py', 'b.py', 'c.py'], skipped: [] }),
    ]);
    const rows = cards.filter((card): card is Extract<Card, { kind: 'revert' }> => card.kind === 'revert');
    assert.equal(rows.length, 2);
    assert.equal(rows[0]?.undone, true);
    assert.equal(rows[1]?.text, 'Undid the revert to before step #2 “Format the code”: 3 files put back');
    assert.equal(rows[1]?.undoId, undefined, 'an undo has no Undo of its own');
  });

  it('words Revert Last Run and Undo Only This Step', () => {
    const last = { action: 'revert' as const, target: 'the start of the last run', restored: [], deleted: ['x.py'], skipped: [] };
    assert.equal(revertRowText(last), 'Reverted the last run: 1 file deleted');
    assert.equal(revertRowText({ ...last, action: 'undo' }), 'Undid the revert of the last run: 1 file deleted again');
    const only = { action: 'only' as const, target: 'only plan item #3 "Rename"', restored: ['y.py'], deleted: [], skipped: [] };
    assert.equal(revertRowText(only), 'Undid only step #3 “Rename”: 1 file changed back');
    assert.equal(revertRowText({ ...only, restored: [] }), 'Undid only step #3 “Rename”: no file needed a change');
    assert.equal(revertRowDetail({ ...last, action: 'undo', restored: ['z.py'] }), 'put back z.py\ndeleted x.py');
  });

  it('a revert between runs does not make the next run read as cut short', () => {
    const cards = build([...run, revert(), { kind: 'runStart', prompt: 'Next' }, { kind: 'runEnd', stopReason: 'end_turn', usage }]);
    assert.ok(!cards.some((card) => card.kind === 'notice' && card.text === INTERRUPTED_WORDS), JSON.stringify(cards));
  });

  it('takes the Undo message from the webview', () => {
    assert.ok(isFromWebview({ type: 'undoRevert', undoId: 'u1' }));
    assert.ok(!isFromWebview({ type: 'undoRevert' }));
    assert.ok(!isFromWebview({ type: 'undoRevert', undoId: 3 }));
  });
});

describe('why a cancelled run stopped', () => {
  it('says the cause in its end row', () => {
    const end = (cause?: 'user' | 'reload' | 'restart' | 'serverStopped'): string | undefined => {
      const cards = build([{ kind: 'runStart', prompt: 'Wait' }, { kind: 'runEnd', stopReason: 'cancelled', usage, ...(cause ? { cause } : {}) }]);
      const row = cards.find((card) => card.kind === 'end');
      return row?.kind === 'end' ? row.text : undefined;
    };
    assert.equal(end('reload'), 'Stopped: the window was reloaded (or closed) · 15 tokens');
    assert.equal(end('user'), 'Stopped: you cancelled the run · 15 tokens');
    assert.equal(end('restart'), "Stopped: the agent's server was restarted · 15 tokens");
    assert.equal(end('serverStopped'), "Stopped: the agent's server stopped · 15 tokens");
    assert.equal(end(), 'Cancelled · 15 tokens', 'an older server gives no cause');
    assert.equal(endWords('max_turns', 'user'), 'Stopped at the turn limit', 'a cause is for cancelled runs only');
    assert.equal(endWords('max_turns', undefined, 50), 'Stopped at the turn limit (50 turns)');
    assert.equal(endWords('max_turns', undefined, 1), 'Stopped at the turn limit (1 turn)');
  });

  it('a question the run\'s end withdrew reads as not answered, and its command as stopped (not denied)', () => {
    const cards = build([
      { kind: 'runStart', prompt: 'Check' },
      { kind: 'toolCall', toolUseId: 't1', name: 'bash', summary: 'make check', todoId: null },
      { kind: 'approval', toolUseId: 't1', todoId: null, status: 'waiting', message: 'Run make check?' },
      { kind: 'approval', toolUseId: 't1', todoId: null, status: 'denied', message: '', reason: 'the run was cancelled before an answer' },
      { kind: 'toolResult', toolUseId: 't1', name: 'bash', ok: false, output: 'cancelled', todoId: null, exitCode: null, outputChars: 9, changes: [] },
      { kind: 'runEnd', stopReason: 'cancelled', usage, cause: 'reload' },
    ]);
    const question = cards.find((card) => card.kind === 'approval');
    assert.equal(question?.kind === 'approval' && question.unanswered, true);
    assert.equal(question?.kind === 'approval' && question.reason, undefined);
    const command = cards.find((card) => card.kind === 'command');
    assert.ok(command?.kind === 'command' && command.status === 'failed' && command.exitCode === null && command.denied === undefined, JSON.stringify(command));
  });

  it('and in the transcript', () => {
    const transcript = new TranscriptFormatter();
    const lines = transcript.accept({ sessionId: 's', kind: 'runEnd', stopReason: 'cancelled', usage, cause: 'reload' });
    assert.ok(lines.some((line) => line.text.startsWith('■ Run stopped: the window was reloaded (or closed)')), JSON.stringify(lines));
  });
});
