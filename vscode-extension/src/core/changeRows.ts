/**
 * The Plan view as a tree: each plan item with the files it changed and the commands it
 * ran underneath, a "Before the plan" group for changes made while no item was in
 * progress, and earlier steps (a plan the agent replaced, an earlier run's steps) at the
 * end.
 *
 * Plan item ids are reused by later plans (models number every plan from "1"), so the
 * server keeps each occurrence of an item apart (`key`, with its `text`). A row of the
 * current plan shows the latest occurrence of its id when that occurrence has the row's
 * text; every other occurrence is an earlier step, shown with its own text.
 *
 * Pure (no `vscode` import), so what the user reads (labels, "+12 −3", the exit status,
 * tooltips, diff titles) is unit-tested; planView.ts turns these nodes into TreeItems.
 */
import type { ChangeKind, ChangedFile, ChangesResult, CommandRun, ItemChanges, TodoItem } from '../protocol';
import { type PlanRow, planRows } from './plan';
import { shorten } from './status';

/** Codicons (with a theme colour) for a step group or a command's exit status. */
export type ChangeIcon = 'history' | 'question' | 'pass' | 'error' | 'circle-slash' | 'bell-dot' | 'discard';
export type ChangeIconColor = 'testing.iconPassed' | 'testing.iconFailed' | 'testing.iconSkipped';

/** A plan item, the "Before the plan" group, or an earlier step. */
export interface StepNode {
  kind: 'step';
  /** Tree element id: unique in the tree, stable across updates. */
  id: string;
  todoId: string | null;
  /** The occurrence it shows (absent: none, or a server that sends no keys). */
  key?: string;
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
  /** The occurrence of the item it was changed under (for its diff). */
  key?: string;
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
  /** The file is now as before that step: no M/A/D letter, "reverted" in its row. */
  reverted: boolean;
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
  /** Its output opens with workspaceAgent/toolOutput (absent from older servers). */
  toolUseId?: string;
  command: string;
}

/** "Earlier runs": the steps of replaced plans and earlier runs, folded into one row. */
export interface GroupNode {
  kind: 'group';
  id: string;
  label: string;
  description: string;
  tooltip: string;
  accessibilityLabel: string;
  children: StepNode[];
}

export type ChangeNode = StepNode | FileNode | CommandNode;
export type TreeNode = ChangeNode | GroupNode;

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

export function fileNode(sessionId: string, parentId: string, item: Pick<ItemChanges, 'todoId' | 'key'>, name: string, file: ChangedFile): FileNode {
  const { todoId } = item;
  const stats = lineStats(file);
  const folder = folderOf(file.path);
  const word = CHANGE_WORDS[file.change];
  const lines = file.binary
    ? 'binary file (no line counts)'
    : `${plural(file.additions, 'line')} added, ${file.deletions} removed`;
  const reverted = file.reverted === true;
  const described = folder ? `${stats} · ${folder}` : stats;
  return {
    kind: 'file',
    id: `${parentId}/file:${file.path}`,
    sessionId,
    todoId,
    ...(item.key !== undefined ? { key: item.key } : {}),
    path: file.path,
    change: file.change,
    binary: !!file.binary,
    label: baseName(file.path),
    description: reverted ? `reverted · ${described}` : described,
    tooltip: `${file.path}\n${capitalise(word)} ${todoId === null ? name : `in ${name}`} · ${lines}\n${
      reverted ? 'Reverted: the file is now as it was before this step.\n' : ''
    }${file.binary ? 'A binary file: there is no text diff.' : 'Click to compare before and after this step.'}`,
    accessibilityLabel: `${file.path}, ${word}, ${file.binary ? 'binary' : lines}${reverted ? ', reverted' : ''}`,
    diffTitle: `${baseName(file.path)} (${name}${reverted ? ', reverted' : ''})`,
    stepName: name,
    reverted,
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
    command: run.command,
    ...(run.toolUseId ? { toolUseId: run.toolUseId } : {}),
  };
}

function children(sessionId: string, parentId: string, name: string, item: ItemChanges | undefined): StepNode['children'] {
  if (!item) {
    return [];
  }
  return [
    ...item.files.map((file) => fileNode(sessionId, parentId, item, name, file)),
    ...item.commands.map((run, index) => commandNode(parentId, index, run)),
  ];
}

const BEFORE_PLAN_ID = 'before-plan';

/** Texts agree with whitespace normalised (the server compares them the same way). */
function sameText(a: string, b: string): boolean {
  return a.split(/\s+/).filter(Boolean).join(' ') === b.split(/\s+/).filter(Boolean).join(' ');
}

/** Whether an occurrence is the plan row with this text (no text recorded: by id alone). */
function isRowOf(item: ItemChanges, text: string): boolean {
  return item.text === null || item.text === undefined || sameText(item.text, text) || (item.lastText !== undefined && sameText(item.lastText, text));
}

