import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentState, ranToCompletion } from '../../src/core/state';
import type { RunResult, TodoItem, TodosPayload } from '../../src/protocol';

const items = (...statuses: TodoItem['status'][]): TodoItem[] =>
  statuses.map((status, i) => ({ id: String(i + 1), text: `step ${i + 1}`, status }));

const todos = (sessionId: string, list: TodoItem[]): TodosPayload => ({
  sessionId,
  items: list,
  completed: list.filter((item) => item.status === 'completed').length,
  total: list.length,
});

const result = (sessionId: string, stopReason: RunResult['stopReason'], list: TodoItem[], error?: string): RunResult => ({
  sessionId,
  stopReason,
  text: '',
  todos: list,
  usage: { inputTokens: 1, outputTokens: 1 },
  ...(error ? { error } : {}),
});

describe('AgentState', () => {
  it("shows the current run's checkpoint preparation until it is ready or the run ends", () => {
    const state = new AgentState();
    const preparing = (sessionId: string, ready: boolean, message: string) =>
      ({ sessionId, kind: 'preparing', stored: ready ? 10 : 4, total: 10, ready, message }) as const;
    state.acceptPreparing(preparing('s1', false, 'Preparing checkpoints: 4 of 10 files'));
    assert.equal(state.preparing, undefined, 'no run: nothing to show it in');
    state.startRun('s1', 'go');
    state.acceptPreparing(preparing('s2', false, 'Preparing checkpoints: 4 of 10 files'));
    assert.equal(state.preparing, undefined, "another session's");
    state.acceptPreparing(preparing('s1', false, 'Preparing checkpoints: 4 of 10 files'));
    assert.equal(state.preparing, 'Preparing checkpoints: 4 of 10 files');
    state.acceptPreparing(preparing('s1', true, 'Checkpoints ready: 10 files stored in 1 s'));
    assert.equal(state.preparing, undefined);
    state.acceptPreparing(preparing('s1', false, 'Preparing checkpoints: 4 of 10 files'));
    state.finishRun(result('s1', 'end_turn', []));
    assert.equal(state.preparing, undefined, 'a run that ended prepares nothing');
  });

  it('replaces the plan on every notification of the current session', () => {
    const state = new AgentState();
    state.startRun('s1', 'task');
    assert.ok(state.acceptTodos(todos('s1', items('in_progress', 'pending'))));
    assert.ok(state.acceptTodos(todos('s1', items('completed', 'in_progress'))));
    assert.deepEqual(
      state.items.map((item) => item.status),
      ['completed', 'in_progress'],
    );
  });

  it('ignores notifications of another session', () => {
    const state = new AgentState();
    state.startRun('s1', 'task');
    assert.ok(!state.acceptTodos(todos('s0', items('pending'))));
    assert.deepEqual(state.items, []);
  });

  it('never shows a stale plan after New Session', () => {
    const state = new AgentState();
    state.startRun('s1', 'first');
    state.acceptTodos(todos('s1', items('completed', 'completed')));
    state.finishRun(result('s1', 'end_turn', items('completed', 'completed')));
    state.clearSession();
    assert.deepEqual(state.items, []);
    assert.equal(state.sessionId, undefined);
    // A late notification of the old session does not bring the old plan back.
    assert.ok(!state.acceptTodos(todos('s1', items('completed'))));
    state.startRun('s2', 'second');
    assert.deepEqual(state.items, []);
    assert.ok(state.acceptTodos(todos('s2', items('in_progress'))));
    assert.equal(state.items.length, 1);
  });

  it('keeps the plan when the next run continues the same session', () => {
    const state = new AgentState();
    state.startRun('s1', 'first');
    state.finishRun(result('s1', 'end_turn', items('completed')));
    state.startRun('s1', 'second');
    assert.equal(state.items.length, 1);
  });

  it('takes the plan of the result and remembers how the run ended', () => {
    const state = new AgentState();
    state.startRun('s1', 'task');
    state.finishRun(result('s1', 'cancelled', items('in_progress', 'pending')));
    assert.equal(state.running, false);
    assert.deepEqual(state.phase, { kind: 'finished', stopReason: 'cancelled' });
    assert.equal(state.items[0]?.status, 'in_progress');
  });

  it('keeps the session and its plan when the server stops (the server saved them)', () => {
    const idle = new AgentState();
    idle.startRun('s1', 'task');
    idle.finishRun(result('s1', 'end_turn', items('completed')));
    idle.serverStopped();
    assert.equal(idle.sessionId, 's1');
    assert.equal(idle.items.length, 1);
    assert.deepEqual(idle.phase, { kind: 'idle' });

    const busy = new AgentState();
    busy.startRun('s1', 'task');
    busy.acceptTodos(todos('s1', items('in_progress')));
    busy.serverStopped();
    assert.equal(busy.running, true, 'the run goes on until its request fails');
    assert.equal(busy.sessionId, 's1');
    busy.failRun('connection closed');
    assert.equal(busy.running, false);
    assert.equal(busy.items.length, 1);
  });

  it('resumes a saved session with its plan, from idle', () => {
    const state = new AgentState();
    state.startRun('s1', 'task');
    state.finishRun(result('s1', 'cancelled', items('in_progress')));
    assert.ok(state.resumeSession('s0', items('completed', 'completed', 'pending')));
    assert.equal(state.sessionId, 's0');
    assert.equal(state.items.length, 3);
    assert.deepEqual(state.phase, { kind: 'idle' }, "the other session's outcome is not this one's");
    assert.ok(state.acceptTodos(todos('s0', items('completed'))));
    assert.ok(!state.acceptTodos(todos('s1', items('pending'))));
  });

  it('keeps the last outcome when a restart confirms the same session', () => {
    const state = new AgentState();
    state.startRun('s1', 'task');
    state.finishRun(result('s1', 'end_turn', items('completed')));
    assert.ok(state.resumeSession('s1', items('completed')));
    assert.deepEqual(state.phase, { kind: 'finished', stopReason: 'end_turn' });
  });

  it('drops a session that was not saved', () => {
    const state = new AgentState();
    state.startRun('s1', 'task');
    state.failRun('no key');
    assert.ok(state.resumeSession(undefined, []));
    assert.equal(state.sessionId, undefined);
    assert.deepEqual(state.items, []);
  });

  it('refuses a resume while a run goes, or one read before the session changed', () => {
    const state = new AgentState();
    const before = state.epoch;
    state.startRun('s2', 'task');
    assert.ok(!state.resumeSession('s1', items('pending')), 'not during a run');
    state.finishRun(result('s2', 'end_turn', []));
    assert.ok(!state.resumeSession('s1', items('pending'), before), 'a stale restore');
    assert.equal(state.sessionId, 's2');
    const now = state.epoch;
    state.clearSession();
    assert.ok(!state.resumeSession('s1', items('pending'), now), 'New Session came in between');
    assert.equal(state.sessionId, undefined);
  });

  it('remembers New Session until the next run or resume', () => {
    const state = new AgentState();
    assert.equal(state.cleared, false);
    state.clearSession();
    assert.equal(state.cleared, true);
    state.serverStopped();
    assert.equal(state.cleared, true, 'a server restart keeps the clean start');
    state.startRun('s3', 'task');
    assert.equal(state.cleared, false);
    state.finishRun(result('s3', 'end_turn', []));
    state.clearSession();
    state.resumeSession('s1', []);
    assert.equal(state.cleared, false);
  });

  it('refuses a second run while one goes', () => {
    const state = new AgentState();
    state.startRun('s1', 'task');
    assert.throws(() => state.startRun('s1', 'another'), /already going/);
  });

  it('tells listeners about every change', () => {
    const state = new AgentState();
    let calls = 0;
    const subscription = state.onChange(() => calls++);
    state.startRun('s1', 'task');
    state.acceptTodos(todos('s1', items('pending')));
    state.failRun('server gone');
    subscription.dispose();
    state.clearSession();
    assert.equal(calls, 3);
  });
});

