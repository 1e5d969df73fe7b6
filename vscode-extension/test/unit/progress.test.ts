import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgressTracker } from '../../src/core/progress';
import type { TodoItem } from '../../src/protocol';

const items = (...statuses: TodoItem['status'][]): TodoItem[] =>
  statuses.map((status, i) => ({ id: String(i + 1), text: `step ${i + 1}`, status }));

describe('ProgressTracker', () => {
  it('reports the message and how far the bar moves', () => {
    const tracker = new ProgressTracker();
    assert.deepEqual(tracker.update([]), { message: 'working…' });
    assert.deepEqual(tracker.update(items('in_progress', 'pending', 'pending', 'pending')), {
      message: '0/4 · step 1',
    });
    assert.deepEqual(tracker.update(items('completed', 'in_progress', 'pending', 'pending')), {
      message: '1/4 · step 2',
      increment: 25,
    });
    assert.deepEqual(tracker.update(items('completed', 'completed', 'completed', 'in_progress')), {
      message: '3/4 · step 4',
      increment: 50,
    });
  });

  it('never moves the bar backwards when the plan grows', () => {
    const tracker = new ProgressTracker();
    tracker.update(items('completed', 'pending'));
    assert.deepEqual(tracker.update(items('completed', 'pending', 'pending', 'pending')), { message: '1/4' });
    assert.deepEqual(tracker.update(items('completed', 'completed', 'completed', 'completed')), {
      message: '4/4',
      increment: 50,
    });
  });
});
