import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Card, ConversationBuilder, type ConversationEvent, hookRow } from '../../src/core/conversation';
import { addCheckPrompt, checkWords, itemCheckParams, planRows } from '../../src/core/plan';
import type { HookEvent, TodoItem } from '../../src/protocol';

type HookFields = Omit<HookEvent, 'sessionId'>;

function hook(fields: Partial<HookFields>): HookFields {
  return {
    kind: 'hook',
    event: 'PostToolUse',
    hook: 'prettier',
    command: 'jq -r .tool_input.file_path | xargs npx prettier --write',
    source: 'user',
    origin: '~/.claude/settings.json:7',
    outcome: 'ok',
    message: 'ok',
    durationMs: 120,
    exitCode: 0,
    output: '',
    ...fields,
  };
}

function build(events: ConversationEvent[]): Card[] {
  const builder = new ConversationBuilder((id) => (id === '1' ? 'Fix the parser' : undefined));
  for (const event of events) {
    builder.accept(event);
  }
  return [...builder.cards];
}

describe('hook rows in the Conversation', () => {
  it("folds a call's hooks under its card, in the order they ran, through its result", () => {
    const cards = build([
      { kind: 'toolCall', toolUseId: 't1', name: 'write_file', summary: 'src/app.py', todoId: '1' },
      hook({ toolUseId: 't1', event: 'PreToolUse', hook: 'guard.sh', durationMs: 4 }),
      hook({ toolUseId: 't1' }),
      { kind: 'toolResult', toolUseId: 't1', name: 'write_file', ok: true, output: 'Wrote src/app.py', todoId: '1', exitCode: null, outputChars: 16, changes: [] },
    ]);
    assert.equal(cards.length, 1);
    const [edit] = cards;
    assert.ok(edit?.kind === 'edit' && edit.status === 'ok');
    assert.deepEqual(edit.hooks?.map((row) => row.text), ['PreToolUse: guard.sh — 4 ms', 'PostToolUse: prettier — 120 ms']);
    assert.equal(edit.hooks?.[1]?.detail, 'jq -r .tool_input.file_path | xargs npx prettier --write\n~/.claude/settings.json:7');
  });

  it('names what a refusing hook said, and marks it', () => {
    const row = hookRow(hook({ event: 'PreToolUse', hook: 'guard.sh', outcome: 'blocked', message: 'blocked the call: no rm -rf', exitCode: 2, output: 'no rm -rf' }));
    assert.equal(row.text, 'PreToolUse: guard.sh — 120 ms · blocked the call: no rm -rf');
    assert.ok(row.warning);
    const sandboxed = hookRow(hook({ source: 'workspace', sandboxed: true, origin: '.claude/settings.json:3' }));
    assert.match(sandboxed.detail, /\.claude\/settings\.json:3, in the sandbox$/);
  });

  it("gives a hook of no call a row of its own, with the plan step it checked", () => {
    const cards = build([
      hook({ event: 'UserPromptSubmit', hook: 'context.sh' }),
      hook({ event: 'TaskCompleted', hook: 'check', source: 'item', todoId: '1', outcome: 'blocked', message: 'kept the item open: 1 failed', output: '1 failed' }),
    ]);
    assert.deepEqual(
      cards.map((card) => (card.kind === 'hook' ? [card.row.text, card.step?.label] : card.kind)),
      [
        ['UserPromptSubmit: context.sh — 120 ms', undefined],
        ['TaskCompleted: check — 120 ms · kept the item open: 1 failed', 'Plan item #1 · Fix the parser'],
      ],
    );
  });
});

describe("a plan item's check in the Plan view", () => {
  const failed: TodoItem = {
    id: '2',
    text: 'Fix the parser',
    status: 'in_progress',
    check: { passed: false, firstLine: '1 failed, 3 passed', output: 'F...\n1 failed, 3 passed', hook: 'check', durationMs: 2140 },
    checkCommand: 'pytest -q tests/test_parser.py',
  };

  it('says it after the id, and the output in the tooltip', () => {
    const [row] = planRows([failed]);
    assert.equal(row?.description, '#2 · check failed: 1 failed, 3 passed');
    assert.equal(
      row?.tooltip,
      'Fix the parser\nStatus: in progress\nIts check: pytest -q tests/test_parser.py\ncheck failed: 1 failed, 3 passed (its own check, 2140 ms)\nF...\n1 failed, 3 passed',
    );
    assert.equal(row?.accessibilityLabel, 'Fix the parser, in progress, check failed: 1 failed, 3 passed');
    assert.equal(checkWords({ passed: true, firstLine: '', output: '', hook: 'pytest', durationMs: 1 }), 'check passed');
    const [plain] = planRows([{ id: '1', text: 'Plan', status: 'pending' }]);
    assert.equal(plain?.description, '#1');
  });

  it("turns Add Check…'s answer into workspaceAgent/setItemCheck's params", () => {
    assert.deepEqual(itemCheckParams('s1', '2', '  npm test  '), { sessionId: 's1', todoId: '2', command: 'npm test' });
    assert.deepEqual(itemCheckParams('s1', '2', '   '), { sessionId: 's1', todoId: '2', command: null });
    assert.equal(itemCheckParams('s1', '2', undefined), undefined);
    assert.equal(addCheckPrompt(failed).value, 'pytest -q tests/test_parser.py');
  });
});
