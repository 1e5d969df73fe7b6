/**
 * The `workspaceAgent.*` settings: one list of keys drives reading them, building what the
 * server receives, and deciding what a change means (push to the server, or restart it).
 *
 * A repository's `.vscode/settings.json` is not the user. Each key says what a workspace
 * (or folder) value may do to it, and values are combined here from the levels of VS
 * Code's `inspect()`, never taken from `get()` alone where a workspace must not decide.
 *
 * Pure: settings.ts supplies VS Code's configuration as the getter, and a unit test checks
 * this list against the `contributes.configuration` of package.json.
 */
import { SETTINGS, SETTINGS_SECTION, TIGHTENING } from '../protocol';
import { combine, type Refusal } from './settingsRules';

export type SettingKind = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

/**
 * What a workspace or folder value of a setting may do:
 * - 'overrides': it wins over the user's, as VS Code merges settings;
 * - 'ignored': nothing; the key is read from user settings only. package.json declares it
 *   with a `scope` VS Code enforces ('machine' or 'application'); reading `globalValue`
 *   here enforces it a second time, so one layer failing is not enough;
 * - 'stricter': approvals, per kind only towards deny (deny > ask > sandboxed > allow);
 * - 'confines': the sandbox mode, only towards required (required > auto > off);
 * - 'adds': a list it may add entries to, never take the user's away from;
 * - 'lowers': a cap it may lower, never raise or remove (0 means no cap).
 */
export type WorkspaceRule =
  | { workspace: 'overrides' | 'stricter' | 'confines' | 'adds' | 'lowers' }
  | { workspace: 'ignored'; scope: 'machine' | 'application' };

export type SettingKey = {
  key: string;
  kind: SettingKind;
  /**
   * 'server': sent to the server (initializationOptions, workspace/didChangeConfiguration);
   * 'launch': decides how the server is started, so a change restarts it;
   * 'client': read by the extension itself when it needs it, never sent.
   */
  target: 'server' | 'launch' | 'client';
} & WorkspaceRule;

/**
 * Every setting, from contract/workspace-agent.json (generated into contract.ts with the
 * reason for each rule; package.json's `contributes.configuration` comes from there too).
 */
export const SETTING_KEYS: readonly SettingKey[] = SETTINGS;

/**
 * The server's values where the user set none, which a workspace is compared with when
 * the user is silent: the contract's (TIGHTENING's `start`; config.py's defaults, which
 * tests/unit/test_contract.py keeps in step).
 */
export const SERVER_DEFAULTS = {
  approvals: TIGHTENING.approvals.start as Readonly<Record<ApprovalKind, ApprovalMode>>,
  maxRunTokens: TIGHTENING.maxRunTokens.start as number,
  sandboxMode: TIGHTENING['sandbox.mode'].start as (typeof SANDBOX_MODES)[number],
};

/** Running commands, changing files, calling the tools of MCP servers. */
export const APPROVAL_KINDS = ['bash', 'write', 'mcp'] as const;
/**
 * From the loosest to the strictest (the `stricter` rule's order in the contract, which a
 * unit test holds this to); `sandboxed` is for `bash` only, `review` for `write` only.
 */
