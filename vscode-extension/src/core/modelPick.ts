/**
 * The model and thinking level picked for this window's sessions, from the extension's
 * side: what the status-bar item says ("Sonnet 4.5 · medium"), what its quick picks list,
 * and what a run sends (RunParams `model` / `thinking`). The server offers the models and
 * their levels (workspaceAgent/models, from its table of model families) and checks a
 * pick; nothing here knows a model. A pick changes no setting unless the user chooses
 * "Save as Default". Pure (no `vscode` import), for unit tests; modelPicker.ts does the I/O.
 */
import type { ModelChoice, ModelsResult, RunParams, ThinkingLevel } from '../protocol';

/** What the user picked; a field left out keeps the settings'. */
export interface ModelPick {
  readonly model?: string;
  readonly thinking?: ThinkingLevel;
}

/** The model and level runs take now: the pick's, else the settings' (as the server gave them). */
export interface Effective {
  readonly choice: ModelChoice;
  readonly level: ThinkingLevel;
  readonly picked: boolean;
}

export const OTHER_MODEL = 'other';
export const SAVE_DEFAULT = 'save';
export const USE_SETTINGS = 'settings';

/** A quick-pick row: `value` is a model id, a level, or one of the actions above. */
export interface PickRow {
  readonly label: string;
  readonly value: string;
  readonly description?: string;
  readonly detail?: string;
  readonly kind?: 'separator';
}

/** A model the server did not describe (typed in "Other…" before it answered): no thinking. */
function unknownChoice(model: string): ModelChoice {
  return { id: model, label: model, levels: ['off'], defaultLevel: 'off', known: false };
}

function choiceOf(offer: ModelsResult, model: string): ModelChoice {
  return offer.models.find((m) => m.id === model) ?? unknownChoice(model);
}

/** The model and level runs take with `pick`. */
export function effective(offer: ModelsResult, pick: ModelPick): Effective {
  const choice = choiceOf(offer, pick.model ?? offer.model);
  const wanted = pick.thinking ?? (pick.model === undefined ? offer.thinking : choice.defaultLevel);
  const level = choice.levels.includes(wanted) ? wanted : choice.defaultLevel;
  return { choice, level, picked: pick.model !== undefined || pick.thinking !== undefined };
}

/** The status-bar item's words. */
export function pickView(offer: ModelsResult, pick: ModelPick): { text: string; tooltip: string; accessibilityLabel: string } {
  const now = effective(offer, pick);
  const level = now.level === 'off' ? 'no thinking' : now.level;
  const settings = effective(offer, {});
  const whence = now.picked
    ? `Picked for this window's sessions (the settings give ${settings.choice.label} · ${settings.level}).`
    : 'From the settings (workspaceAgent.model, workspaceAgent.thinking).';
  return {
    text: `$(sparkle) ${now.choice.label} · ${level}`,
    tooltip: `Model ${now.choice.id}, thinking ${now.level}. ${whence} Click to change.`,
    accessibilityLabel: `Model ${now.choice.label}, thinking ${now.level} (Workspace Agent)`,
  };
}

/** The first quick pick: the models (the user's own first, the current one marked), "Other…", and the actions. */
export function modelRows(offer: ModelsResult, pick: ModelPick): PickRow[] {
  const now = effective(offer, pick);
  const listed = offer.models.some((m) => m.id === now.choice.id) ? offer.models : [...offer.models, now.choice];
  // The user's own models (the settings' one, a typed pick), which the server lists after
  // its table, come first: the pick opens at its top on the current row, not scrolled to
  // a current model at its bottom.
  const models = [...listed.filter((m) => !m.known), ...listed.filter((m) => m.known)];
  const rows: PickRow[] = models.map((m) => ({
    label: m.id === now.choice.id ? `$(check) ${m.label}` : m.label,
    value: m.id,
    description: m.id === m.label ? undefined : m.id,
    detail: m.id === offer.model ? 'the settings’ model' : undefined,
  }));
  rows.push({ label: 'Other…', value: OTHER_MODEL, description: 'type a model id' });
  if (now.picked) {
    const same = now.choice.id === offer.model && now.level === effective(offer, {}).level;
    rows.push({ label: '', value: '', kind: 'separator' });
    if (!same) {
      rows.push({ label: '$(save) Save as Default', value: SAVE_DEFAULT, description: `${now.choice.id} · ${now.level}, in your user settings` });
    }
    rows.push({ label: '$(discard) Use the Settings', value: USE_SETTINGS, description: `${effective(offer, {}).choice.label} · ${effective(offer, {}).level}` });
  }
  return rows;
}

const LEVEL_WORDS: Record<ThinkingLevel, string> = {
  off: 'no thinking: the model answers at once',
  low: 'a little thinking',
  medium: 'some thinking',
  high: 'thinks hard',
  max: 'thinks as much as it can',
};

/** The second quick pick: the levels the model takes, its default and the current one marked. */
export function levelRows(choice: ModelChoice, current: ThinkingLevel | undefined): PickRow[] {
  return choice.levels.map((level) => ({
    label: level === current ? `$(check) ${level}` : level,
    value: level,
    description: level === choice.defaultLevel ? `${LEVEL_WORDS[level]} (the model’s default)` : LEVEL_WORDS[level],
  }));
}

/** The pick after the user chose `model` then `level` (a level equal to the default is still a pick). */
export function picked(model: string, level: ThinkingLevel): ModelPick {
  return { model, thinking: level };
}

/** What a run sends for the pick (nothing for a field the settings give). */
export function runFields(pick: ModelPick): Pick<RunParams, 'model' | 'thinking'> {
  return {
    ...(pick.model !== undefined ? { model: pick.model } : {}),
    ...(pick.thinking !== undefined ? { thinking: pick.thinking } : {}),
  };
}

/** Why a typed model id cannot be sent, or undefined. */
export function modelIdProblem(text: string): string | undefined {
  const id = text.trim();
  if (!id) {
    return 'Type a model id, such as claude-sonnet-4-5.';
  }
  return /\s/.test(id) ? 'A model id has no spaces.' : undefined;
}
