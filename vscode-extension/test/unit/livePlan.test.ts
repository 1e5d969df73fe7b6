import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { discardedPlan, livePlan, restoreDiscarded } from '../../src/core/livePlan';
import { planHeader } from '../../src/core/plan';
import type { TodoItem } from '../../src/protocol';

const drafted: TodoItem[] = [
  { id: '1', text: 'Read the parser', status: 'pending' },
  { id: '2', text: 'Fix the bug', status: 'pending' },
  { id: '3', text: 'Add a test', status: 'pending' },
  { id: '4', text: 'Run the tests', status: 'pending' },
];

describe('the live plan after Discard Plan (issue 50, item 5)', () => {
  const gone = discardedPlan('s1', drafted);

  it('a discarded draft is not the live plan: no rows, no "0/4"', () => {
    const items = livePlan(drafted, 's1', gone);
    assert.deepEqual(items, []);
    assert.equal(planHeader(items), '');
    assert.equal(planHeader(livePlan(drafted, 's1', undefined)), '0/4', 'without the discard it would show');
  });

  it('a new plan, the same plan being worked on, or another session shows again', () => {
    const next: TodoItem[] = [{ id: '1', text: 'Rename the helper', status: 'in_progress' }];
    assert.deepEqual(livePlan(next, 's1', gone), next);
    const working = drafted.map((item, index) => (index === 0 ? { ...item, status: 'in_progress' as const } : item));
    assert.deepEqual(livePlan(working, 's1', gone), working);
    assert.deepEqual(livePlan(drafted, 's2', gone), drafted);
    assert.deepEqual(livePlan(drafted.slice(0, 3), 's1', gone), drafted.slice(0, 3));
  });

  it('is read back from storage only in the shape it was kept in', () => {
    assert.deepEqual(restoreDiscarded(JSON.parse(JSON.stringify(gone))), gone);
    assert.equal(restoreDiscarded(undefined), undefined);
    assert.equal(restoreDiscarded({ sessionId: 's1', items: [{ id: 1 }] }), undefined);
    assert.equal(restoreDiscarded({ items: [] }), undefined);
  });
});
