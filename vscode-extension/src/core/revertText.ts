/**
 * The words of a revert: the modal confirmation (what will be restored, deleted and left
 * alone, from the server's dry run) and the result (what was restored, deleted and
 * skipped, and why), for a plan item, the last run, and Undo Revert.
 *
 * Pure, so the exact text the user decides on is unit-tested; reverts.ts shows it.
 */
import type { RevertEvent, RevertResult, SkippedFile, UndoRevertResult } from '../protocol';
import { shorten } from './status';
import { plural } from './words';

/** Names listed in a modal before "and N more". */
const LIST_LIMIT = 12;
/** Names in a notification before "and N more" (notifications are short). */
const SHORT_LIMIT = 3;

export interface Confirmation {
  message: string;
  detail: string;
  /** The button that goes ahead. */
  action: string;
}

function listed(paths: readonly string[], limit = LIST_LIMIT): string {
  const shown = paths.slice(0, limit).map((p) => `  ${p}`);
  if (paths.length > limit) {
    shown.push(`  … and ${paths.length - limit} more`);
  }
  return shown.join('\n');
}

function names(paths: readonly string[], limit = SHORT_LIMIT): string {
  const shown = paths.slice(0, limit).join(', ');
  return paths.length > limit ? `${shown} and ${paths.length - limit} more` : shown;
}

/** What a revert will do: the server's dry run of it. */
export interface RevertPlan {
  restored: readonly string[];
  deleted: readonly string[];
  /** Files it will leave alone, and why. */
  skipped: readonly SkippedFile[];
}

const SAFETY = 'Files the agent never changed are not touched. Undo Revert puts everything back.';

/** Where a revert of a step goes, e.g. 'before plan item #2 "Format the code"' (the server's name). */
export function revertTarget(displayName: string): string {
  return `before ${displayName}`;
}

/** The target of Revert Last Run, in the same words. */
export const LAST_RUN_TARGET = 'the start of the last run';

/** True when the revert would change no file (what it would touch is as it was, or skipped). */
export function changesNothing(plan: RevertPlan): boolean {
  return plan.restored.length + plan.deleted.length === 0;
}

function listedSkipped(skipped: readonly SkippedFile[], limit = LIST_LIMIT): string {
  const shown = skipped.slice(0, limit).map((s) => `  ${s.path} (${s.reason})`);
  if (skipped.length > limit) {
    shown.push(`  … and ${skipped.length - limit} more`);
  }
  return shown.join('\n');
}

/** The body of a confirmation: restored, deleted, left alone, and what is safe. */
function planDetail(plan: RevertPlan, when: string, created: string): string {
  const parts: string[] = [];
  if (plan.restored.length) {
    const was = plan.restored.length === 1 ? 'it was' : 'they were';
    parts.push(`Restores ${plural(plan.restored.length, 'file')} to how ${was} ${when}:\n${listed(plan.restored)}`);
  }
  if (plan.deleted.length) {
    parts.push(`Deletes ${plural(plan.deleted.length, 'file')} ${created}:\n${listed(plan.deleted)}`);
  }
  if (plan.skipped.length) {
    const them = plan.skipped.length === 1 ? 'it is' : 'they are';
    parts.push(`Leaves ${plural(plan.skipped.length, 'file')} as ${them}:\n${listedSkipped(plan.skipped)}`);
  }
  parts.push(SAFETY);
  return parts.join('\n\n');
}

/** The confirmation of Revert to Before This Step (`target` from revertTarget). */
export function confirmStepRevert(target: string, plan: RevertPlan): Confirmation {
  return {
    message: `Revert the workspace to ${target}?`,
    detail: planDetail(plan, 'before it', 'the agent created'),
    action: 'Revert',
  };
}

/**
 * The confirmation of Undo Only This Step (`name`: the server's displayName): the step's
 * own changes are taken out, later steps' changes to other lines stay.
 */
export function confirmOnlyRevert(name: string, plan: RevertPlan): Confirmation {
  return {
    message: `Undo only ${name}?`,
    detail: `${planDetail(plan, 'before that step (later steps\' changes to other lines stay)', 'that step created')}`,
    action: 'Undo Only This Step',
  };
}

/** Why Undo Only This Step did nothing: later steps changed the same lines. */
export function onlyConflictMessage(name: string, conflicts: readonly SkippedFile[]): { text: string; detail: string } {
  return {
    text: `Workspace Agent: cannot undo only ${name}: later steps changed the same lines in ${plural(conflicts.length, 'file')}. Nothing was changed.`,
    detail: `${listedSkipped(conflicts)}\n\nRevert to Before This Step takes back this step and every later one instead.`,
  };
}

/** What Undo Only This Step did. */
export function onlyResultMessage(name: string, result: RevertResult): ResultMessage {
  const skipped = result.skipped.length ? ` Skipped ${skippedWords(result.skipped)}.` : '';
  return {
    severity: result.skipped.length ? 'warning' : 'info',
    text: `Workspace Agent: undid only ${name}: ${account(result)}.${skipped}`,
    details: details(result),
  };
}

/**
 * The confirmation of Revert Last Run: `plan` from the server's dry run, `prompt` what
 * that run was asked (when known).
 */
export function confirmLastRunRevert(plan: RevertPlan, prompt?: string): Confirmation {
  const message = prompt ? `Revert the last run of the agent (“${shorten(prompt, 60)}”)?` : 'Revert the last run of the agent?';
  return { message, detail: planDetail(plan, 'when that run started', 'it created'), action: 'Revert' };
}