describe('AgentState.lastRun', () => {
  it('keeps the last run\'s usage and cost across server stops, resumes and new sessions', () => {
    const state = new AgentState();
    assert.equal(state.lastRun, undefined);
    state.startRun('s1', 'task');
    state.finishRun({ ...result('s1', 'end_turn', []), usage: { inputTokens: 7, outputTokens: 3 }, cost: { usd: 0.5, model: 'm' } });
    const expected = { usage: { inputTokens: 7, outputTokens: 3 }, cost: { usd: 0.5, model: 'm' } };
    assert.deepEqual(state.lastRun, expected);
    state.serverStopped();
    state.resumeSession('s2', []);
    state.clearSession();
    assert.deepEqual(state.lastRun, expected);
  });

  it('has no cost when the server sends none (no price known, or an older server)', () => {
    const state = new AgentState();
    state.startRun('s1', 'task');
    state.finishRun(result('s1', 'cancelled', []));
    assert.deepEqual(state.lastRun, { usage: { inputTokens: 1, outputTokens: 1 }, cost: null });
  });
});

describe('AgentState: what a new run shows, and questions waiting', () => {
  it('a new run does not show the plan an earlier run left, until it changes it', () => {
    const state = new AgentState();
    state.startRun('s1', 'plan it');
    state.acceptTodos(todos('s1', items('completed', 'completed')));
    state.finishRun(result('s1', 'end_turn', items('completed', 'completed')));
    state.startRun('s1', 'a question');
    assert.equal(state.items.length, 2, 'the Plan view keeps the plan');
    assert.deepEqual(state.runItems, [], 'the run has no progress of its own yet');
    state.acceptTodos(todos('s1', items('completed', 'completed'))); // sent again as the run starts
    assert.deepEqual(state.runItems, []);
    state.acceptTodos(todos('s1', items('in_progress')));
    assert.equal(state.runItems.length, 1, 'a new plan is the run\'s progress');
  });

  it('counts the questions waiting, and forgets them when the run ends', () => {
    const state = new AgentState();
    state.startRun('s1', 'task');
    state.approvalAsked({ toolUseId: 'a', todoId: '1' });
    state.approvalAsked({ toolUseId: 'b', todoId: null });
    state.approvalAsked({ toolUseId: 'a', todoId: '1' });
    assert.deepEqual(state.waiting.map((w) => w.toolUseId), ['b', 'a']);
    state.approvalDone('b');
    assert.deepEqual(state.waiting.map((w) => w.toolUseId), ['a']);
    state.finishRun(result('s1', 'cancelled', []));
    assert.deepEqual(state.waiting, []);
  });
});

