/**
 * The Plan view as a tree: each plan item with the files it changed and the commands it
 * ran underneath, a "Before the plan" group for changes made while no item was in
 * progress, and items the plan no longer lists (a rewritten plan) at the end.
 *
 * Pure (no `vscode` import), so what the user reads (labels, "+12 −3", the exit status,
 * tooltips, diff titles) is unit-tested; planView.ts turns these nodes into TreeItems.
 */
import type { ChangeKind, ChangedFile, ChangesResult, CommandRun, ItemChanges, TodoItem } from '../protocol';
import { type PlanRow, planRows } from './plan';
import { shorten } from './status';

/** Codicons (with a theme colour) for a step group or a command's exit status. */
export type ChangeIcon = 'history' | 'question' | 'pass' | 'error' | 'circle-slash';
export type ChangeIconColor = 'testing.iconPassed' | 'testing.iconFailed' | 'testing.iconSkipped';

/** A plan item, the "Before the plan" group, or an item the plan no longer has. */
export interface StepNode {
  kind: 'step';
  /** Tree element id: unique in the tree, stable across updates. */
  id: string;
  todoId: string | null;
  label: string;
  description: string;
  tooltip: string;
  accessibilityLabel: string;
  icon: PlanRow['icon'] | ChangeIcon;
  iconColor?: PlanRow['iconColor'];
  /** "step 2: Format the code", "before the plan": how titles and messages name it. */
  stepName: string;
  /** There are files to restore or delete from this step on (Revert to Before This Step). */
  revertible: boolean;
  children: (FileNode | CommandNode)[];
}

export interface FileNode {
  kind: 'file';
  id: string;
  sessionId: string;
  todoId: string | null;
  path: string;
  change: ChangeKind;
  binary: boolean;
  /** The file name; the folder is in the description. */
  label: string;
  description: string;
  tooltip: string;
  accessibilityLabel: string;
  /** The diff editor's title, e.g. "app.py (step 2: Format the code)". */
  diffTitle: string;
  stepName: string;
}

export interface CommandNode {
  kind: 'command';
  id: string;
  label: string;
  description: string;
  tooltip: string;
  accessibilityLabel: string;
  icon: ChangeIcon;
  iconColor: ChangeIconColor;
}

export type ChangeNode = StepNode | FileNode | CommandNode;

const CHANGE_WORDS: Record<ChangeKind, string> = { added: 'added', modified: 'modified', deleted: 'deleted' };
/** The letter SCM views use. */
export const CHANGE_LETTERS: Record<ChangeKind, 'A' | 'M' | 'D'> = { added: 'A', modified: 'M', deleted: 'D' };
/** Theme colours of git's decorations (VS Code's built-in git extension contributes them). */
export const CHANGE_COLORS: Record<ChangeKind, string> = {
  added: 'gitDecoration.addedResourceForeground',
  modified: 'gitDecoration.modifiedResourceForeground',
  deleted: 'gitDecoration.deletedResourceForeground',
};

const MINUS = '\u2212';

/** "+12 −3" (a real minus sign), or "binary". */
export function lineStats(file: Pick<ChangedFile, 'additions' | 'deletions' | 'binary'>): string {
  return file.binary ? 'binary' : `+${file.additions} ${MINUS}${file.deletions}`;
}

