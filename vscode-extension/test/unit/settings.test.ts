import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  SETTING_KEYS,
  pythonSetting,
  serverEnvironment,
  serverSettings,
  settingsChange,
  wrappedSettings,
} from '../../src/core/settings';
import { EXTENSION_DIR, REPO_DIR } from './paths';

const from =
  (values: Record<string, unknown>, userValues: Record<string, unknown> = values) =>
  (key: string, userOnly: boolean) =>
    (userOnly ? userValues : values)[key];

describe('settings → what the server receives', () => {
  it('sends only the keys the user set, never the interpreter', () => {
    assert.deepEqual(
      serverSettings(from({ python: '/usr/bin/python3', model: 'claude-x', baseUrl: '', maxTurns: null })),
      { model: 'claude-x' },
    );
  });

  it('keeps numbers, trims strings and drops values of the wrong kind', () => {
    assert.deepEqual(
      serverSettings(
        from({ baseUrl: ' http://127.0.0.1:9 ', maxTurns: 7, maxTokens: 1.5, bashTimeoutSeconds: 2.5, model: 3 }),
      ),
      { baseUrl: 'http://127.0.0.1:9', maxTurns: 7, bashTimeoutSeconds: 2.5 },
    );
  });

  it('passes objects, lists and booleans, and drops empty ones', () => {
    assert.deepEqual(
      serverSettings(from({ approvals: { bash: 'allow' }, secretEnvNames: ['CORP_'], allowWorkspaceBaseUrl: true })),
      { approvals: { bash: 'allow' }, secretEnvNames: ['CORP_'], allowWorkspaceBaseUrl: true },
    );
    assert.deepEqual(serverSettings(from({ approvals: {}, secretEnvNames: [], allowWorkspaceBaseUrl: 'yes' })), {});
  });

  it('reads user-only settings from the user level, never from the workspace', () => {
    assert.deepEqual(serverSettings(from({ allowWorkspaceBaseUrl: true }, {})), {});
    assert.deepEqual(serverSettings(from({}, { allowWorkspaceBaseUrl: true })), { allowWorkspaceBaseUrl: true });
  });

  it('wraps them in the workspaceAgent section', () => {
    assert.deepEqual(wrappedSettings(from({ maxTurns: 3 })), { workspaceAgent: { maxTurns: 3 } });
  });

  it('reads the interpreter setting, empty meaning "choose one"', () => {
    assert.equal(pythonSetting(from({ python: ' /opt/py/bin/python ' })), '/opt/py/bin/python');
    assert.equal(pythonSetting(from({ python: '' })), undefined);
  });
});

describe('settingsChange', () => {
  const affects = (...keys: string[]) => (key: string) => keys.includes(key);

  it('pushes a server setting to the running server', () => {
    assert.equal(settingsChange(affects('workspaceAgent.model')), 'push');
    assert.equal(settingsChange(affects('workspaceAgent.bashTimeoutSeconds')), 'push');
  });

  it('restarts the server when the interpreter changes', () => {
    assert.equal(settingsChange(affects('workspaceAgent.python', 'workspaceAgent.model')), 'restart');
  });

  it('ignores other settings', () => {
    assert.equal(settingsChange(affects('editor.fontSize')), 'none');
  });
});

describe('serverEnvironment', () => {
  it('adds the stored key as ANTHROPIC_API_KEY and keeps the rest', () => {
    const env = serverEnvironment({ PATH: '/bin', ANTHROPIC_API_KEY: 'old', EMPTY: undefined }, 'sk-new');
    assert.deepEqual(env, { PATH: '/bin', ANTHROPIC_API_KEY: 'sk-new' });
  });

  it('leaves an inherited key alone when none is stored', () => {
    assert.equal(serverEnvironment({ ANTHROPIC_API_KEY: 'inherited' }, undefined).ANTHROPIC_API_KEY, 'inherited');
  });
});

describe('one list of keys', () => {
  const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8'));
  const properties: Record<string, { type: string | string[] }> = manifest.contributes.configuration.properties;

  it('matches the settings package.json contributes', () => {
    assert.deepEqual(
      Object.keys(properties).sort(),
      SETTING_KEYS.map(({ key }) => `workspaceAgent.${key}`).sort(),
    );
  });

  it('declares user-only settings with the "application" scope', () => {
    for (const { key, userOnly } of SETTING_KEYS) {
      assert.equal((properties[`workspaceAgent.${key}`] as { scope?: string }).scope === 'application', userOnly ?? false, key);
    }
  });

  it('declares each setting with the kind the list reads', () => {
    for (const { key, kind } of SETTING_KEYS) {
      const declared = ([] as string[]).concat(properties[`workspaceAgent.${key}`]?.type ?? []);
      assert.ok(declared.includes(kind), `workspaceAgent.${key} is declared as ${declared.join('|')}, read as ${kind}`);
    }
  });

  it('sends exactly the editor keys the server reads (server/workspace_agent/config.py)', () => {
    const config = readFileSync(path.join(REPO_DIR, 'server', 'workspace_agent', 'config.py'), 'utf8');
    const editorKeys = [...config.matchAll(/Key\(\s*"\w+",\s*"(\w+)"/g)].map((match) => match[1]);
    assert.ok(editorKeys.length > 0, 'no editor keys found in config.py');
    assert.deepEqual(
      SETTING_KEYS.filter(({ target }) => target === 'server')
        .map(({ key }) => key)
        .sort(),
      editorKeys.sort(),
    );
  });
});