describe('ranToCompletion: the walkthrough ticks a first task only when it did its task', () => {
  it('end_turn and planReady count; an error, a cancel or a running task do not', () => {
    assert.equal(ranToCompletion({ kind: 'finished', stopReason: 'end_turn' }), true);
    assert.equal(ranToCompletion({ kind: 'finished', stopReason: 'planReady' }), true);
    assert.equal(ranToCompletion({ kind: 'finished', stopReason: 'error', error: '401' }), false);
    assert.equal(ranToCompletion({ kind: 'finished', stopReason: 'cancelled' }), false);
    assert.equal(ranToCompletion({ kind: 'failed', error: 'server gone' }), false);
    assert.equal(ranToCompletion({ kind: 'running', prompt: 'x' }), false);
  });
});

describe('a revert after a failed run', () => {
  it('takes the stale error off the status (the last run\'s tokens stay); not during a run, not for another session', () => {
    const state = new AgentState();
    state.startRun('s1', 'Fix it');
    state.finishRun(result('s1', 'error', [], 'The model API is overloaded (529)'));
    state.reverted('s2');
    assert.equal(state.phase.kind, 'finished');
    state.reverted('s1');
    assert.deepEqual(state.phase, { kind: 'idle' });
    assert.ok(state.lastRun);
    state.startRun('s1', 'Again');
    state.reverted('s1');
    assert.equal(state.phase.kind, 'running');
  });
});

describe('the session the Conversation view shows', () => {
  it('an unsaved session stays shown (not current: the next task starts a new one) until a run, another session or New Session', () => {
    const state = new AgentState();
    state.startRun('failed', 'Summarize the notes');
    state.finishRun(result('failed', 'error', [], 'The model API is overloaded (529)'));
    assert.ok(state.resumeSession(undefined, [], state.epoch, 'failed'));
    assert.equal(state.sessionId, undefined);
    assert.equal(state.shownSessionId, 'failed');
    state.startRun('next', 'Summarize the notes');
    assert.equal(state.shownSessionId, 'next');
    state.finishRun(result('next', 'end_turn', []));

    state.resumeSession(undefined, [], undefined, 'failed');
    state.resumeSession('older', []);
    assert.equal(state.shownSessionId, 'older');
    state.resumeSession(undefined, [], undefined, 'failed');
    state.clearSession();
    assert.equal(state.shownSessionId, undefined);
  });
});
