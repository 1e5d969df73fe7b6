import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resultMessage, shorten, statusView } from '../../src/core/status';
import type { RunResult, TodoItem } from '../../src/protocol';

const plan: TodoItem[] = [
  { id: '1', text: 'Write the module', status: 'completed' },
  { id: '2', text: 'Write the tests for the module and make them pass', status: 'in_progress' },
  { id: '3', text: 'Update the docs', status: 'pending' },
];

const result = (stopReason: RunResult['stopReason'], error?: string): RunResult => ({
  sessionId: 's1',
  stopReason,
  text: 'Done.',
  todos: plan,
  usage: { inputTokens: 10, outputTokens: 5 },
  ...(error ? { error } : {}),
});

describe('statusView', () => {
  it('is a quiet entry point when idle', () => {
    const view = statusView({ kind: 'idle' }, []);
    assert.equal(view.text, '$(hubot) Agent');
    assert.equal(view.tone, 'normal');
  });

  it('shows the spinner, "1/3" and the current item (shortened) while running', () => {
    const view = statusView({ kind: 'running', prompt: 'add tests' }, plan);
    assert.equal(view.text, '$(loading~spin) Agent 1/3 · Write the tests for the module and make…');
    assert.equal(view.accessibilityLabel, 'Workspace Agent: running 1/3 · Write the tests for the module and make…');
    assert.match(view.tooltip, /running: add tests/);
  });

  it('says "working…" before the plan exists', () => {
    assert.equal(statusView({ kind: 'running', prompt: 'x' }, []).text, '$(loading~spin) Agent working…');
  });

  it('shows how the last run ended', () => {
    assert.equal(statusView({ kind: 'finished', stopReason: 'end_turn' }, plan).text, '$(pass) Agent: done 1/3');
    assert.equal(
      statusView({ kind: 'finished', stopReason: 'cancelled' }, plan).text,
      '$(circle-slash) Agent: cancelled 1/3',
    );
    const error = statusView({ kind: 'finished', stopReason: 'error', error: 'no key' }, []);
    assert.equal(error.text, '$(error) Agent: error');
    assert.equal(error.tone, 'error');
    assert.match(error.tooltip, /no key/);
    assert.equal(statusView({ kind: 'finished', stopReason: 'max_turns' }, []).tone, 'warning');
    assert.equal(statusView({ kind: 'failed', error: 'gone' }, []).text, '$(error) Agent: failed');
  });
});

describe('resultMessage', () => {
  it('says done with the plan count', () => {
    assert.deepEqual(resultMessage(result('end_turn')), {
      severity: 'info',
      text: 'Workspace Agent: done (1/3 plan items completed).',
    });
  });

  it('says cancelled', () => {
    assert.equal(resultMessage(result('cancelled')).text, 'Workspace Agent: run cancelled (1/3 plan items completed).');
  });

  it('gives the server\'s error message', () => {
    assert.deepEqual(resultMessage(result('error', 'ANTHROPIC_API_KEY is not set')), {
      severity: 'error',
      text: 'Workspace Agent: error: ANTHROPIC_API_KEY is not set',
    });
  });

  it('warns at the turn limit and at the token budget', () => {
    assert.equal(resultMessage(result('max_turns')).severity, 'warning');
    assert.match(resultMessage(result('budget')).text, /token budget .* workspaceAgent\.maxRunTokens/);
  });
});

describe('shorten', () => {
  it('keeps the first line and cuts long text with an ellipsis', () => {
    assert.equal(shorten('one\ntwo'), 'one');
    assert.equal(shorten('abcdef', 4), 'abc…');
    assert.equal(shorten('abcd', 4), 'abcd');
  });
});
