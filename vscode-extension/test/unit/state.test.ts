import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentState } from '../../src/core/state';
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

  it('forgets the session when the server stops, keeping a running plan until the run fails', () => {
    const idle = new AgentState();
    idle.startRun('s1', 'task');
    idle.finishRun(result('s1', 'end_turn', items('completed')));
    idle.serverStopped();
    assert.equal(idle.sessionId, undefined);
    assert.deepEqual(idle.items, []);

    const busy = new AgentState();
    busy.startRun('s1', 'task');
    busy.acceptTodos(todos('s1', items('in_progress')));
    busy.serverStopped();
    assert.equal(busy.sessionId, undefined);
    assert.equal(busy.items.length, 1);
    assert.ok(!busy.acceptTodos(todos('s1', items('completed'))), 'the dead session is not current');
    busy.failRun('connection closed');
    assert.equal(busy.running, false);
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
