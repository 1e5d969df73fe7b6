import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChangesTracker, changedSince, hasFileChanges, isChangesResult, isRevertResult } from '../../src/core/changes';
import type { ChangedFile, ChangesResult, ItemChanges } from '../../src/protocol';

const file = (path: string, change: ChangedFile['change'] = 'modified', additions = 1, deletions = 1): ChangedFile => ({
  path,
  change,
  additions,
  deletions,
});
const item = (todoId: string | null, files: ChangedFile[], commands: ItemChanges['commands'] = []): ItemChanges => ({ todoId, files, commands });
const payload = (sessionId: string, items: ItemChanges[], reverts: ChangesResult['reverts'] = []): ChangesResult => ({ sessionId, items, reverts });

/** Read again (assert.equal(x, undefined) narrows the property for the compiler). */
const current = (tracker: ChangesTracker): ChangesResult | undefined => tracker.changes;

describe('isChangesResult', () => {
  it('accepts the documented payload, reverts and binary files included', () => {
    const value = payload('s1', [item(null, [], [{ command: 'ls', exitCode: 0 }]), item('2', [{ ...file('a.png'), binary: true }], [{ command: 'x', exitCode: null }])], [
      { undoId: 'u1', target: 'before plan item #2', undone: false },
    ]);
    assert.ok(isChangesResult(value));
    assert.ok(isChangesResult(JSON.parse(JSON.stringify(value))));
  });

  it('refuses what the server does not promise', () => {
    for (const bad of [
      null,
      { items: [] },
      { sessionId: 's', items: [{ todoId: 2, files: [], commands: [] }] },
      { sessionId: 's', items: [{ todoId: '1', files: [{ path: 'a', change: 'renamed', additions: 0, deletions: 0 }], commands: [] }] },
      { sessionId: 's', items: [{ todoId: '1', files: [file('a')], commands: [{ command: 'ls', exitCode: '0' }] }] },
      { sessionId: 's', items: [], reverts: [{ undoId: 1, undone: false }] },
    ]) {
      assert.equal(isChangesResult(bad), false, JSON.stringify(bad));
    }
  });

  it('checks revert results, with the undo id only where there is one', () => {
    const result = { restored: ['a'], deleted: [], skipped: [{ path: 'b', reason: 'changed after the agent\'s last change to it' }] };
    assert.ok(isRevertResult({ ...result, undoId: 'u' }, true));
    assert.equal(isRevertResult(result, true), false);
    assert.ok(isRevertResult(result, false));
    assert.equal(isRevertResult({ ...result, skipped: ['b'] }, false), false);
  });
});

