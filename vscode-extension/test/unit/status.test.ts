import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isContract } from '../../src/contract';
import { AgentState } from '../../src/core/state';
import {
  costAmount,
  costWords,
  resultMessage,
  shorten,
  statusView,
  tokenWords,
  sandboxText,
  withSandbox,
} from '../../src/core/status';
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
  it('is a quiet icon when idle, with the words in the tooltip and for screen readers', () => {
    const view = statusView({ kind: 'idle' }, []);
    assert.equal(view.text, '$(hubot)');
    assert.equal(view.tone, 'normal');
    assert.equal(view.tooltip, 'Workspace Agent: click to run a task');
    assert.equal(view.accessibilityLabel, 'Workspace Agent: idle');
  });

  it('puts the last run\'s tokens and estimated cost in the tooltip, in every phase', () => {
    const lastRun = {
      usage: { inputTokens: 1200, outputTokens: 345, cacheReadTokens: 40000, cacheWriteTokens: 6000 },
      cost: { usd: 0.041235, model: 'claude-sonnet-4-5' },
    };
    const line = 'Last run: 47,545 tokens (1,200 in, 40,000 cache read, 6,000 cache write, 345 out) · ≈ $0.0412 (estimate at claude-sonnet-4-5 list prices)';
    assert.equal(statusView({ kind: 'idle' }, [], lastRun).tooltip, `Workspace Agent: click to run a task\n${line}`);
    const done = statusView({ kind: 'finished', stopReason: 'end_turn' }, plan, lastRun);
    assert.equal(done.tooltip, `Workspace Agent: last run done 1/3\n${line}\nClick to show the conversation.`);
    assert.equal(done.text, '$(pass)', 'the item itself stays quiet');
    assert.ok(statusView({ kind: 'running', prompt: 'x' }, [], lastRun).tooltip.includes(line));
    assert.ok(statusView({ kind: 'failed', error: 'gone' }, [], lastRun).tooltip.includes(line));
  });

  it('says when there is no cost estimate', () => {
    const view = statusView({ kind: 'idle' }, [], { usage: { inputTokens: 10, outputTokens: 5 }, cost: null });
    assert.equal(view.tooltip, 'Workspace Agent: click to run a task\nLast run: 15 tokens (10 in, 5 out) · no cost estimate (no list price known for the model)');
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

  it('shows how the last run ended with an icon alone, the words in the tooltip and for screen readers', () => {
    const done = statusView({ kind: 'finished', stopReason: 'end_turn' }, plan);
    assert.deepEqual([done.text, done.accessibilityLabel], ['$(pass)', 'Workspace Agent: done 1/3']);
    assert.match(done.tooltip, /^Workspace Agent: last run done 1\/3\n/);
    const cancelled = statusView({ kind: 'finished', stopReason: 'cancelled' }, plan);
    assert.deepEqual([cancelled.text, cancelled.accessibilityLabel], ['$(circle-slash)', 'Workspace Agent: cancelled 1/3']);
    const error = statusView({ kind: 'finished', stopReason: 'error', error: 'no key' }, []);
    assert.equal(error.text, '$(error)');
    assert.equal(error.tone, 'error');
    assert.match(error.tooltip, /last run error: no key/);
    assert.equal(statusView({ kind: 'finished', stopReason: 'max_turns' }, []).tone, 'warning');
    const failed = statusView({ kind: 'failed', error: 'gone' }, []);
    assert.deepEqual([failed.text, failed.accessibilityLabel], ['$(error)', 'Workspace Agent: failed']);
  });
});