/** "run 2 (“Make it split at commas”)", or "" when the payload says nothing of runs. */
function runWords(changes: ChangesResult, run: number | null | undefined): string {
  const found = changes.runs?.find((r) => r.run === run);
  if (!found) {
    return '';
  }
  return found.prompt ? `run ${found.run} (“${shorten(found.prompt, 60)}”)` : `run ${found.run}`;
}

/** Which entry of the payload each plan row, and "Before the plan", shows. */
function matchRows(plan: readonly TodoItem[], items: readonly ItemChanges[]): { rows: Map<string, ItemChanges>; beforePlan?: ItemChanges } {
  const latest = new Map<string | null, ItemChanges>();
  for (const item of items) {
    latest.set(item.todoId, item); // the payload is in the order the occurrences began
  }
  const rows = new Map<string, ItemChanges>();
  for (const todo of plan) {
    const item = latest.get(todo.id);
    if (item && isRowOf(item, todo.text)) {
      rows.set(todo.id, item);
    }
  }
  const beforePlan = latest.get(null);
  return { rows, ...(beforePlan ? { beforePlan } : {}) };
}

/**
 * The whole tree: "Before the plan" first (its changes came first), the plan's items in
 * order, then earlier steps: occurrences no row of the plan shows, in the order they began.
 */
export function changeTree(
  plan: readonly TodoItem[],
  sessionId: string | undefined,
  changes: ChangesResult | undefined,
  /** No run goes: an item in progress is shown as stopped. */
  stopped = false,
): StepNode[] {
  const usable = sessionId !== undefined && changes?.sessionId === sessionId ? changes : undefined;
  const items = usable?.items ?? [];
  const { rows: byRow, beforePlan } = matchRows(plan, items);
  const canRevert = (item: ItemChanges | undefined): boolean => !!usable && !!item && revertible(usable, item);
  const session = sessionId ?? '';
  const nodes: StepNode[] = [];
  const key = (item: ItemChanges | undefined): { key?: string } => (item?.key !== undefined ? { key: item.key } : {});

  if (beforePlan) {
    const name = stepName(null);
    const run = usable && (usable.runs?.length ?? 0) > 1 ? runWords(usable, beforePlan.run) : '';
    nodes.push({
      kind: 'step',
      id: BEFORE_PLAN_ID,
      todoId: null,
      ...key(beforePlan),
      label: 'Before the plan',
      description: itemSummary(beforePlan),
      tooltip: `Changes made before any plan item was in progress${run ? `, in ${run}` : ''}\n${itemSummary(beforePlan)}`,
      accessibilityLabel: `Before the plan, ${itemSummary(beforePlan)}`,
      icon: 'history',
      stepName: name,
      revertible: canRevert(beforePlan),
      children: children(session, BEFORE_PLAN_ID, name, beforePlan),
    });
  }

  const rows = planRows(plan, stopped);
  plan.forEach((todo, index) => {
    const row = rows[index];
    if (!row) {
      return;
    }
    const item = byRow.get(todo.id);
    const summary = itemSummary(item);
    const id = `item:${todo.id}`;
    const name = stepName(todo.id, todo.text);
    nodes.push({
      kind: 'step',
      id,
      todoId: todo.id,
      ...key(item),
      label: row.label,
      description: summary ? `${row.description} · ${summary}` : row.description,
      tooltip: summary ? `${row.tooltip}\nChanged: ${summary}` : row.tooltip,
      accessibilityLabel: row.accessibilityLabel,
      icon: row.icon,
      ...(row.iconColor ? { iconColor: row.iconColor } : {}),
      stepName: name,
      revertible: canRevert(item),
      children: children(session, id, name, item),
    });
  });

  const shown = new Set<ItemChanges>([...byRow.values(), ...(beforePlan ? [beforePlan] : [])]);
  for (const item of items) {
    if (!shown.has(item) && usable) {
      nodes.push(earlierStep(usable, plan, session, item));
    }
  }
  return nodes.map((node) => markReverted(node, items));
}

/** A step whose changes a revert took back says so: icon, description, screen readers. */
function markReverted(node: StepNode, items: readonly ItemChanges[]): StepNode {
  const item = items.find((entry) => (node.key !== undefined ? entry.key === node.key : entry.todoId === node.todoId));
  if (!item?.reverted) {
    return node;
  }
  const rest: StepNode = { ...node };
  delete rest.iconColor; // not the green of a completed step
  return {
    ...rest,
    description: `reverted · ${node.description}`,
    tooltip: `${node.tooltip}\nReverted: its changes are taken back (Undo Last Revert brings them back).`,
    accessibilityLabel: `${node.accessibilityLabel}, reverted`,
    icon: 'discard',
  };
}

const EARLIER_ID = 'earlier-runs';

/**
 * The steps no plan row shows (replaced plans, earlier runs, earlier "before the plan"
 * changes) fold into one "Earlier runs" row after the plan, so they never pile up.
 */
