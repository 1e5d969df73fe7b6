/**
 * The words of a revert: the modal confirmation (what will be restored and deleted) and
 * the result (what was restored, deleted and skipped, and why), for a plan item, the last
 * run, and Undo Revert.
 *
 * Pure, so the exact text the user decides on is unit-tested; reverts.ts shows it.
 */
import type { RevertResult, SkippedFile, UndoRevertResult } from '../protocol';
import type { RevertPreview } from './changeRows';

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

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
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

const SAFETY =
  'Files the agent never changed are not touched. A file you changed after the agent did is left as it is, and named afterwards. Undo Revert puts everything back.';

/** "before step 2: Format the code", "before the plan": where a revert of a step goes. */
export function revertTarget(stepName: string): string {
  return stepName.startsWith('before ') ? stepName : `before ${stepName}`;
}

/** The target of Revert Last Run, in the same words. */
export const LAST_RUN_TARGET = 'the start of the last run';

/** The confirmation of Revert to Before This Step (`target` from revertTarget). */
export function confirmStepRevert(target: string, preview: RevertPreview): Confirmation {
  const parts: string[] = [];
  if (preview.restore.length) {
    parts.push(`Restores ${plural(preview.restore.length, 'file')} to how ${preview.restore.length === 1 ? 'it was' : 'they were'} before it:\n${listed(preview.restore)}`);
  }
  if (preview.delete.length) {
    parts.push(`Deletes ${plural(preview.delete.length, 'file')} the agent created:\n${listed(preview.delete)}`);
  }
  parts.push(SAFETY);
  return {
    message: `Revert the workspace to ${target}?`,
    detail: parts.join('\n\n'),
    action: 'Revert',
  };
}

/** The confirmation of Revert Last Run; `files` undefined when this window did not see it. */
export function confirmLastRunRevert(files: readonly string[] | undefined): Confirmation {
  const what = files?.length
    ? `The last run changed ${plural(files.length, 'file')}:\n${listed(files)}\n\nEach goes back to how it was when that run started; files it created are deleted.`
    : 'Every file the agent changed in its last run of this session goes back to how it was when that run started; files it created are deleted.';
  return { message: 'Revert the last run of the agent?', detail: `${what}\n\n${SAFETY}`, action: 'Revert' };
}

/** The button on a result with skipped files, and its confirmation (force: true). */
export const OVERWRITE_SKIPPED = 'Overwrite Skipped Files…';

export function confirmOverwrite(skipped: readonly SkippedFile[]): Confirmation {
  const shown = skipped.slice(0, LIST_LIMIT).map((s) => `  ${s.path} (${s.reason})`);
  if (skipped.length > LIST_LIMIT) {
    shown.push(`  … and ${skipped.length - LIST_LIMIT} more`);
  }
  return {
    message: `Overwrite ${skipped.length === 1 ? 'the file' : `${skipped.length} files`} you changed since?`,
    detail: `${shown.join('\n')}\n\n${
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

/** What a revert did, e.g. "reverted to before step 2: …: restored app.py; deleted x.py." */
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