describe('resultMessage', () => {
  it('does not name a plan the run did not make (a question after a finished plan)', () => {
    assert.equal(resultMessage(result('end_turn'), false).text, 'Workspace Agent: done.');
  });

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

describe('tokens and cost', () => {
  it('counts every token kind, with thousands separators', () => {
    assert.equal(tokenWords({ inputTokens: 1234567, outputTokens: 8 }), '1,234,575 tokens (1,234,567 in, 8 out)');
  });

  it('rounds the cost to what is worth reading', () => {
    assert.equal(costAmount({ usd: 1.234567, model: 'm' }), '≈ $1.23');
    assert.equal(costAmount({ usd: 0.1, model: 'm' }), '≈ $0.10');
    assert.equal(costAmount({ usd: 0.0031, model: 'm' }), '≈ $0.0031');
    assert.equal(costAmount({ usd: 0.00001, model: 'm' }), '< $0.0001');
    assert.equal(costAmount({ usd: 0, model: 'm' }), '≈ $0.00');
  });

  it('shows no number for a missing or malformed estimate', () => {
    for (const cost of [null, undefined, { usd: -1, model: 'm' }, { usd: Number.NaN, model: 'm' }, { usd: '0.1', model: 'm' }]) {
      assert.equal(costAmount(cost as never), undefined);
      assert.equal(costWords(cost as never), 'no cost estimate (no list price known for the model)');
    }
  });
});

describe('the sandbox line', () => {
  const unavailable = {
    mode: 'auto',
    active: false,
    reason: 'bubblewrap (bwrap) is not installed',
    fix: 'install it',
    message: 'sandbox: unavailable (bubblewrap (bwrap) is not installed); to fix: install it; commands are asked about',
  } as const;

  it('goes under the tooltip once the server said it, and not before', () => {
    assert.equal(withSandbox('Workspace Agent: click to run a task', undefined), 'Workspace Agent: click to run a task');
    assert.equal(withSandbox('Workspace Agent: click to run a task', unavailable), `Workspace Agent: click to run a task\n${unavailable.message}`);
  });

  it('is in the status bar\'s text too: on, off, or none here', () => {
    assert.equal(sandboxText(undefined), undefined);
    assert.equal(sandboxText({ ...unavailable, active: true, reason: null, fix: null })?.text, '$(shield) sandbox on');
    assert.equal(sandboxText({ ...unavailable, mode: 'off', reason: null })?.text, '$(unlock) sandbox off');
    const none = sandboxText(unavailable);
    assert.equal(none?.text, '$(warning) no sandbox');
    assert.equal(none?.label, 'no sandbox: bubblewrap (bwrap) is not installed');
  });

  it('accepts only payloads of the promised shape', () => {
    assert.ok(isContract('SandboxStatus', unavailable));
    assert.ok(!isContract('SandboxStatus', { active: 'yes', message: 'x', mode: 'auto' }));
    assert.ok(!isContract('SandboxStatus', null));
  });
});

describe('a run waiting for the user', () => {
  it('says "Waiting for your approval" in the status bar, with a warning background', () => {
    const view = statusView({ kind: 'running', prompt: 'Clean up' }, [{ id: '1', text: 'Delete build', status: 'in_progress' }], undefined, 1);
    assert.equal(view.text, '$(bell-dot) Waiting for your approval');
    assert.equal(view.accessibilityLabel, 'Workspace Agent: waiting for your approval');
    assert.equal(view.tone, 'warning');
    const after = statusView({ kind: 'running', prompt: 'Clean up' }, [{ id: '1', text: 'Delete build', status: 'in_progress' }], undefined, 0);
    assert.equal(after.text, '$(loading~spin) Agent 0/1 · Delete build');
  });
});

describe('the status item after a later success (issue 50 item 10)', () => {
  const shown = (state: AgentState) => statusView(state.phase, state.items, state.lastRun, state.waiting.length);

  it('a revert or its undo after a failed run takes the error icon and background off; the tooltip keeps the run\'s tokens', () => {
    const state = new AgentState();
    state.startRun('s1', 'Fix it');
    state.finishRun({ ...result('error', 'The model API is overloaded (529)'), usage: { inputTokens: 1200, outputTokens: 30 } });
    assert.deepEqual([shown(state).text, shown(state).tone], ['$(error)', 'error']);
    state.reverted('s2'); // another session's revert is not news about this run
    assert.equal(shown(state).tone, 'error');
    state.reverted('s1');
    const view = shown(state);
    assert.deepEqual([view.text, view.tone, view.accessibilityLabel], ['$(hubot)', 'normal', 'Workspace Agent: idle']);
    assert.match(view.tooltip, /Last run: 1,230 tokens/);
  });

  it('a limit\'s warning goes the same way; a server restart (a new API key) and the next run leave the error too', () => {
    const state = new AgentState();
    state.startRun('s1', 'Count');
    state.finishRun(result('max_turns'));
    assert.equal(shown(state).tone, 'warning');
    state.reverted('s1');
    assert.equal(shown(state).tone, 'normal');
    state.startRun('s1', 'Again');
    state.failRun('the server stopped');
    assert.equal(shown(state).tone, 'error');
    state.serverStopped();
    assert.equal(shown(state).tone, 'normal');
    state.startRun('s1', 'Again');
    state.finishRun(result('error', '401'));
    state.startRun('s1', 'Retry');
    state.finishRun(result('end_turn'));
    assert.deepEqual([shown(state).text, shown(state).tone], ['$(pass)', 'normal']);
  });
});
