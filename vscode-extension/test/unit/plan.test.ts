import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isContract } from '../../src/contract';
import { planBadge, planHeader, planProgress, planRows, planViewOpening, progressMessage, progressPercent, revertedItems } from '../../src/core/plan';
import type { TodoItem } from '../../src/protocol';

const plan: TodoItem[] = [
  { id: '1', text: 'Read the failing test', status: 'completed' },
  { id: '2', text: 'Fix the parser', status: 'in_progress' },
  { id: '3', text: 'Run the tests', status: 'pending' },
];

describe('planRows: a todos notification as tree rows', () => {
  it('makes one row per item, in order, labelled by the text with the id as description', () => {
    const rows = planRows(plan);
    assert.deepEqual(
      rows.map((row) => [row.label, row.description]),
      [
        ['Read the failing test', '#1'],
        ['Fix the parser', '#2'],
        ['Run the tests', '#3'],
      ],
    );
  });

  it('picks the icon by status, with the test-passed colour for completed items only', () => {
    const rows = planRows(plan);
    assert.deepEqual(
      rows.map((row) => [row.icon, row.iconColor]),
      [
        ['pass-filled', 'testing.iconPassed'],
        ['loading~spin', undefined],
        ['circle-large-outline', undefined],
      ],
    );
  });

  it('puts the status in the tooltip and the accessible label', () => {
    const [done, current, next] = planRows(plan);
    assert.equal(done?.tooltip, 'Read the failing test\nStatus: completed');
    assert.equal(current?.tooltip, 'Fix the parser\nStatus: in progress');
    assert.equal(next?.accessibilityLabel, 'Run the tests, pending');
  });

  it('gives no rows for an empty plan (the welcome view shows instead)', () => {
    assert.deepEqual(planRows([]), []);
  });
});

describe('plan progress', () => {
  it('counts completed items as "2/5" and names the current item', () => {
    const progress = planProgress(plan);
    assert.equal(progress.fraction, '1/3');
    assert.equal(progress.current?.text, 'Fix the parser');
  });

  it('words the message like the server does', () => {
    assert.equal(progressMessage(plan), '1/3 · Fix the parser');
    assert.equal(progressMessage(plan.map((item) => ({ ...item, status: 'completed' as const }))), '3/3');
    assert.equal(progressMessage([]), 'working…');
  });

  it('gives a percentage only when there is a plan', () => {
    assert.equal(progressPercent(plan), 33);
    assert.equal(progressPercent([]), undefined);
  });

  it('badges the view with the questions waiting for the user, not with completed items', () => {
    assert.equal(planBadge(0), undefined);
    assert.deepEqual(planBadge(1), { value: 1, tooltip: '1 question waits for your answer' });
    assert.deepEqual(planBadge(2), { value: 2, tooltip: '2 questions wait for your answer' });
  });
});

describe('the contract check of TodosPayload', () => {
  it('accepts the shape the server sends', () => {
    assert.ok(isContract('TodosPayload', { sessionId: 's1', items: plan, completed: 1, total: 3 }));
    assert.ok(isContract('TodosPayload', { sessionId: 's1', items: [], completed: 0, total: 0 }));
  });

  it('rejects anything else', () => {
    assert.ok(!isContract('TodosPayload', null));
    assert.ok(!isContract('TodosPayload', { items: plan }));
    assert.ok(!isContract('TodosPayload', { sessionId: 's1', items: [{ id: 1, text: 'x', status: 'pending' }] }));
  });
});

describe('an item in progress when no run goes', () => {
  it('shows as stopped (no spinner, and screen readers hear "stopped")', () => {
    const items = [
      { id: '1', text: 'Build', status: 'completed' as const },
      { id: '2', text: 'Test', status: 'in_progress' as const },
    ];
    const [done, halted] = planRows(items, true);
    assert.equal(done?.accessibilityLabel, 'Build, completed');
    assert.equal(halted?.accessibilityLabel, 'Test, stopped');
    assert.equal(halted?.icon, 'debug-stop');
    assert.equal(planRows(items)[1]?.icon, 'loading~spin');
  });
});

describe('planHeader: reverted steps are counted as such', () => {
  const done: TodoItem[] = plan.map((item) => ({ ...item, status: 'completed' }));
  const item = (todoId: string | null, reverted: boolean, shown = true) =>
    ({ todoId, key: `${todoId}`, text: null, displayName: '', run: 1, reverted, revertible: true, planRow: null, shown, files: [], commands: [] });
  it('says 0/3 · 3 reverted when every done step was reverted', () => {
    const reverted = revertedItems({ items: [item('1', true), item('2', true), item('3', true), item(null, true)] });
    assert.equal(planHeader(done, reverted), '0/3 · 3 reverted');
  });
  it('says 2/3 without reverts, and counts only the current rows', () => {
    assert.equal(planHeader(done.slice(0, 2).concat(plan[2])), '2/3');
    assert.equal(planHeader(done, revertedItems({ items: [item('3', true), item('1', false), item('2', true, false)] })), '2/3 · 1 reverted');
    assert.equal(planHeader([]), '');
  });
});

describe('the Plan view opening itself (planViewOpening)', () => {
  const start = { pending: false, hadRows: false };
  const watching = { planVisible: false, watching: true };

  it('opens when a plan first shows while the user watches the Conversation', () => {
    assert.deepEqual(planViewOpening(3, start, watching), { open: true, pending: false, hadRows: true });
  });

  it('stays as it is while empty, and once the plan has shown (the user may have folded it)', () => {
    assert.equal(planViewOpening(0, start, watching).open, false);
    assert.equal(planViewOpening(4, { pending: false, hadRows: true }, watching).open, false);
  });

  it('does nothing when the view is open already', () => {
    assert.deepEqual(planViewOpening(3, start, { planVisible: true, watching: true }), { open: false, pending: false, hadRows: true });
  });

  it('waits for the Conversation to show when nobody watches, then opens', () => {
    const waiting = planViewOpening(3, start, { planVisible: false, watching: false });
    assert.deepEqual(waiting, { open: false, pending: true, hadRows: true });
    assert.equal(planViewOpening(3, waiting, watching).open, true);
  });

  it('forgets a waiting opening when the plan is gone (New Session)', () => {
    assert.deepEqual(planViewOpening(0, { pending: true, hadRows: true }, watching), { open: false, pending: false, hadRows: false });
  });

  it('opens again for the next plan after an empty one', () => {
    const emptied = planViewOpening(0, { pending: false, hadRows: true }, watching);
    assert.equal(planViewOpening(2, emptied, watching).open, true);
  });
});