export const APPROVAL_MODES = ['allow', 'sandboxed', 'ask', 'review', 'deny'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
/**
 * The modes a kind takes (the contract's, from package.json's enums): "sandboxed" (run
 * without asking when in the sandbox) is for commands, "review" (every change shown as a
 * diff to accept) for file changes; MCP tools take ask, allow and deny.
 */
export function approvalModes(kind: ApprovalKind): readonly ApprovalMode[] {
  const takes = TIGHTENING.approvals.entries?.[kind] ?? [];
  return APPROVAL_MODES.filter((mode) => takes.includes(mode));
}
/** From the loosest to the strictest (the `confines` rule's order, held to it by a unit test). */
export const SANDBOX_MODES = ['off', 'auto', 'required'] as const;
export type ApprovalPolicy = Partial<Record<ApprovalKind, ApprovalMode>>;

/** One setting as VS Code has it: `get()` (levels merged) and the levels of `inspect()`. */
export interface SettingLevels {
  value?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export type Getter = (key: string) => SettingLevels;
/** Receives one line per value that was ignored, and why (the extension logs them). */
export type Report = (problem: string) => void;
export type SettingValue = string | number | boolean | string[] | ApprovalPolicy;
export type ServerSettings = Record<string, SettingValue>;

const ignore: Report = () => undefined;

/** The words a report uses for each level: the user's, the workspace's, a folder's. */
const LEVEL_NAMES = ['user settings', 'workspace settings', 'folder settings'] as const;

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
        ? [...value]
        : undefined;
    case 'object':
      return isObject(value) && Object.keys(value).length ? { ...value } : undefined;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        return undefined;
      }
      return kind === 'integer' && !Number.isInteger(value) ? undefined : value;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why one part of a level was refused, as the extension's log says it. */
function problem(key: string, refusal: Refusal): string {
  const where = `workspaceAgent.${key} in the ${LEVEL_NAMES[refusal.level] ?? 'settings'}`;
  const { item, than } = refusal;
  if (refusal.why === 'userOnly') {
    return `${where} is ignored: it is read from user settings only`;
  }
  if (key === 'approvals' && refusal.entry) {
    const [kind, mode] = item as [string, unknown];
    return refusal.why === 'looser'
      ? `${where}: ${kind}: ${String(mode)} is looser than ${String(than)}: ignored`
      : `${where}: ${JSON.stringify(kind)}: ${JSON.stringify(mode)} is not ask, allow, deny (or sandboxed, ` +
          'for bash; review, for write) for bash, write or mcp: ignored';
  }
  if (key === 'approvals') {
    return `${where} is not an object like {"bash": "ask"}: ignored`;
  }
  if (refusal.why === 'looser' && key === 'maxRunTokens') {
    const asked = item === 0 ? '0 (no cap)' : String(item);
    return `${where}: ${asked} would lift the cap of ${String(than)}: ignored`;
  }
  if (refusal.why === 'looser') {
    return `${where}: ${String(item)} is looser than ${String(than)}: ignored`;
  }
  if (key === 'sandbox.mode') {
    return `${where} is not ${SANDBOX_MODES.join(', ')}: ignored`;
  }
  if (key === 'maxRunTokens') {
    return `${where} is not a whole number of at least 0: ignored`;
  }
  // One bad entry would make the server drop the whole list, the user's names with it.
  return refusal.entry ? `${where}: ${JSON.stringify(item)} is not a name: ignored` : `${where} is not a list of names: ignored`;
}

/**
 * The approval policy per kind: the user's own (or the server's default when the user set
 * none), made stricter, never looser, by the workspace and folder levels.
 */
export function effectiveApprovals(levels: SettingLevels, report: Report = ignore): ApprovalPolicy | undefined {
  const verdict = combine('approvals', [levels.globalValue, levels.workspaceValue, levels.workspaceFolderValue]);
  for (const refusal of verdict.refused) {
    report(problem('approvals', refusal));
  }
  return verdict.value as ApprovalPolicy | undefined;
}

/** A setting's value as the server (or the launcher) gets it, by the key's workspace rule. */
function resolve(setting: SettingKey, levels: SettingLevels, report: Report): SettingValue | undefined {
  if (setting.workspace === 'overrides') {
    return present(setting.kind, levels.value);
  }
  const verdict = combine(setting.key, [levels.globalValue, levels.workspaceValue, levels.workspaceFolderValue]);
  for (const refusal of verdict.refused) {
    report(problem(setting.key, refusal));
  }
  return setting.workspace === 'ignored' ? present(setting.kind, verdict.value) : (verdict.value as SettingValue | undefined);
}

/**
 * The bare `workspaceAgent` section the server gets: only keys that are set, so the
 * server's own fallbacks (environment, workspace .env, defaults) still apply to the rest.
 */
export function serverSettings(get: Getter, report: Report = ignore): ServerSettings {
  const settings: ServerSettings = {};
  for (const setting of SETTING_KEYS) {
    if (setting.target !== 'server') {
      continue;
    }
    const value = resolve(setting, get(setting.key), report);
    if (value !== undefined) {
      settings[setting.key] = value;
    }
  }
  return settings;
}

/** initializationOptions and didChangeConfiguration both carry the wrapped form. */
export function wrappedSettings(get: Getter, report: Report = ignore): { [SETTINGS_SECTION]: ServerSettings } {
  return { [SETTINGS_SECTION]: serverSettings(get, report) };
}

/**
 * The answer to a `workspace/configuration` pull: the section (or one key of it) exactly
 * as a push sends it, so the pull cannot see what the push filters out; null otherwise.
 */
export function configurationAnswer(sections: readonly (string | undefined)[], settings: ServerSettings): unknown[] {
  const prefix = `${SETTINGS_SECTION}.`;
  return sections.map((section) => {
    if (section === SETTINGS_SECTION) {
      return settings;
    }
    return section?.startsWith(prefix) ? (settings[section.slice(prefix.length)] ?? null) : null;
  });
}

/** A setting the extension reads itself (by its key's rule), or `fallback` when unset. */
export function clientSetting<T extends SettingValue>(get: Getter, key: string, fallback: T): T {
  const setting = SETTING_KEYS.find((candidate) => candidate.key === key);
  if (!setting) {
    throw new Error(`unknown setting workspaceAgent.${key}`);
  }
  const value = resolve(setting, get(setting.key), ignore);
  return value === undefined || typeof value !== typeof fallback ? fallback : (value as T);
}

/** The interpreter setting (user settings only), or undefined when it is empty. */
export function pythonSetting(get: Getter, report: Report = ignore): string | undefined {
  const setting = SETTING_KEYS.find(({ key }) => key === 'python');
  const value = setting && resolve(setting, get(setting.key), report);
  return typeof value === 'string' ? value : undefined;
}

export type SettingsChange = 'none' | 'push' | 'restart';

/** What a configuration change means, given `affects(fullKey)` from the change event. */
export function settingsChange(affects: (fullKey: string) => boolean): SettingsChange {
  let change: SettingsChange = 'none';
  for (const { key, target } of SETTING_KEYS) {
    if (target === 'client' || !affects(`${SETTINGS_SECTION}.${key}`)) {
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
 * Whether the server gets a key: one stored with Set API Key, or ANTHROPIC_API_KEY in
 * the editor's own environment, which the server inherits (serverEnvironment).
 */
export function apiKeyAvailable(base: Readonly<Record<string, string | undefined>>, stored: string | undefined): boolean {
  return Boolean(stored) || Boolean(base[API_KEY_ENV]?.trim());
}

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