/** Why a revert is not asked about: every file it would touch is already as it was then. */
export function nothingToRevert(target: string): string {
  if (target === LAST_RUN_TARGET) {
    return 'Workspace Agent: nothing to revert: every file the last run changed is already as it was when that run started.';
  }
  return `Workspace Agent: nothing to revert: every file the agent changed from ${target.replace(/^before /, '')} on is already as it was then.`;
}

/** Why Revert to Before This Step does not ask: the server's notRevertibleReason. */
export function notRevertible(reason: string): string {
  return `Workspace Agent: nothing to revert: ${reason}.`;
}

/** The button on a result with skipped files, and its confirmation (force: true). */
export const OVERWRITE_SKIPPED = 'Overwrite Skipped Files…';

export function confirmOverwrite(skipped: readonly SkippedFile[]): Confirmation {
  return {
    message: `Overwrite ${skipped.length === 1 ? 'the file' : `${skipped.length} files`} you changed since?`,
    detail: `${listedSkipped(skipped)}\n\n${
      skipped.length === 1 ? 'It gets' : 'They get'
    } the content of the same checkpoint; what you changed in ${skipped.length === 1 ? 'it' : 'them'} is replaced. Undo Revert brings your version back.`,
    action: 'Overwrite',
  };
}

export interface ResultMessage {
  severity: 'info' | 'warning';
  text: string;
  /** The full account, one line per file, for the transcript. */
  details: string[];
}

function skippedWords(skipped: readonly SkippedFile[]): string {
  return skipped.length === 1
    ? `${skipped[0]?.path} (${skipped[0]?.reason})`
    : `${names(skipped.map((s) => s.path))} (changed since; see the transcript)`;
}

function account(result: UndoRevertResult): string {
  const parts: string[] = [];
  if (result.restored.length) {
    parts.push(`restored ${names(result.restored)}`);
  }
  if (result.deleted.length) {
    parts.push(`deleted ${names(result.deleted)}`);
  }
  return parts.length ? parts.join('; ') : 'no file needed a change';
}

function details(result: UndoRevertResult): string[] {
  return [
    ...result.restored.map((p) => `  restored ${p}`),
    ...result.deleted.map((p) => `  deleted  ${p}`),
    ...result.skipped.map((s) => `  skipped  ${s.path}: ${s.reason}`),
  ];
}

/** What a revert did, e.g. 'reverted to before plan item #2 "…": restored app.py; deleted x.py.' */
export function revertResultMessage(target: string, result: RevertResult): ResultMessage {
  const head = `Workspace Agent: reverted to ${target}: ${account(result)}.`;
  const skipped = result.skipped.length ? ` Skipped ${skippedWords(result.skipped)}.` : '';
  return {
    severity: result.skipped.length ? 'warning' : 'info',
    text: head + skipped,
    details: details(result),
  };
}

/** What Undo Revert did. */
export function undoResultMessage(result: UndoRevertResult): ResultMessage {
  const skipped = result.skipped.length ? ` Skipped ${skippedWords(result.skipped)}.` : '';
  return {
    severity: result.skipped.length ? 'warning' : 'info',
    text: `Workspace Agent: revert undone: ${account(result)}.${skipped}`,
    details: details(result),
  };
}

/** A `revert` event, as the Conversation view's row takes it (live or from the history). */
export type RevertEventFields = Pick<RevertEvent, 'action' | 'target' | 'restored' | 'deleted' | 'skipped'>;

/** "3 files restored, 1 deleted, 1 skipped" (what an undo put back: "put back"). */
function countWords(event: RevertEventFields): string {
  const restored = event.action === 'undo' ? 'put back' : event.action === 'only' ? 'changed back' : 'restored';
  const deleted = event.action === 'undo' ? 'deleted again' : 'deleted';
  const parts = [
    event.restored.length ? `${plural(event.restored.length, 'file')} ${restored}` : '',
    event.deleted.length ? `${plural(event.deleted.length, 'file')} ${deleted}` : '',
    event.skipped.length ? `${event.skipped.length} skipped` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no file needed a change';
}

/** The server's 'plan item #2 "Tidy"' as the Conversation says a step: 'step #2 “Tidy”'. */
function stepWords(target: string): string {
  return target.replace(/plan item #(\S+)(?: "(.*)")?$/, (_all, id: string, text?: string) => (text ? `step #${id} “${text}”` : `step #${id}`));
}

/**
 * The Conversation row of a revert: 'Reverted to before step #2 “Tidy”: 3 files restored,
 * 1 skipped', 'Reverted the last run: …', 'Undid only step #2 “Tidy”: …', 'Undid the
 * revert to before step #2 “Tidy”: 3 files put back'.
 */
export function revertRowText(event: RevertEventFields): string {
  const target = stepWords(event.target);
  const counts = countWords(event);
  switch (event.action) {
    case 'only':
      return `Undid only ${target.replace(/^only /, '')}: ${counts}`;
    case 'undo': {
      const what = event.target === LAST_RUN_TARGET ? 'the revert of the last run' : target ? `the revert to ${target}` : 'a revert';
      return `Undid ${what}: ${counts}`;
    }
    default:
      return event.target === LAST_RUN_TARGET ? `Reverted the last run: ${counts}` : `Reverted to ${target}: ${counts}`;
  }
}

/** The row's tooltip: every file, one a line (what the row's counts stand for). */
export function revertRowDetail(event: RevertEventFields): string {
  const restored = event.action === 'undo' ? 'put back' : 'restored';
  return [
    ...event.restored.map((p) => `${restored} ${p}`),
    ...event.deleted.map((p) => `deleted ${p}`),
    ...event.skipped.map((s) => `skipped ${s.path} (${s.reason})`),
  ].join('\n');
}