/** How titles and messages name an item: "step 2: Format the code", "before the plan". */
export function stepName(todoId: string | null, text?: string): string {
  if (todoId === null) {
    return 'before the plan';
  }
  return text ? `step ${todoId}: ${shorten(text, 50)}` : `step ${todoId}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** "2 files, 1 command" for an item's row; "" when it changed nothing. */
export function itemSummary(item: ItemChanges | undefined): string {
  if (!item) {
    return '';
  }
  const parts = [];
  if (item.files.length) {
    parts.push(plural(item.files.length, 'file'));
  }
  if (item.commands.length) {
    parts.push(plural(item.commands.length, 'command'));
  }
  return parts.join(', ');
}

function baseName(filePath: string): string {
  return filePath.slice(filePath.lastIndexOf('/') + 1);
}

function folderOf(filePath: string): string {
  const slash = filePath.lastIndexOf('/');
  return slash < 0 ? '' : filePath.slice(0, slash);
}

export function fileNode(sessionId: string, parentId: string, todoId: string | null, name: string, file: ChangedFile): FileNode {
  const stats = lineStats(file);
  const folder = folderOf(file.path);
  const word = CHANGE_WORDS[file.change];
  const lines = file.binary
    ? 'binary file (no line counts)'
    : `${plural(file.additions, 'line')} added, ${file.deletions} removed`;
  return {
    kind: 'file',
    id: `${parentId}/file:${file.path}`,
    sessionId,
    todoId,
    path: file.path,
    change: file.change,
    binary: !!file.binary,
    label: baseName(file.path),
    description: folder ? `${stats} · ${folder}` : stats,
    tooltip: `${file.path}\n${capitalise(word)} ${todoId === null ? name : `in ${name}`} · ${lines}\n${
      file.binary ? 'A binary file: there is no text diff.' : 'Click to compare before and after this step.'
    }`,
    accessibilityLabel: `${file.path}, ${word}, ${file.binary ? 'binary' : lines}`,
    diffTitle: `${baseName(file.path)} (${name})`,
    stepName: name,
  };
}

/** Why a binary file opens no diff. */
export function binaryNotice(node: Pick<FileNode, 'path' | 'change' | 'todoId' | 'stepName'>): string {
  const where = node.todoId === null ? node.stepName : `in ${node.stepName}`;
  return `Workspace Agent: ${node.path} is a binary file (${CHANGE_WORDS[node.change]} ${where}): there is no text diff to show.`;
}

/** "exit 0", "exit 1", or "did not finish" (timed out or cancelled). */
export function exitWords(exitCode: number | null): string {
  return exitCode === null ? 'did not finish' : `exit ${exitCode}`;
}

/** The command's first line, cut to fit; "…" also says when more lines follow (a script). */
export function commandLabel(command: string): string {
  const lines = command.trim().split(/\r?\n/);
  const first = shorten(lines[0] ?? '', 60);
  return lines.length > 1 && !first.endsWith('…') ? `${first} …` : first;
}

export function commandNode(parentId: string, index: number, run: CommandRun): CommandNode {
  const finished = run.exitCode !== null;
  const passed = run.exitCode === 0;
  return {
    kind: 'command',
    id: `${parentId}/command:${index}`,
    label: commandLabel(run.command),
    description: exitWords(run.exitCode),
    tooltip: `$ ${run.command}\n${
      !finished ? 'Did not finish (timed out or cancelled)' : passed ? 'Exit status 0' : `Failed: exit status ${run.exitCode}`
    }`,
    accessibilityLabel: `command ${commandLabel(run.command)}, ${finished ? `exit status ${run.exitCode}` : 'did not finish'}`,
    icon: !finished ? 'circle-slash' : passed ? 'pass' : 'error',
    iconColor: !finished ? 'testing.iconSkipped' : passed ? 'testing.iconPassed' : 'testing.iconFailed',
  };
}

function children(sessionId: string, parentId: string, name: string, item: ItemChanges | undefined): StepNode['children'] {
  if (!item) {
    return [];
  }
  return [
    ...item.files.map((file) => fileNode(sessionId, parentId, item.todoId, name, file)),
    ...item.commands.map((run, index) => commandNode(parentId, index, run)),
  ];
}

const BEFORE_PLAN_ID = 'before-plan';

/**
 * The whole tree: "Before the plan" first (its changes came first), the plan's items in
 * order, then items with changes that the plan no longer lists.
 */
export function changeTree(plan: readonly TodoItem[], sessionId: string | undefined, changes: ChangesResult | undefined): StepNode[] {
  const byItem = new Map<string | null, ItemChanges>();
  const usable = sessionId !== undefined && changes?.sessionId === sessionId ? changes : undefined;
  for (const item of usable?.items ?? []) {
    byItem.set(item.todoId, item);
  }
  const revertible = (todoId: string | null): boolean => {
    const preview = usable ? revertPreview(usable, todoId) : undefined;
    return !!preview && preview.restore.length + preview.delete.length > 0;
  };
  const session = sessionId ?? '';
  const nodes: StepNode[] = [];

  const beforePlan = byItem.get(null);
  if (beforePlan) {
    const name = stepName(null);
    nodes.push({
      kind: 'step',
      id: BEFORE_PLAN_ID,
      todoId: null,
      label: 'Before the plan',
      description: itemSummary(beforePlan),
      tooltip: `Changes made before any plan item was in progress\n${itemSummary(beforePlan)}`,
      accessibilityLabel: `Before the plan, ${itemSummary(beforePlan)}`,
      icon: 'history',
      stepName: name,
      revertible: revertible(null),
      children: children(session, BEFORE_PLAN_ID, name, beforePlan),
    });
  }

  const rows = planRows(plan);
  plan.forEach((todo, index) => {
    const row = rows[index];
    if (!row) {
      return;
    }
    const item = byItem.get(todo.id);
    const summary = itemSummary(item);
    const id = `item:${todo.id}`;
    const name = stepName(todo.id, todo.text);
    nodes.push({
      kind: 'step',
      id,
      todoId: todo.id,
      label: row.label,
      description: summary ? `${row.description} · ${summary}` : row.description,
      tooltip: summary ? `${row.tooltip}\nChanged: ${summary}` : row.tooltip,
      accessibilityLabel: row.accessibilityLabel,
      icon: row.icon,
      ...(row.iconColor ? { iconColor: row.iconColor } : {}),
      stepName: name,
      revertible: revertible(todo.id),
      children: children(session, id, name, item),
    });
  });

  const planned = new Set(plan.map((todo) => todo.id));
  for (const item of usable?.items ?? []) {
    if (item.todoId === null || planned.has(item.todoId)) {
      continue;
    }
    const id = `gone:${item.todoId}`;
    const name = stepName(item.todoId);
    nodes.push({
      kind: 'step',
      id,
      todoId: item.todoId,
      label: `Step #${item.todoId}`,
      description: `not in the current plan · ${itemSummary(item)}`,
      tooltip: `Plan item #${item.todoId} is no longer in the plan; these are the changes made under it.`,
      accessibilityLabel: `Step ${item.todoId}, no longer in the plan, ${itemSummary(item)}`,
      icon: 'question',
      stepName: name,
      revertible: revertible(item.todoId),
      children: children(session, id, name, item),
    });
  }
  return nodes;
}

