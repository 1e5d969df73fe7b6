import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Getter, serverSettings, settingsChange } from '../../src/core/settings';

/** Values by full dotted key, as VS Code's configuration answers get('checkpoints.enabled'). */
const getter =
  (user: Record<string, unknown>, workspace: Record<string, unknown> = {}): Getter =>
  (key) => ({ value: workspace[key] ?? user[key], globalValue: user[key], workspaceValue: workspace[key] });

describe('checkpoint settings', () => {
  it('reach the server flat, as it reads them ("checkpoints.enabled"), only when set', () => {
    assert.deepEqual(serverSettings(getter({ 'checkpoints.enabled': false, 'checkpoints.maxBytes': 1048576 })), {
      'checkpoints.enabled': false,
      'checkpoints.maxBytes': 1048576,
    });
    assert.deepEqual(serverSettings(getter({ 'checkpoints.enabled': null, 'checkpoints.maxBytes': 1.5 })), {});
  });

  it('may be set by a workspace like the other run settings', () => {
    assert.deepEqual(serverSettings(getter({ 'checkpoints.enabled': true }, { 'checkpoints.enabled': false })), {
      'checkpoints.enabled': false,
    });
  });

  it('are pushed to the running server when they change (no restart)', () => {
    assert.equal(settingsChange((key) => key === 'workspaceAgent.checkpoints.enabled'), 'push');
  });
});
