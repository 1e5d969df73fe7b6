import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cardFixes, requestFailureFixes, runResultFixes } from '../../src/core/errorFixes';
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
    // Continue first: a follow-up in the same session gets turns and a budget of its own.
    assert.deepEqual(labels(runResultFixes(result('max_turns'))), ['Continue', 'Open Settings', 'Show Transcript']);
    assert.deepEqual(runResultFixes(result('max_turns'))[1], { label: 'Open Settings', action: 'openSettings', setting: 'workspaceAgent.maxTurns' });
    assert.deepEqual(runResultFixes(result('budget'))[1], { label: 'Open Settings', action: 'openSettings', setting: 'workspaceAgent.maxRunTokens' });
    assert.deepEqual(runResultFixes(result('error', 'model claude-x not found (404)'))[0], { label: 'Open Settings', action: 'openSettings', setting: 'workspaceAgent.model' });
  });

  it('a cloud provider: Open Settings on the setting the message names, never Set API Key', () => {
    const openOn = (text: string): { label: string; setting?: string } => runResultFixes(result('error', text))[0];
    const missingKey =
      "ANTHROPIC_API_KEY is not set: set it (or ANTHROPIC_AUTH_TOKEN, a gateway's bearer token) in the environment, in the workspace's .env file, or with the editor's 'Set API Key' command, then run again (to run on Bedrock or Vertex instead, choose the provider setting, WORKSPACE_AGENT_PROVIDER).";
    assert.equal(openOn(missingKey).label, 'Set API Key');
    assert.deepEqual(openOn('Google Vertex AI needs a region: set workspaceAgent.vertex.region (or CLOUD_ML_REGION), like us-east5, europe-west1 or global; then run again.'), {
      label: 'Open Settings',
      action: 'openSettings',
      setting: 'workspaceAgent.vertex.region',
    });
    assert.equal(openOn('Amazon Bedrock needs an AWS region: set workspaceAgent.bedrock.region (or AWS_REGION), like us-east-1').setting, 'workspaceAgent.bedrock.region');
    const noCredentials =
      'No AWS credentials were found for Amazon Bedrock: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (after `aws sso login` or `aws configure`), or a Bedrock bearer token in AWS_BEARER_TOKEN_BEDROCK, in the environment the server runs in; then run again.';
    assert.deepEqual(labels(runResultFixes(result('error', noCredentials))), ['Open Settings', 'Retry', 'Show Transcript']);
    assert.equal(openOn(noCredentials).setting, 'workspaceAgent.provider');
    assert.equal(openOn('The model API (Google Vertex AI, p, us-east5) refused access (401): Request had invalid authentication credentials.').setting, 'workspaceAgent.provider');
    assert.equal(
      openOn("Amazon Bedrock needs the anthropic SDK's bedrock extra (boto3, botocore not installed): run `python -m pip install 'workspace-agent[bedrock]'`, or set workspaceAgent.provider (WORKSPACE_AGENT_PROVIDER) to anthropic.").setting,
      'workspaceAgent.provider',
    );
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

describe('the buttons on a run\'s card', () => {
  it('the card of a run gets the toast\'s buttons, without Show Transcript; a run that went well gets none', () => {
    assert.deepEqual(labels(cardFixes('error', 'ANTHROPIC_API_KEY is not set')), ['Set API Key', 'Retry']);
    assert.deepEqual(labels(cardFixes('error', 'The model API is overloaded (529) (gave up after 5 attempts)')), ['Retry']);
    const overloaded = 'Anthropic\'s API is overloaded (529); this is not your setup. Retry, or try again in a minute. The API said "Overloaded". (gave up after 4 attempts)';
    assert.deepEqual(labels(cardFixes('error', overloaded)), ['Retry']);
    assert.deepEqual(labels(cardFixes('error', 'The request is too large for the model API (the Anthropic API) (413): it takes at most 32 MB.')), []);
    assert.deepEqual(labels(cardFixes('error', 'The model API (x) does not know what was asked for (404). Check the model setting')), ['Open Settings', 'Retry']);
    assert.deepEqual(labels(cardFixes('max_turns')), ['Continue', 'Open Settings']);
    assert.deepEqual(labels(cardFixes('budget')), ['Continue', 'Open Settings']);
    for (const stop of ['end_turn', 'cancelled', 'planReady', 'refusal', 'stop_sequence'] as const) {
      assert.deepEqual(cardFixes(stop), [], stop);
    }
  });
});