export function foldEarlier(nodes: StepNode[]): (StepNode | GroupNode)[] {
  const earlier = nodes.filter((node) => node.id.startsWith('gone:'));
  if (!earlier.length) {
    return nodes;
  }
  const count = plural(earlier.length, 'step');
  return [
    ...nodes.filter((node) => !node.id.startsWith('gone:')),
    {
      kind: 'group',
      id: EARLIER_ID,
      label: 'Earlier runs',
      description: count,
      tooltip: `${count} of plans the agent replaced and of earlier runs, with what they changed`,
      accessibilityLabel: `Earlier runs, ${count}`,
      children: earlier,
    },
  ];
}

/** An occurrence no row shows: a step of a plan the agent replaced, or of an earlier run. */
function earlierStep(changes: ChangesResult, plan: readonly TodoItem[], session: string, item: ItemChanges): StepNode {
  const id = item.key !== undefined ? `gone:${item.key}` : `gone:${item.todoId ?? ''}`;
  const summary = itemSummary(item);
  const run = runWords(changes, item.run);
  const text = item.lastText ?? item.text ?? undefined;
  const name = stepName(item.todoId, text);
  const common = {
    kind: 'step' as const,
    id,
    todoId: item.todoId,
    ...(item.key !== undefined ? { key: item.key } : {}),
    icon: item.todoId === null ? ('history' as const) : ('question' as const),
    stepName: name,
    revertible: revertible(changes, item),
    children: children(session, id, name, item),
  };
  if (item.todoId === null) {
    return {
      ...common,
      label: 'Before the plan',
      description: `earlier · ${summary}`,
      tooltip: `Changes made before any plan item was in progress${run ? `, in ${run}` : ''}\n${summary}`,
      accessibilityLabel: `Before the plan, earlier, ${summary}`,
    };
  }
  const when = run ? ` in ${run}` : '';
  if (!text) {
    return {
      ...common,
      label: `Step #${item.todoId}`,
      description: `not in the current plan · ${summary}`,
      tooltip: `Plan item #${item.todoId} is no longer in the plan; these are the changes made under it${when}.`,
      accessibilityLabel: `Step ${item.todoId}, no longer in the plan, ${summary}`,
    };
  }
  // The same step again in the current plan (done again since), or a step the plan lost.
  const again = plan.some((todo) => todo.id === item.todoId && isRowOf(item, todo.text));
  return {
    ...common,
    label: text,
    description: `#${item.todoId} · ${again ? 'earlier' : 'not in the current plan'} · ${summary}`,
    tooltip: again
      ? `${text}\nThis step was worked on before${when}; these are the changes made then.`
      : `${text}\nPlan item #${item.todoId} of an earlier plan${when}; these are the changes made under it.`,
    accessibilityLabel: `${text}, ${again ? 'earlier' : 'not in the current plan'}, ${summary}`,
  };
}

function revertible(changes: ChangesResult, item: ItemChanges): boolean {
  const preview = revertPreview(changes, item);
  return !!preview && preview.restore.length + preview.delete.length > 0;
}

/** The payload's entry a step names: its occurrence (key), else the latest of its id. */
export function findEntry(changes: ChangesResult, step: { todoId: string | null; key?: string }): ItemChanges | undefined {
  if (step.key !== undefined) {
    return changes.items.find((item) => item.key === step.key);
  }
  let latest: ItemChanges | undefined;
  for (const item of changes.items) {
    if (item.todoId === step.todoId) {
      latest = item;
    }
  }
  return latest;
}

/** What Revert to Before This Step will do, as far as the changes payload tells. */
export interface RevertPreview {
  /** Files that existed before the step: they get that content back. */
  restore: string[];
  /** Files the agent created from the step on: they are deleted. */
  delete: string[];
}

/**
 * A guess at the files a revert to before `item` touches, for servers that cannot do a
 * dry run (and for whether a step row offers the revert at all): every file changed under
 * that entry or an entry that began after it (the payload's order). A file that existed
 * when the step began is restored; one created since is deleted (if it still exists).
 * It misses files an earlier step changed again later, and cannot know what will be
 * skipped: the dry run (workspaceAgent.revert with dryRun) is exact.
 */
export function revertPreview(changes: ChangesResult, item: ItemChanges): RevertPreview | undefined {
  const start = changes.items.indexOf(item);
  if (start < 0) {
    return undefined;
  }
  const first = new Map<string, ChangeKind>();
  const last = new Map<string, ChangeKind>();
  for (const later of changes.items.slice(start)) {
    for (const file of later.files) {
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

/**
 * The step rows a question waits on say so ("waiting for you" first in the description,
 * and to screen readers), with a bell in place of the spinner; other rows are untouched.
 */
export function markWaiting(nodes: StepNode[], waitingTodoIds: ReadonlySet<string>): StepNode[] {
  if (!waitingTodoIds.size) {
    return nodes;
  }
  return nodes.map((node) =>
    node.todoId !== null && node.id === `item:${node.todoId}` && waitingTodoIds.has(node.todoId)
      ? {
          ...node,
          description: `waiting for you · ${node.description}`,
          accessibilityLabel: `${node.accessibilityLabel}, waiting for you`,
          tooltip: `${node.tooltip}\nWaiting for your approval (in the Conversation view)`,
          icon: 'bell-dot',
        }
      : node,
  );
}
