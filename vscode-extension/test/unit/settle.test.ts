import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SettleTracker } from '../../src/core/settle';

describe('SettleTracker', () => {
  const open = (...uris: string[]) => (uri: string) => uris.includes(uri);

  it('waits for an open document whose text changed until its problems are reported again', () => {
    const tracker = new SettleTracker();
    tracker.problems('file:///a.json'); // reported once when it was opened
    tracker.text('file:///a.json'); // the agent's edit
    assert.deepEqual(tracker.unsettled(['file:///a.json'], open('file:///a.json')), ['file:///a.json']);
    tracker.problems('file:///a.json');
    assert.deepEqual(tracker.unsettled(['file:///a.json'], open('file:///a.json')), []);
  });

  it('does not wait for documents that are not open or did not change', () => {
    const tracker = new SettleTracker();
    tracker.text('file:///closed.py');
    assert.deepEqual(tracker.unsettled(['file:///closed.py', 'file:///never.py'], open('file:///never.py')), []);
  });

  it('a report that came before the request counts (fast language servers)', () => {
    const tracker = new SettleTracker();
    tracker.text('file:///a.py');
    tracker.problems('file:///a.py');
    assert.deepEqual(tracker.unsettled(['file:///a.py'], open('file:///a.py')), []);
    tracker.text('file:///a.py');
    tracker.forget('file:///a.py');
    assert.deepEqual(tracker.unsettled(['file:///a.py'], open('file:///a.py')), []);
  });
});
