/**
 * The `workspaceAgent.*` settings: one list of keys drives reading them, building what the
 * server receives, and deciding what a change means (push to the server, or restart it).
 *
 * Pure: settings.ts reads values through a getter from VS Code's configuration, and a unit
 * test checks this list against the `contributes.configuration` of package.json.
 */
import { SETTINGS_SECTION } from '../protocol';

export type SettingKind = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

export interface SettingKey {
  key: string;
  kind: SettingKind;
  /**
   * 'server': sent to the server (initializationOptions, workspace/didChangeConfiguration);
   * 'launch': decides how the server is started, so a change restarts it.
   */
  target: 'server' | 'launch';
  /** Read from the user's settings only, never from a workspace (package.json scope "application"). */
  userOnly?: boolean;
}

export const SETTING_KEYS: readonly SettingKey[] = [
  { key: 'python', kind: 'string', target: 'launch' },
  { key: 'model', kind: 'string', target: 'server' },
  { key: 'baseUrl', kind: 'string', target: 'server' },
  { key: 'maxTurns', kind: 'integer', target: 'server' },
  { key: 'maxTokens', kind: 'integer', target: 'server' },
  { key: 'bashTimeoutSeconds', kind: 'number', target: 'server' },
  { key: 'maxFileBytes', kind: 'integer', target: 'server' },
  { key: 'maxRetries', kind: 'integer', target: 'server' },
  { key: 'contextWindow', kind: 'integer', target: 'server' },
  { key: 'maxRunTokens', kind: 'integer', target: 'server' },
  { key: 'promptCaching', kind: 'boolean', target: 'server' },
  { key: 'approvals', kind: 'object', target: 'server' },
  { key: 'secretEnvNames', kind: 'array', target: 'server' },
  { key: 'allowWorkspaceBaseUrl', kind: 'boolean', target: 'server', userOnly: true },
];

export type Getter = (key: string, userOnly: boolean) => unknown;
export type SettingValue = string | number | boolean | string[] | Record<string, string>;
export type ServerSettings = Record<string, SettingValue>;

/**
 * A value the user actually set; empty strings, empty lists and objects, and nulls mean
 * "use the server's default". Values of the wrong kind are dropped here too.
 */
function present(kind: SettingKind, value: unknown): SettingValue | undefined {
  switch (kind) {
    case 'string':
      return typeof value === 'string' && value.trim() ? value.trim() : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'array':
      return Array.isArray(value) && value.length && value.every((v) => typeof v === 'string')
        ? [...(value)]
        : undefined;
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length
        ? { ...(value as Record<string, string>) }
        : undefined;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        return undefined;
      }
      return kind === 'integer' && !Number.isInteger(value) ? undefined : value;
  }
}

/**
 * The bare `workspaceAgent` section the server gets: only keys that are set, so the
 * server's own fallbacks (environment, workspace .env, defaults) still apply to the rest.
 */
export function serverSettings(get: Getter): ServerSettings {
  const settings: ServerSettings = {};
  for (const { key, kind, target, userOnly } of SETTING_KEYS) {
    if (target !== 'server') {
      continue;
    }
    const value = present(kind, get(key, userOnly ?? false));
    if (value !== undefined) {
      settings[key] = value;
    }
  }
  return settings;
}

/** initializationOptions and didChangeConfiguration both carry the wrapped form. */
export function wrappedSettings(get: Getter): { [SETTINGS_SECTION]: ServerSettings } {
  return { [SETTINGS_SECTION]: serverSettings(get) };
}

/** The interpreter setting, or undefined when it is empty. */
export function pythonSetting(get: Getter): string | undefined {
  const value = present('string', get('python', false));
  return typeof value === 'string' ? value : undefined;
}

export type SettingsChange = 'none' | 'push' | 'restart';

/** What a configuration change means, given `affects(fullKey)` from the change event. */
export function settingsChange(affects: (fullKey: string) => boolean): SettingsChange {
  let change: SettingsChange = 'none';
  for (const { key, target } of SETTING_KEYS) {
    if (!affects(`${SETTINGS_SECTION}.${key}`)) {
      continue;
    }
    if (target === 'launch') {
      return 'restart';
    }
    change = 'push';
  }
  return change;
}

/** The environment name under which the server looks for the API key. */
export const API_KEY_ENV = 'ANTHROPIC_API_KEY';

/**
 * The server's environment: the editor's own, plus the key from SecretStorage when one is
 * stored (it wins over an inherited one, since the user set it on purpose).
 */
export function serverEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  apiKey: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined) {
      env[name] = value;
    }
  }
  if (apiKey) {
    env[API_KEY_ENV] = apiKey;
  }
  return env;
}