describe('ChangesTracker', () => {
  it('shows a notification of the current session only', () => {
    const tracker = new ChangesTracker();
    assert.equal(tracker.select('s1'), true);
    assert.equal(tracker.acceptNotification(payload('s2', [item('1', [file('a')])])), false);
    assert.equal(tracker.changes, undefined);
    assert.ok(tracker.acceptNotification(payload('s1', [item('1', [file('a')])])));
    assert.deepEqual(current(tracker)?.items.map((i) => i.todoId), ['1']);
  });

  it('asks for a fetch only when the session really changes, and forgets the old changes', () => {
    const tracker = new ChangesTracker();
    let calls = 0;
    tracker.onChange(() => calls++);
    assert.equal(tracker.select(undefined), false);
    assert.ok(tracker.select('s1'));
    tracker.acceptNotification(payload('s1', [item('1', [file('a')])]));
    assert.equal(tracker.select('s1'), false);
    assert.ok(tracker.changes);
    assert.equal(tracker.select(undefined), false, 'no session: nothing to fetch');
    assert.equal(tracker.changes, undefined);
    assert.equal(tracker.beginFetch(), undefined);
    assert.equal(calls, 3);
  });

  it('drops a fetched answer that a notification overtook, or that belongs to the old session', () => {
    const tracker = new ChangesTracker();
    tracker.select('s1');
    const slow = tracker.beginFetch();
    assert.ok(slow);
    tracker.acceptNotification(payload('s1', [item('1', [file('a')]), item('2', [file('b')])]));
    assert.equal(tracker.acceptFetched(slow, payload('s1', [item('1', [file('a')])])), false);
    assert.equal(tracker.changes?.items.length, 2, 'the newer notification stays');

    const fresh = tracker.beginFetch();
    assert.ok(fresh);
    tracker.select('s2');
    assert.equal(tracker.acceptFetched(fresh, payload('s1', [])), false);
    assert.equal(tracker.changes, undefined);
    const mine = tracker.beginFetch();
    assert.ok(mine);
    assert.ok(tracker.acceptFetched(mine, payload('s2', [item('1', [file('c')])])));
    assert.equal(current(tracker)?.sessionId, 's2');
  });

  it('offers the newest revert for undo until it is undone', () => {
    const tracker = new ChangesTracker();
    tracker.select('s1');
    assert.equal(tracker.undoableRevert, undefined);
    tracker.acceptNotification(payload('s1', [], [{ undoId: 'u1', target: 't', undone: true }, { undoId: 'u2', target: 't', undone: false }]));
    assert.equal(tracker.undoableRevert, 'u2');
    tracker.acceptNotification(payload('s1', [], [{ undoId: 'u1', target: 't', undone: true }, { undoId: 'u2', target: 't', undone: true }]));
    assert.equal(tracker.undoableRevert, undefined);
  });

  describe('the last run (Revert Last Run\'s list)', () => {
    it('is what changed since the run that changed files started', () => {
      const tracker = new ChangesTracker();
      tracker.select('s1');
      const ticket = tracker.beginFetch();
      assert.ok(ticket);
      const first = payload('s1', [item('1', [file('a.py'), file('b.py', 'added', 3, 0)])]);
      tracker.acceptFetched(ticket, first);
      tracker.runStarted('s1');
      // The run changes a.py again under item 1, adds c.py under item 2, deletes d.py.
      tracker.acceptNotification(payload('s1', [item('1', [file('a.py', 'modified', 2, 1), file('b.py', 'added', 3, 0)])]));
      tracker.acceptNotification(
        payload('s1', [item('1', [file('a.py', 'modified', 2, 1), file('b.py', 'added', 3, 0)]), item('2', [file('c.py', 'added'), file('d.py', 'deleted')])]),
      );
      assert.deepEqual(tracker.lastRunFiles(), ['a.py', 'c.py', 'd.py']);

      // A later run that changes no file (a question) leaves "the last run" where it was.
      const now = tracker.changes;
      assert.ok(now);
      tracker.runStarted('s1');
      tracker.acceptNotification({ ...now, items: [...now.items, item('3', [], [{ command: 'pytest', exitCode: 0 }])] });
      assert.deepEqual(tracker.lastRunFiles(), ['a.py', 'c.py', 'd.py']);
    });

    it('in a new session: everything the run changed, once the first fetch answered', () => {
      const tracker = new ChangesTracker();
      tracker.select('new');
      const ticket = tracker.beginFetch();
      assert.ok(ticket);
      tracker.runStarted('new'); // the fetch has not answered yet
      tracker.acceptFetched(ticket, payload('new', []));
      tracker.acceptNotification(payload('new', [item('1', [file('x.py', 'added')])]));
      assert.deepEqual(tracker.lastRunFiles(), ['x.py']);
    });

    it('is unknown when the run started before this window knew the changes (a reload)', () => {
      const tracker = new ChangesTracker();
      tracker.select('s1');
      tracker.runStarted('s1');
      tracker.acceptNotification(payload('s1', [item('1', [file('x.py')])]));
      assert.equal(tracker.lastRunFiles(), undefined);
      const resumed = new ChangesTracker();
      resumed.select('s1');
      const ticket = resumed.beginFetch();
      assert.ok(ticket);
      resumed.acceptFetched(ticket, payload('s1', [item('1', [file('x.py')])]));
      assert.equal(resumed.lastRunFiles(), undefined);
    });
  });
});

describe('changedSince and hasFileChanges', () => {
  it('compare per item and path; files that left the payload count too', () => {
    const before = payload('s', [item('1', [file('a'), file('gone')])]);
    const after = payload('s', [item('1', [file('a')]), item('2', [file('a', 'modified', 5, 0)])]);
    assert.deepEqual(changedSince(before, after), ['a', 'gone']);
    assert.deepEqual(changedSince(after, after), []);
  });

  it('count files only: commands alone change nothing to revert', () => {
    assert.equal(hasFileChanges(undefined), false);
    assert.equal(hasFileChanges(payload('s', [item(null, [], [{ command: 'ls', exitCode: 0 }])])), false);
    assert.ok(hasFileChanges(payload('s', [item(null, [file('a')])])));
  });
});
