import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isContract } from '../../src/contract';
import { ChangesTracker, hasLastRun } from '../../src/core/changes';
import type { ChangedFile, ChangesResult, ItemChanges } from '../../src/protocol';

const file = (path: string, change: ChangedFile['change'] = 'modified', additions = 1, deletions = 1): ChangedFile => ({
  path,
  change,
  additions,
  deletions,
});
let keys = 0;
/** An entry as the server sends it (its facts: the defaults of a step that can be reverted). */
const item = (todoId: string | null, files: ChangedFile[], commands: ItemChanges['commands'] = []): ItemChanges => ({
  todoId,
  key: `k${++keys}`,
  text: todoId === null ? null : `Step ${todoId}`,
  displayName: todoId === null ? 'the changes made before the plan' : `plan item #${todoId} "Step ${todoId}"`,
  run: 1,
  reverted: false,
  revertible: true,
  planRow: null,
  shown: true,
  files,
  commands,
});
const payload = (sessionId: string, items: ItemChanges[], reverts: ChangesResult['reverts'] = []): ChangesResult => ({ sessionId, items, reverts });

/** Read again (assert.equal(x, undefined) narrows the property for the compiler). */
const current = (tracker: ChangesTracker): ChangesResult | undefined => tracker.changes;

describe('the contract check of ChangesResult', () => {
  it('accepts the documented payload, reverts and binary files included', () => {
    const value = payload('s1', [item(null, [], [{ command: 'ls', exitCode: 0 }]), item('2', [{ ...file('a.png'), binary: true }], [{ command: 'x', exitCode: null }])], [
      { undoId: 'u1', target: 'before plan item #2', undone: false },
    ]);
    assert.ok(isContract('ChangesResult', value));
    assert.ok(isContract('ChangesResult', JSON.parse(JSON.stringify(value))));
  });

  it('accepts occurrences with their key, text, run and what the view shows of them, and the runs', () => {
    const value: ChangesResult = {
      sessionId: 's1',
      items: [
        { ...item('1', [file('a')]), key: 'i2', text: 'Write the parser', run: 1, shown: false },
        {
          ...item('1', [file('b')]),
          key: 'i9',
          text: 'Switch to commas',
          lastText: 'Switch to commas everywhere',
          run: 2,
          planRow: 'Switch to commas everywhere',
        },
        { ...item(null, [], [{ command: 'ls', exitCode: 0 }]), key: 'i7', text: null, run: 2, revertible: false, notRevertibleReason: 'the agent changed no files from the changes made before the plan on' },
      ],
      runs: [
        { run: 1, prompt: 'Write a parser', startedAt: '2026-10-01T09:00:00Z' },
        { run: 2, prompt: null, startedAt: '2026-10-01T09:05:00Z' },
      ],
      lastRun: 2,
      reverts: [],
    };
    assert.ok(isContract('ChangesResult', value));
    assert.ok(isContract('ChangesResult', { ...value, lastRun: null }));
  });

  it('refuses what the server does not promise', () => {
    for (const bad of [
      null,
      { items: [] },
      { sessionId: 's', items: [{ todoId: 2, files: [], commands: [] }] },
      { sessionId: 's', items: [{ todoId: '1', files: [{ path: 'a', change: 'renamed', additions: 0, deletions: 0 }], commands: [] }] },
      { sessionId: 's', items: [{ todoId: '1', files: [file('a')], commands: [{ command: 'ls', exitCode: '0' }] }] },
      { sessionId: 's', items: [], reverts: [{ undoId: 1, undone: false }] },
      { sessionId: 's', items: [{ ...item('1', []), key: 7 }] },
      { sessionId: 's', items: [{ ...item('1', []), text: 3 }] },
      { sessionId: 's', items: [{ ...item('1', []), run: '1' }] },
      { sessionId: 's', items: [{ todoId: '1', files: [], commands: [] }], reverts: [] },
      { sessionId: 's', items: [{ ...item('1', []), displayName: undefined }] },
      { sessionId: 's', items: [{ ...item('1', []), revertible: 'yes' }] },
      { sessionId: 's', items: [{ ...item('1', []), notRevertibleReason: false }] },
      { sessionId: 's', items: [{ ...item('1', []), planRow: undefined }] },
      { sessionId: 's', items: [{ ...item('1', []), shown: 1 }] },
      { sessionId: 's', items: [], runs: [{ run: '1', prompt: 'x' }] },
      { sessionId: 's', items: [], lastRun: '2' },
    ]) {
      assert.equal(isContract('ChangesResult', bad), false, JSON.stringify(bad));
    }
  });

  it('checks revert results, with the undo id only where there is one', () => {
    const result = { restored: ['a'], deleted: [], skipped: [{ path: 'b', reason: 'changed after the agent\'s last change to it' }] };
    assert.ok(isContract('RevertResult', { ...result, undoId: 'u' }));
    assert.equal(isContract('RevertResult', result), false);
    assert.ok(isContract('UndoRevertResult', result));
    assert.equal(isContract('UndoRevertResult', { ...result, skipped: ['b'] }), false);
  });

  it('takes a dry run\'s result only when it says it is one (nothing was changed)', () => {
    const result = { restored: ['a'], deleted: [], skipped: [] };
    assert.ok(isContract('RevertDryRunResult', { ...result, undoId: null, dryRun: true }));
    assert.equal(isContract('RevertDryRunResult', { ...result, undoId: 'u1' }), false, 'a server that reverted for real');
    assert.equal(isContract('RevertDryRunResult', { ...result, undoId: 'u1', dryRun: true }), false);
    assert.equal(isContract('RevertDryRunResult', { undoId: null, dryRun: true }), false);
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

  it('asks again when the plan gets other rows: the server tells the rows against its plan', () => {
    const tracker = new ChangesTracker();
    const plan = [
      { id: '1', text: 'Write the parser' },
      { id: '2', text: 'Add tests' },
    ];
    tracker.select('s1');
    assert.equal(tracker.planIs(plan), false, 'no changes loaded: the session\'s fetch tells');
    tracker.acceptNotification(payload('s1', [item('1', [file('a')])]));
    assert.equal(tracker.planIs(plan), false, 'the same rows');
    assert.equal(tracker.planIs(plan.map((todo) => ({ ...todo, status: 'completed' }))), false, 'statuses alone change no row');
    assert.ok(tracker.planIs([{ id: '1', text: 'Switch to commas' }, plan[1]]), 'a new plan reusing "1"');
    assert.ok(tracker.planIs(plan), 'back to the first');
    tracker.acceptNotification(payload('s1', []));
    assert.equal(tracker.planIs([]), false, 'no changes: nothing any row could show');
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

  it('knows the prompt of the run Revert Last Run goes back to', () => {
    const tracker = new ChangesTracker();
    tracker.select('s1');
    assert.equal(tracker.lastRunPrompt, undefined);
    const runs = [
      { run: 1, prompt: 'Write a parser', startedAt: '2026-10-01T09:00:00Z' },
      { run: 2, prompt: 'Make it split at commas', startedAt: '2026-10-01T09:05:00Z' },
    ];
    tracker.acceptNotification({ ...payload('s1', [item('1', [file('a')])]), runs, lastRun: 2 });
    assert.equal(tracker.lastRunPrompt, 'Make it split at commas');
    tracker.acceptNotification({ ...payload('s1', [item('1', [file('a')])]), runs: [{ ...runs[0], prompt: null }], lastRun: 1 });
    assert.equal(tracker.lastRunPrompt, undefined, 'not recorded');
    tracker.acceptNotification(payload('s1', [item('1', [file('a')])]));
    assert.equal(tracker.lastRunPrompt, undefined, 'an older server');
  });
});

describe('hasLastRun', () => {
  it('follows the server\'s lastRun: a run that changed files, or none', () => {
    const runs = [{ run: 1, prompt: 'Write a parser', startedAt: '2026-10-01T09:00:00Z' }];
    assert.ok(hasLastRun({ ...payload('s', [item('1', [file('a')])]), runs, lastRun: 1 }));
    assert.equal(hasLastRun({ ...payload('s', [item(null, [], [{ command: 'ls', exitCode: 0 }])]), runs, lastRun: null }), false);
    assert.equal(hasLastRun({ ...payload('s', [item('1', [file('a')])]), runs, lastRun: null }), false, 'the server decides');
  });

  it('from an older server (no lastRun): counts files only, commands alone change nothing to revert', () => {
    assert.equal(hasLastRun(undefined), false);
    assert.equal(hasLastRun(payload('s', [item(null, [], [{ command: 'ls', exitCode: 0 }])])), false);
    assert.ok(hasLastRun(payload('s', [item(null, [file('a')])])));
  });
});
