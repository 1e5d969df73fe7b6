import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestFailureFixes, runResultFixes } from '../../src/core/errorFixes';
import { promptHistory } from '../../src/core/promptHistory';
import type { RunResult } from '../../src/protocol';

const result = (stopReason: RunResult['stopReason'], error?: string): RunResult => ({
  sessionId: 's',
  stopReason,
  text: '',
  todos: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  ...(error ? { error } : {}),
});
const labels = (fixes: { label: string }[]): string[] => fixes.map((fix) => fix.label);

describe('every error carries its fix', () => {
  it('a missing or refused key: Set API Key first, then Retry', () => {
    assert.deepEqual(labels(runResultFixes(result('error', 'ANTHROPIC_API_KEY is not set'))), ['Set API Key', 'Retry', 'Show Transcript']);
    assert.deepEqual(labels(runResultFixes(result('error', 'The model API rejected the API key (401).'))), ['Set API Key', 'Retry', 'Show Transcript']);
  });

  it('a limit: Open Settings on the setting it comes from', () => {
    assert.deepEqual(runResultFixes(result('max_turns'))[0], { label: 'Open Settings', action: 'openSettings', setting: 'workspaceAgent.maxTurns' });
    assert.deepEqual(runResultFixes(result('budget'))[0], { label: 'Open Settings', action: 'openSettings', setting: 'workspaceAgent.maxRunTokens' });
    assert.deepEqual(runResultFixes(result('error', 'model claude-x not found (404)'))[0], { label: 'Open Settings', action: 'openSettings', setting: 'workspaceAgent.model' });
  });

  it('a connection error or a server gone: Retry with the same task', () => {
    assert.deepEqual(labels(runResultFixes(result('error', 'Connection error.'))), ['Retry', 'Show Transcript']);
    assert.deepEqual(labels(requestFailureFixes('the Workspace Agent server is not running')), ['Retry', 'Restart Server']);
  });

  it('a run that ended well needs no fix', () => {
    assert.deepEqual(labels(runResultFixes(result('end_turn'))), ['Show Transcript']);
  });
});

describe('the input box history', () => {
  it('keeps the order sent, moves a repeat to the end, keeps 50', () => {
    assert.deepEqual(promptHistory(['a', 'b', 'c'], 'a'), ['b', 'c', 'a']);
    const long = Array.from({ length: 50 }, (_, i) => `t${i}`);
    const next = promptHistory(long, 'new');
    assert.equal(next.length, 50);
    assert.equal(next[0], 't1');
    assert.equal(next.at(-1), 'new');
  });
});
