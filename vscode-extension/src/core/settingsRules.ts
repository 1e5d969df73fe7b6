/**
 * What a workspace may do to a setting, decided from the contract's data: the levels of
 * one setting (the user's, the workspace's, the folder's) combined into the value that
 * applies, with every part that was refused and why.
 *
 * The rules are `TIGHTENING` (contract.ts, generated from contract/workspace-agent.json's
 * `workspaceRules`): the way each rule combines (`toward` an end of an order, a `union` of
 * names, a `cap` only lowered, `userOnly`), its order, trim and no-cap value, and the
 * server's default a first workspace value is compared with. The server's
 * agent/settings_rules.py interprets the same table; both give the same verdicts on one
 * corpus of random cases (test/unit/settingsRules.test.ts reads the one the Python tests
 * write and check).
 *
 * Values are JSON as VS Code has them; undefined and null are "not set".
 */
import { TIGHTENING, type Tightening } from '../protocol';

export type RefusalWhy = 'invalid' | 'looser' | 'userOnly';

/** One part of a level that does not apply. */
export interface Refusal {
  /** 0 the user's, 1 the workspace's, 2 a folder's. */
  level: number;
  /** The level's value, or the `[kind, mode]` of an object's entry, or a list's entry. */
  item: unknown;
  /** invalid: not a value the setting takes; looser: it would loosen `than`; userOnly: read from user settings only. */
  why: RefusalWhy;
  than?: unknown;
  /** The item is one entry of the level's object or list, not the level's whole value. */
  entry?: true;
}

export interface RulesVerdict {
  /** What applies; undefined: nothing set (the server's own fallbacks apply). */
  value: unknown;
  refused: Refusal[];
}

/** Whether a workspace value of `key` is combined here (not simply an override). */
export function tightened(key: string): boolean {
  return Object.prototype.hasOwnProperty.call(TIGHTENING, key);
}

/** The value of `key` from its levels, by its rule. */
export function combine(key: string, levels: readonly unknown[]): RulesVerdict {
  const spec = TIGHTENING[key];
  if (!spec) {
    throw new Error(`workspaceAgent.${key} is not combined by a workspace rule`);
  }
  switch (spec.combine) {
    case 'userOnly': {
      const refused = levels.flatMap((value, level) => (level > 0 && isSet(value) ? [{ level, item: value, why: 'userOnly' as const }] : []));
      return { value: isSet(levels[0]) ? levels[0] : undefined, refused };
    }
    case 'toward':
      return spec.entries ? towardEach(spec, levels) : toward(spec, levels);
    case 'union':
      return union(spec, levels);
    case 'cap':
      return cap(spec, levels);
  }
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toward(spec: Tightening, levels: readonly unknown[]): RulesVerdict {
  const order = spec.order ?? [];
  let current: string | undefined;
  const refused: Refusal[] = [];
  levels.forEach((value, level) => {
    if (!isSet(value)) {
      return;
    }
    if (typeof value !== 'string' || !order.includes(value)) {
      refused.push({ level, item: value, why: 'invalid' });
      return;
    }
    const floor = current ?? (spec.start as string | undefined);
    if (level === 0 || floor === undefined || order.indexOf(value) >= order.indexOf(floor)) {
      current = value;
    } else {
      refused.push({ level, item: value, why: 'looser', than: floor });
    }
  });
  return { value: current, refused };
}

function towardEach(spec: Tightening, levels: readonly unknown[]): RulesVerdict {
  const order = spec.order ?? [];
  const entries = spec.entries ?? {};
  const start = (spec.start ?? {}) as Record<string, string | undefined>;
  const policy: Record<string, string> = {};
  const refused: Refusal[] = [];
  levels.forEach((value, level) => {
    if (!isSet(value)) {
      return;
    }
    if (!isObject(value)) {
      refused.push({ level, item: value, why: 'invalid' });
      return;
    }
    for (const [kind, mode] of Object.entries(value)) {
      const modes = Object.prototype.hasOwnProperty.call(entries, kind) ? entries[kind] : undefined;
      if (!modes || typeof mode !== 'string' || !modes.includes(mode)) {
        refused.push({ level, item: [kind, mode], why: 'invalid', entry: true });
        continue;
      }
      const floor = Object.prototype.hasOwnProperty.call(policy, kind) ? policy[kind] : start[kind];
      if (level === 0 || floor === undefined || order.indexOf(mode) >= order.indexOf(floor)) {
        policy[kind] = mode;
      } else {
        refused.push({ level, item: [kind, mode], why: 'looser', than: floor, entry: true });
      }
    }
  });
  return { value: Object.keys(policy).length ? policy : undefined, refused };
}

function union(spec: Tightening, levels: readonly unknown[]): RulesVerdict {
  const trim = spec.trim ?? '';
  const names: string[] = [];
  const refused: Refusal[] = [];
  levels.forEach((value, level) => {
    if (!isSet(value)) {
      return;
    }
    if (!Array.isArray(value)) {
      refused.push({ level, item: value, why: 'invalid' });
      return;
    }
    for (const entry of value as unknown[]) {
      const name = typeof entry === 'string' ? trimmed(entry, trim) : '';
      if (!name) {
        refused.push({ level, item: entry, why: 'invalid', entry: true });
      } else if (!names.includes(name)) {
        names.push(name);
      }
    }
  });
  return { value: names.length ? names : undefined, refused };
}

/** `text` without the characters of `chars` at either end (as Python's str.strip(chars)). */
function trimmed(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start])) {
    start += 1;
  }
  while (end > start && chars.includes(text[end - 1])) {
    end -= 1;
  }
  return text.slice(start, end);
}

function cap(spec: Tightening, levels: readonly unknown[]): RulesVerdict {
  const none = spec.none ?? 0;
  let current: number | undefined;
  const refused: Refusal[] = [];
  levels.forEach((value, level) => {
    if (!isSet(value)) {
      return;
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      refused.push({ level, item: value, why: 'invalid' });
      return;
    }
    const floor = current ?? (spec.start as number | undefined) ?? none;
    if (level === 0 || (value !== none && (floor === none || value <= floor))) {
      current = value;
    } else if (value !== floor) {
      refused.push({ level, item: value, why: 'looser', than: floor });
    }
  });
  return { value: current, refused };
}