/** What Revert to Before This Step will do, as far as the changes payload tells. */
export interface RevertPreview {
  /** Files that existed before the step: they get that content back. */
  restore: string[];
  /** Files the agent created from the step on: they are deleted. */
  delete: string[];
}

/**
 * The files a revert to before `todoId` touches: every file changed under that item or an
 * item whose first change came after it (the payload's order). A file that existed when
 * the step began is restored; one created since is deleted (if it still exists). Exact
 * unless an earlier item changed files again after this step had begun (the server
 * reverts those too; its result lists everything it did).
 */
export function revertPreview(changes: ChangesResult, todoId: string | null): RevertPreview | undefined {
  const start = changes.items.findIndex((item) => item.todoId === todoId);
  if (start < 0) {
    return undefined;
  }
  const first = new Map<string, ChangeKind>();
  const last = new Map<string, ChangeKind>();
  for (const item of changes.items.slice(start)) {
    for (const file of item.files) {
      if (!first.has(file.path)) {
        first.set(file.path, file.change);
      }
      last.set(file.path, file.change);
    }
  }
  const restore: string[] = [];
  const remove: string[] = [];
  for (const [filePath, change] of first) {
    if (change !== 'added') {
      restore.push(filePath);
    } else if (last.get(filePath) !== 'deleted') {
      remove.push(filePath);
    }
  }
  return { restore: restore.sort(), delete: remove.sort() };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
