/**
 * Subagents in the extension: their plans in the Plan view under the step that started
 * them (core/subagentPlans.ts), and their calls as one card group under the `task` card
 * in the Conversation view (core/conversation.ts, core/foldCards.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SubagentEvent, TodoItem } from '../../src/protocol';
import { changeTree, foldEarlier } from '../../src/core/changeRows';
import type { SubagentNode } from '../../src/core/changeRows';
import { type ConversationEvent } from '../../src/core/conversation';
import { ConversationStore } from '../../src/core/conversationStore';
import type { GroupCard, ShownCard } from '../../src/core/foldCards';
import { SubagentPlans, subagentWords, withSubagents } from '../../src/core/subagentPlans';

const plan: TodoItem[] = [
  { id: '1', text: 'Find the parser', status: 'in_progress' },
  { id: '2', text: 'Fix it', status: 'pending' },
];

function subagent(fields: Partial<SubagentEvent> = {}): SubagentEvent {
  return {
    sessionId: 's',
    kind: 'subagent',
    toolUseId: 'task_1',
    agent: 'explore',
    description: 'Find the parser',
    todoId: '1',
    items: [
      { id: '1', text: 'Search the sources', status: 'completed' },
      { id: '2', text: 'Read the lexer', status: 'in_progress' },
    ],
    toolCalls: 3,
    ...fields,
  };
}

describe('subagent plans in the Plan view', () => {
  it('shows a subagent under the step it works for, its own plan as its rows, live', () => {
    const plans = new SubagentPlans();
    let changed = 0;
    plans.onChange(() => changed++);
    plans.accept(subagent());
    const tree = withSubagents(foldEarlier(changeTree(plan, 's', undefined)), plans.of('s'));
    const step = tree[0];
    assert.ok(step?.kind === 'step');
    const [node] = step.children;
    assert.ok(node?.kind === 'subagent');
    assert.equal(node.label, 'explore: Find the parser');
    assert.equal(node.description, '1/2 · working');
    assert.equal(node.icon, 'loading~spin');
    assert.ok(node.running);
    assert.deepEqual(
      node.children.map((row) => [row.label, row.icon]),
      [
        ['Search the sources', 'pass-filled'],
        ['Read the lexer', 'loading~spin'],
      ],
    );
    assert.equal(node.children[1]?.accessibilityLabel, 'Read the lexer, in progress, in the subagent\'s plan');
    assert.equal(tree[1]?.kind === 'step' && tree[1].children.length, 0, 'the other step has none');
    assert.equal(changed, 1);
  });

  it('says how it ended, with its tokens and cost; stops the spinners when no run goes', () => {
    const done = subagent({
      items: [{ id: '1', text: 'Search the sources', status: 'completed' }],
      stopReason: 'end_turn',
      usage: { inputTokens: 1000, outputTokens: 234, cacheReadTokens: 0, cacheWriteTokens: 0 },
      cost: { usd: 0.0123, model: 'claude-sonnet-4-5' },
    });
    assert.equal(subagentWords(done), 'done · 1,234 tokens · ≈ $0.0123');
    assert.equal(subagentWords(subagent({ stopReason: 'max_turns', usage: { inputTokens: 5, outputTokens: 5 } })), 'stopped at its turn limit · 10 tokens');
    const plans = new SubagentPlans();
    plans.accept(done);
    const [step] = withSubagents(changeTree(plan, 's', undefined), plans.of('s'));
    const node = step?.kind === 'step' ? (step.children[0] as SubagentNode) : undefined;
    assert.equal(node?.icon, 'hubot');
    assert.equal(node?.running, false);
    const cut = new SubagentPlans();
    cut.accept(subagent());
    const [stoppedStep] = withSubagents(changeTree(plan, 's', undefined, true), cut.of('s'), true);
    const stopped = stoppedStep?.kind === 'step' ? (stoppedStep.children[0] as SubagentNode) : undefined;
    assert.equal(stopped?.icon, 'circle-slash');
    assert.equal(stopped?.description, '1/2 · stopped');
    assert.equal(stopped?.children[1]?.icon, 'debug-stop');
  });

  it('keeps each session\'s own, forgets them when the session runs again, and shows one of no step after the plan', () => {
    const plans = new SubagentPlans();
    plans.accept(subagent({ todoId: null, toolUseId: 'loose' }));
    plans.accept(subagent({ sessionId: 'other', toolUseId: 'elsewhere' }));
    assert.deepEqual(plans.of('s').map((p) => p.toolUseId), ['loose']);
    const tree = withSubagents(changeTree(plan, 's', undefined), plans.of('s'));
    assert.deepEqual(tree.map((node) => node.kind), ['step', 'step', 'subagent']);
    plans.accept({ sessionId: 's', kind: 'runStart', prompt: 'again' });
    assert.deepEqual(plans.of('s'), []);
    assert.equal(plans.of('other').length, 1);
  });
});

const events: ConversationEvent[] = [
  { kind: 'runStart', prompt: 'find the parser' },
  { kind: 'toolCall', toolUseId: 'task_1', name: 'task', summary: 'explore: Find the parser', todoId: '1' },
  { ...subagent({ stopReason: undefined }), sessionId: undefined } as unknown as ConversationEvent,
  { kind: 'toolCall', toolUseId: 'r1', name: 'read_file', summary: 'a.py', todoId: '1', parentToolUseId: 'task_1' },
  { kind: 'toolResult', toolUseId: 'r1', name: 'read_file', ok: true, output: 'a', todoId: '1', parentToolUseId: 'task_1' },
  { kind: 'toolCall', toolUseId: 'r2', name: 'read_file', summary: 'b.py', todoId: '1', parentToolUseId: 'task_1' },
  { kind: 'toolResult', toolUseId: 'r2', name: 'read_file', ok: true, output: 'b', todoId: '1', parentToolUseId: 'task_1' },
  { kind: 'toolCall', toolUseId: 'c1', name: 'bash', summary: 'grep -n parse', todoId: '1', parentToolUseId: 'task_1' },
];

function store(): ConversationStore {
  const made = new ConversationStore((id) => plan.find((item) => item.id === id)?.text);
  made.reset('s');
  return made;
}

describe('a subagent\'s cards in the Conversation view', () => {
  it('groups its calls under the task card, folded as the top level\'s are', () => {
    const conversation = store();
    for (const event of events) conversation.accept(event);
    const shown = conversation.shownCards();
    assert.deepEqual(shown.map((card) => card.id), ['p1', 'task_1']);
    const group = shown[1] as GroupCard;
    assert.equal(group.kind, 'group');
    assert.equal(group.task.name, 'Subagent');
    assert.deepEqual(group.task.subagent, { agent: 'explore', description: 'Find the parser', words: '1/2 · working', running: true });
    assert.deepEqual(group.members.map((card: ShownCard) => card.id), ['fold:r1', 'c1']);
    // the host's cards stay as they were: a Plan link still finds the task's card first
    assert.equal(conversation.firstCardOfStep('1'), 'task_1');
  });

  it('live: a call of the subagent redraws its group, and its end folds it with its cost', () => {
    const conversation = store();
    for (const event of events.slice(0, 5)) conversation.accept(event);
    const next = conversation.accept(events[5]);
    assert.ok(next.type === 'update');
    assert.deepEqual(next.upserts.map((card) => card.id), ['task_1'], 'the group, not a card at the end');
    assert.deepEqual(next.removed, []);
    const ended = conversation.accept({
      ...subagent({ stopReason: 'end_turn', usage: { inputTokens: 900, outputTokens: 100 }, cost: null }),
      sessionId: undefined,
    } as unknown as ConversationEvent);
    assert.ok(ended.type === 'update');
    const group = ended.upserts[0] as GroupCard;
    assert.equal(group.task.subagent?.words, 'done · 1,000 tokens');
    assert.equal(group.task.subagent?.running, false);
    const result = conversation.accept({ kind: 'toolResult', toolUseId: 'task_1', name: 'task', ok: true, output: 'The parser is in a.py.', todoId: '1' });
    assert.ok(result.type === 'update');
    assert.equal((result.upserts[0] as GroupCard).task.output, 'The parser is in a.py.');
  });

  it('keeps the hooks of its task call (SubagentStop) on the group, redrawn when one runs', () => {
    const conversation = store();
    for (const event of events) conversation.accept(event);
    const ran = conversation.accept({
      kind: 'hook', event: 'SubagentStop', hook: 'check.sh', command: '~/check.sh', source: 'user',
      origin: '~/.claude/settings.json:4', outcome: 'blocked', message: 'told the model: cite lines',
      durationMs: 12, exitCode: 2, output: 'cite lines', toolUseId: 'task_1',
    });
    assert.ok(ran.type === 'update');
    assert.deepEqual(ran.upserts.map((card) => card.id), ['task_1'], 'the group, not a row of its own');
    const group = ran.upserts[0] as GroupCard;
    assert.deepEqual(group.task.hooks?.map((row) => [row.text, row.warning]), [
      ['SubagentStop: check.sh — 12 ms · told the model: cite lines', true],
    ]);
  });
});
