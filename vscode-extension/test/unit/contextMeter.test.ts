import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { meterView } from '../../src/core/contextMeter';
import { AgentState } from '../../src/core/state';
import type { ContextMeter } from '../../src/protocol';

const DETAIL =
  'Context: 62,400 of 200,000 tokens (31%), as the last request used. From 80% (160,000 tokens) the conversation is compacted before the next request: old tool results become short stubs, then the oldest turns one summary. /compact does it now.';

const meter = (sessionId: string, used: number, near = false): ContextMeter => ({
  sessionId,
  used,
  window: 200_000,
  compactAt: 160_000,
  near,
  label: `${Math.round(used / 1000)} k / 200 k`,
  detail: DETAIL,
});

describe('meterView', () => {
  it('shows the server\'s label and words, amber when the server says near', () => {
    assert.equal(meterView(undefined), undefined);
    assert.deepEqual(meterView(meter('s1', 62_400)), {
      label: '62 k / 200 k',
      header: '62 k / 200 k',
      tooltip: DETAIL,
      near: false,
      accessibilityLabel: 'Context 31% full: 62 k of 200 k tokens',
    });
    assert.equal(meterView(meter('s1', 150_000, true))?.near, true);
  });

  it('puts a warning sign before the side view header\'s label near compaction (a description takes no colour)', () => {
    assert.equal(meterView(meter('s1', 150_000, true))?.header, '\u26a0 150 k / 200 k');
    assert.equal(meterView(meter('s1', 150_000, false))?.header, '150 k / 200 k');
  });

});

describe('AgentState.context', () => {
  it('is the current session\'s last figure, kept per session', () => {
    const state = new AgentState();
    let changes = 0;
    state.onChange(() => changes++);
    const shown = (): ContextMeter | undefined => state.context; // read afresh (no narrowing)
    state.acceptContext(meter('s2', 5000)); // a /clear's new session, before it is current
    assert.equal(shown(), undefined);
    assert.equal(changes, 0);
    state.startRun('s1', 'Fix it');
    state.acceptContext(meter('s1', 62_400));
    assert.equal(shown()?.label, '62 k / 200 k');
    state.acceptContext(meter('s1', 70_000));
    assert.equal(shown()?.used, 70_000);
    state.finishRun({ sessionId: 's1', stopReason: 'end_turn', text: '', todos: [], usage: { inputTokens: 1, outputTokens: 1 } });
    assert.ok(state.resumeSession('s2', []));
    assert.equal(shown()?.used, 5000);
    state.clearSession();
    assert.equal(shown(), undefined);
  });
});
