import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CHANGES_NOTIFICATION,
  EVENT_NOTIFICATION,
  notificationProblem,
  commandResultProblem,
  FILE_VERSION_REQUEST,
  GET_TODOS_COMMAND,
  problemIn,
  resultProblem,
  REVERT_COMMAND,
  SANDBOX_NOTIFICATION,
  TODOS_NOTIFICATION,
} from '../../src/protocol';

const todos = { sessionId: 's', items: [{ id: '1', text: 'Parse', status: 'pending' }], completed: 0, total: 1 };
const toolResult = {
  sessionId: 's',
  kind: 'toolResult',
  toolUseId: 't1',
  name: 'bash',
  ok: true,
  output: 'ok',
  todoId: null,
  exitCode: 0,
  outputChars: 2,
  changes: [{ path: 'a.py', change: 'modified', additions: 1, deletions: 0 }],
};
const changes = {
  sessionId: 's',
  items: [{ todoId: '1', key: 'i3', text: 'Parse', displayName: 'plan item #1 "Parse"', run: 1, reverted: false, revertible: true, planRow: 'Parse', shown: true, files: [], commands: [{ command: 'make', exitCode: null, toolUseId: 't1' }] }],
  runs: [{ run: 1, prompt: null, startedAt: '2026-01-01T00:00:00Z' }],
  lastRun: 1,
  reverts: [],
};

describe('the contract\'s runtime checks (contract.ts)', () => {
  it('accept what the server sends, extra fields and older servers\' missing ones included', () => {
    assert.equal(notificationProblem(TODOS_NOTIFICATION, todos), undefined);
    assert.equal(notificationProblem(EVENT_NOTIFICATION, toolResult), undefined);
    assert.equal(notificationProblem(EVENT_NOTIFICATION, { ...toolResult, sandboxed: true, newerField: 1 }), undefined);
    const older: Record<string, unknown> = { ...toolResult };
    delete older.exitCode;
    delete older.outputChars;
    delete older.changes;
    assert.equal(notificationProblem(EVENT_NOTIFICATION, older), undefined);
    assert.equal(notificationProblem(CHANGES_NOTIFICATION, changes), undefined);
    assert.equal(notificationProblem(CHANGES_NOTIFICATION, { sessionId: 's', items: [], reverts: [] }), undefined);
    const oldJournal = { ...changes, items: [{ ...changes.items[0], run: null }] };
    assert.equal(notificationProblem(CHANGES_NOTIFICATION, oldJournal), undefined);
    const sandbox = { mode: 'auto', active: false, reason: 'bwrap is not installed', fix: null, message: 'sandbox: off' };
    assert.equal(notificationProblem(SANDBOX_NOTIFICATION, sandbox), undefined);
  });

  it('say where a payload is wrong and how', () => {
    const bad = { ...todos, items: [{ id: '1', text: 'Parse', status: 'done' }] };
    assert.equal(
      notificationProblem(TODOS_NOTIFICATION, bad),
      'workspaceAgent/todos.items[0].status: expected "pending" | "in_progress" | "completed", got "done"',
    );
    assert.equal(notificationProblem(TODOS_NOTIFICATION, { ...todos, items: 3 }), 'workspaceAgent/todos.items: expected a list, got 3');
    assert.equal(notificationProblem(TODOS_NOTIFICATION, null), 'workspaceAgent/todos: expected an object (TodosPayload), got null');
    const noOutput: Record<string, unknown> = { ...toolResult };
    delete noOutput.output;
    assert.equal(notificationProblem(EVENT_NOTIFICATION, noOutput), 'workspaceAgent/event toolResult.output is missing');
    assert.equal(
      notificationProblem(EVENT_NOTIFICATION, { sessionId: 's', kind: 'runEnd', stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 2 }, cost: 'free' }),
      'workspaceAgent/event runEnd.cost: expected CostEstimate | null, got "free"',
    );
    assert.equal(
      notificationProblem(CHANGES_NOTIFICATION, { ...changes, items: [{ ...changes.items[0], files: [{ path: 'a', change: 'renamed', additions: 0, deletions: 0 }] }] }),
      'workspaceAgent/changes.items[0].files[0].change: expected "added" | "modified" | "deleted", got "renamed"',
    );
    assert.equal(
      notificationProblem(CHANGES_NOTIFICATION, { ...changes, lastRun: 1.5 }),
      'workspaceAgent/changes.lastRun: expected integer | null, got 1.5',
    );
  });

  it('name an event kind they do not know, and a notification that is not in the contract', () => {
    assert.match(
      notificationProblem(EVENT_NOTIFICATION, { sessionId: 's', kind: 'daydream', text: '...' }) ?? '',
      /^workspaceAgent\/event\.kind: "daydream" is not an event kind this extension knows \(runStart, text, /,
    );
    assert.equal(notificationProblem(EVENT_NOTIFICATION, { kind: 'text', text: 'hi' }), 'workspaceAgent/event.sessionId: expected a string, got undefined');
    assert.equal(notificationProblem('workspaceAgent/other', {}), 'workspaceAgent/other is not a notification of the contract');
  });

  it('check history entries as events without sessionId, with their place', () => {
    const page = { sessionId: 's', entries: [{ kind: 'text', text: 'hi', seq: 0, run: 1 }], before: null, total: 1 };
    assert.equal(problemIn('HistoryResult', page), undefined);
    assert.equal(
      problemIn('HistoryResult', { ...page, entries: [{ kind: 'text', text: 'hi', run: 1 }] }),
      'HistoryResult.entries[0].seq is missing',
    );
  });

  it('check the answer of each request and command by the result type the contract gives it', () => {
    assert.equal(resultProblem(FILE_VERSION_REQUEST, { text: null }), undefined);
    assert.equal(resultProblem(FILE_VERSION_REQUEST, { text: 3 }), 'workspaceAgent/fileVersion.text: expected string | null, got 3');
    assert.equal(commandResultProblem(GET_TODOS_COMMAND, todos), undefined);
    assert.equal(commandResultProblem(GET_TODOS_COMMAND, { ...todos, total: '1' }), 'workspaceAgent.getTodos.total: expected an integer, got "1"');
    const reverted = { restored: ['a'], deleted: [], skipped: [], undoId: 'u1' };
    assert.equal(commandResultProblem(REVERT_COMMAND, reverted), undefined);
    assert.equal(commandResultProblem(REVERT_COMMAND, { ...reverted, undoId: null, dryRun: true }), undefined);
    assert.ok(commandResultProblem(REVERT_COMMAND, { restored: 'a' }));
    assert.equal(resultProblem('workspaceAgent/other', {}), 'workspaceAgent/other is not a request of the contract');
  });
});
