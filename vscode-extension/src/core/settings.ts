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
import { SETTINGS, SETTINGS_SECTION } from '../protocol';

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
 * The server's values where the user set none; a workspace is compared with these when
 * the user is silent (server/workspace_agent/config.py; a unit test keeps them in step).
 */
export const SERVER_DEFAULTS = {
  approvals: { bash: 'sandboxed', mcp: 'ask', write: 'allow' },
  maxRunTokens: 0,
  sandboxMode: 'auto',
} as const;

/** Running commands, changing files, calling the tools of MCP servers. */
export const APPROVAL_KINDS = ['bash', 'write', 'mcp'] as const;
/** From the loosest to the strictest; `sandboxed` is for `bash` only, `review` for `write` only. */
export const APPROVAL_MODES = ['allow', 'sandboxed', 'ask', 'review', 'deny'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
/**
 * The modes a kind takes: "sandboxed" (run without asking when in the sandbox) is for
 * commands, "review" (every change shown as a diff to accept) for file changes; MCP tools
 * take ask, allow and deny.
 */
export function approvalModes(kind: ApprovalKind): readonly ApprovalMode[] {
  const only: Record<ApprovalKind, ApprovalMode[]> = { bash: ['review'], write: ['sandboxed'], mcp: ['sandboxed', 'review'] };
  return APPROVAL_MODES.filter((mode) => !only[kind].includes(mode));
}
/** From the loosest to the strictest. */
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

/** The levels a workspace controls, with the words a report uses for them. */
const WORKSPACE_LEVELS = [
  ['workspaceValue', 'workspace settings'],
  ['workspaceFolderValue', 'folder settings'],
] as const;
const ALL_LEVELS = [['globalValue', 'user settings'], ...WORKSPACE_LEVELS] as const;

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

function isOneOf<T extends string>(options: readonly T[], value: unknown): value is T {
  return options.some((option) => option === value);
}

function unset(value: unknown): boolean {
  return value === undefined || value === null;
}

/** The valid entries of one level's approvals; the others are reported and skipped. */
function approvalEntries(value: unknown, where: string, report: Report): [ApprovalKind, ApprovalMode][] {
  if (unset(value)) {
    return [];
  }
  if (!isObject(value)) {
    report(`workspaceAgent.approvals in the ${where} is not an object like {"bash": "ask"}: ignored`);
    return [];
  }
  const entries: [ApprovalKind, ApprovalMode][] = [];
  for (const [kind, mode] of Object.entries(value)) {
    if (isOneOf(APPROVAL_KINDS, kind) && isOneOf(approvalModes(kind), mode)) {
      entries.push([kind, mode]);
    } else {
      report(
        `workspaceAgent.approvals in the ${where}: ${JSON.stringify(kind)}: ${JSON.stringify(mode)} is not ` +
          `ask, allow, deny (or sandboxed, for bash; review, for write) for bash, write or mcp: ignored`,
      );
    }
  }
  return entries;
}

/**
 * The approval policy per kind: the user's own (or the server's default when the user set
 * none), made stricter, never looser, by the workspace and folder levels.
 */
export function effectiveApprovals(levels: SettingLevels, report: Report = ignore): ApprovalPolicy | undefined {
  const policy: ApprovalPolicy = Object.fromEntries(approvalEntries(levels.globalValue, 'user settings', report));
  for (const [level, where] of WORKSPACE_LEVELS) {
    for (const [kind, mode] of approvalEntries(levels[level], where, report)) {
      const current = policy[kind] ?? SERVER_DEFAULTS.approvals[kind];
      if (APPROVAL_MODES.indexOf(mode) >= APPROVAL_MODES.indexOf(current)) {
        policy[kind] = mode;
      } else {
        report(`workspaceAgent.approvals in the ${where}: ${kind}: ${mode} is looser than ${current}: ignored`);
      }
    }
  }
  return Object.keys(policy).length ? policy : undefined;
}

/** The sandbox mode: the user's (or the default), made more confining by the workspace. */
function confiningMode(levels: SettingLevels, report: Report): string | undefined {
  const valid = (value: unknown, where: string) => {
    if (unset(value) || isOneOf(SANDBOX_MODES, value)) {
      return value as (typeof SANDBOX_MODES)[number] | undefined;
    }
    report(`workspaceAgent.sandbox.mode in the ${where} is not ${SANDBOX_MODES.join(', ')}: ignored`);
    return undefined;
  };
  let mode = valid(levels.globalValue, 'user settings');
  for (const [level, where] of WORKSPACE_LEVELS) {
    const proposed = valid(levels[level], where);
    const current = mode ?? SERVER_DEFAULTS.sandboxMode;
    if (proposed === undefined) {
      continue;
    }
    if (SANDBOX_MODES.indexOf(proposed) >= SANDBOX_MODES.indexOf(current)) {
      mode = proposed;
    } else {
      report(`workspaceAgent.sandbox.mode in the ${where}: ${proposed} is looser than ${current}: ignored`);
    }
  }
  return mode;
}

/** Names from every level (secret name parts, masked paths): a workspace adds to the user's list. */
function addedNames(key: string, levels: SettingLevels, report: Report): string[] | undefined {
  const names: string[] = [];
  for (const [level, where] of ALL_LEVELS) {
    const value = levels[level];
    if (unset(value)) {
      continue;
    }
    if (!Array.isArray(value)) {
      report(`workspaceAgent.${key} in the ${where} is not a list of names: ignored`);
      continue;
    }
    for (const name of value) {
      // One bad entry would make the server drop the whole list, the user's names with it.
      if (typeof name !== 'string' || !name.trim()) {
        report(`workspaceAgent.${key} in the ${where}: ${JSON.stringify(name)} is not a name: ignored`);
      } else if (!names.includes(name.trim())) {
        names.push(name.trim());
      }
    }
  }
  return names.length ? names : undefined;
}

/** The lowest cap of the levels (0: no cap); a workspace cannot lift the user's. */
function lowestCap(key: 'maxRunTokens', levels: SettingLevels, report: Report): number | undefined {
  const valid = (value: unknown, where: string): number | undefined => {
    if (unset(value)) {
      return undefined;
    }
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
      return value;
    }
    report(`workspaceAgent.${key} in the ${where} is not a whole number of at least 0: ignored`);
    return undefined;
  };
  let cap = valid(levels.globalValue, 'user settings');
  for (const [level, where] of WORKSPACE_LEVELS) {
    const proposed = valid(levels[level], where);
    if (proposed === undefined) {
      continue;
    }
    const current = cap ?? SERVER_DEFAULTS[key];
    if (proposed !== 0 && (current === 0 || proposed <= current)) {
      cap = proposed;
    } else if (proposed !== current) {
      const asked = proposed === 0 ? '0 (no cap)' : String(proposed);
      report(`workspaceAgent.${key} in the ${where}: ${asked} would lift the cap of ${current}: ignored`);
    }
  }
  return cap;
}

/** A setting's value as the server (or the launcher) gets it, by the key's workspace rule. */
function resolve(setting: SettingKey, levels: SettingLevels, report: Report): SettingValue | undefined {
  switch (setting.workspace) {
    case 'overrides':
      return present(setting.kind, levels.value);
    case 'ignored':
      for (const [level, where] of WORKSPACE_LEVELS) {
        if (!unset(levels[level])) {
          report(`workspaceAgent.${setting.key} in the ${where} is ignored: it is read from user settings only`);
        }
      }
      return present(setting.kind, levels.globalValue);
    case 'stricter':
      return effectiveApprovals(levels, report);
    case 'confines':
      return confiningMode(levels, report);
    case 'adds':
      return addedNames(setting.key, levels, report);
    case 'lowers':
      return lowestCap('maxRunTokens', levels, report);
  }
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
