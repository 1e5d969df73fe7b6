/**
 * The Plan view as a tree: each plan item with the files it changed and the commands it
 * ran underneath, a "Before the plan" group for changes made while no item was in
 * progress, and earlier steps (a plan the agent replaced, an earlier run's steps) at the
 * end.
 *
 * Plan item ids are reused by later plans (models number every plan from "1"), so the
 * server keeps each occurrence of an item apart (`key`, with its `text`), and says what
 * the view shows of each: its name (`displayName`), whether a revert to before it has
 * anything to take back (`revertible`) and which plan row shows it (`shown`, on the row
 * whose text is its `planRow`); every other occurrence is an earlier step, shown with its
 * own text. Nothing of that is worked out here: these are the server's facts, rendered.
 *
 * Pure (no `vscode` import), so what the user reads (labels, "+12 −3", the exit status,
 * tooltips, diff titles) is unit-tested; planView.ts turns these nodes into TreeItems.
 */
import type { ChangeKind, ChangedFile, ChangesResult, CommandRun, ItemChanges, TodoItem } from '../protocol';
import { type PlanRow, planRows } from './plan';
import { shorten } from './status';
import { plural } from './words';

/** Codicons (with a theme colour) for a step group or a command's exit status. */
export type ChangeIcon = 'history' | 'question' | 'pass' | 'error' | 'circle-slash' | 'bell-dot' | 'discard';
export type ChangeIconColor = 'testing.iconPassed' | 'testing.iconFailed' | 'testing.iconSkipped';

/** A plan item, the "Before the plan" group, or an earlier step. */
export interface StepNode {
  kind: 'step';
  /** Tree element id: unique in the tree, stable across updates. */
  id: string;
  todoId: string | null;
  /** The occurrence it shows (absent: a plan row that changed nothing). */
  key?: string;
  label: string;
  description: string;
  tooltip: string;
  accessibilityLabel: string;
  icon: PlanRow['icon'] | ChangeIcon;
  iconColor?: PlanRow['iconColor'];
  /** The server says Revert to Before This Step has something to take back. */
  revertible: boolean;
  /** Its subagents' plans first (subagentPlans.ts), then what it changed. */
  children: (SubagentNode | FileNode | CommandNode)[];
}

/** A subagent a `task` call started under a step, with its own plan as its rows. */
export interface SubagentNode {
  kind: 'subagent';
  id: string;
  /** Its task call, for the Conversation view's card. */
  toolUseId: string;
  label: string;
  description: string;
  tooltip: string;
  accessibilityLabel: string;
  icon: 'hubot' | 'loading~spin' | 'error' | 'circle-slash';
  running: boolean;
  children: SubtaskNode[];
}

/** One item of a subagent's own plan. */
export interface SubtaskNode {
  kind: 'subtask';
  id: string;
  label: string;
  description: string;
  tooltip: string;
  accessibilityLabel: string;
  icon: PlanRow['icon'];
  iconColor?: PlanRow['iconColor'];
}

export interface FileNode {
  kind: 'file';
  id: string;
  sessionId: string;
  todoId: string | null;
  /** The occurrence of the item it was changed under (for its diff). */
  key: string;
  /** As the server lists it: a name that is not UTF-8 in its readable form. */
  path: string;
  /** That name's bytes (base64), which fetch its diff exactly. */
  pathBytes?: string;
  change: ChangeKind;
  binary: boolean;
  /** The file name; the folder is in the description. */
  label: string;
  description: string;
  tooltip: string;
  accessibilityLabel: string;
  /** The diff editor's title, e.g. 'app.py (plan item #2 "Format the code")'. */
  diffTitle: string;
  /** The server's name of the item it was changed under (ItemChanges.displayName). */
  displayName: string;
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

export type ChangeNode = StepNode | FileNode | CommandNode | SubagentNode | SubtaskNode;
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

export function fileNode(sessionId: string, parentId: string, item: Pick<ItemChanges, 'todoId' | 'key' | 'displayName'>, file: ChangedFile): FileNode {
  const { todoId, displayName: name } = item;
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
    key: item.key,
    path: file.path,
    ...(file.pathBytes !== undefined ? { pathBytes: file.pathBytes } : {}),
    change: file.change,
    binary: !!file.binary,
    label: baseName(file.path),
    description: reverted ? `reverted · ${described}` : described,
    tooltip: `${file.path}\n${capitalise(word)} in ${name} · ${lines}\n${
      reverted ? 'Reverted: the file is now as it was before this step.\n' : ''
    }${file.unsure ? `Maybe not all this step's: ${file.unsure}; a revert asks before taking it back.\n` : ''}${file.binary ? 'A binary file: there is no text diff.' : 'Click to compare before and after this step.'}`,
    accessibilityLabel: `${file.path}, ${word}, ${file.binary ? 'binary' : lines}${reverted ? ', reverted' : ''}`,
    diffTitle: `${baseName(file.path)} (${name}${reverted ? ', reverted' : ''})`,
    displayName: name,
    reverted,
  };
}

/** Why a binary file opens no diff. */
export function binaryNotice(node: Pick<FileNode, 'path' | 'change' | 'displayName'>): string {
  return `Workspace Agent: ${node.path} is a binary file (${CHANGE_WORDS[node.change]} in ${node.displayName}): there is no text diff to show.`;
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

function children(sessionId: string, parentId: string, item: ItemChanges | undefined): StepNode['children'] {
  if (!item) {
    return [];
  }
  return [
    ...item.files.map((file) => fileNode(sessionId, parentId, item, file)),
    ...item.commands.map((run, index) => commandNode(parentId, index, run)),
  ];
}

const BEFORE_PLAN_ID = 'before-plan';

/**
 * Whether the server's payload puts this occurrence on a row with this text: its row as
 * the server had the plan (planRow) is this very row. The plan can be newer than the
 * payload (a workspaceAgent/todos notification comes first): then the row shows nothing
 * until the next payload, rather than another step's changes.
 */
function isOnRow(item: ItemChanges, todo: TodoItem): boolean {
  return item.todoId === todo.id && item.planRow === todo.text;
}

/** "run 2 (“Make it split at commas”)", or "" when the payload says nothing of runs. */
function runWords(changes: ChangesResult, run: number | null | undefined): string {
  const found = changes.runs?.find((r) => r.run === run);
  if (!found) {
    return '';
  }
  return found.prompt ? `run ${found.run} (“${shorten(found.prompt, 60)}”)` : `run ${found.run}`;
}

/** A run's prompt as a row's name: “Fix the typo in README” (undefined: not recorded). */
function runName(changes: ChangesResult | undefined, run: number | null | undefined): string | undefined {
  const prompt = changes?.runs?.find((r) => r.run === run)?.prompt;
  return prompt ? `“${shorten(prompt, 50)}”` : undefined;
}

/**
 * The whole tree: "Before the plan" first (its changes came first), the plan's items in
 * order (then, named by its task, what a later run without a plan changed), then earlier
 * steps: occurrences no row of the plan shows, in the order they began.
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
  const session = sessionId ?? '';
  const nodes: StepNode[] = [];
  const shown = new Set<ItemChanges>();
  const facts = (item: ItemChanges | undefined): { key?: string; revertible: boolean } =>
    item ? { key: item.key, revertible: item.revertible } : { revertible: false };

  const beforePlan = items.find((item) => item.todoId === null && item.shown);
  // Work done with no item in progress *after* a step of the plan began (a later run without
  // a plan of its own) is not "before the plan": named by its task, it goes after the plan's
  // rows, where it happened (the items come in the order they began).
  const beforeAt = beforePlan ? items.indexOf(beforePlan) : -1;
  const stepsBefore = beforeAt > 0 ? items.slice(0, beforeAt).filter((entry) => entry.shown && plan.some((todo) => isOnRow(entry, todo))) : [];
  const afterPlan = stepsBefore.length > 0;
  // A later run's (it began after every run the plan's steps ran in) is named by its task.
  const lastRun = beforePlan?.run;
  const laterRun = afterPlan && typeof lastRun === 'number' && stepsBefore.every((entry) => typeof entry.run === 'number' && entry.run < lastRun);
  let afterTheSteps: StepNode | undefined;
  if (beforePlan) {
    shown.add(beforePlan);
    const run = usable && (usable.runs?.length ?? 0) > 1 ? runWords(usable, beforePlan.run) : '';
    // Without a plan there is no "before": the row is named by the task whose changes it holds.
    const label = laterRun
      ? (runName(usable, beforePlan.run) ?? 'Changes after the plan')
      : afterPlan
        ? 'After the plan'
        : plan.length === 0
          ? (runName(usable, beforePlan.run) ?? 'Changes without a plan')
          : 'Before the plan';
    const why = afterPlan
      ? 'Changes made after the plan\'s steps, with no plan item in progress'
      : plan.length === 0
        ? 'Changes made without a plan'
        : 'Changes made before any plan item was in progress';
    const node = markReverted(beforePlan, {
      kind: 'step',
      id: BEFORE_PLAN_ID,
      todoId: null,
      ...facts(beforePlan),
      label,
      description: itemSummary(beforePlan),
      tooltip: `${why}${run ? `, in ${run}` : ''}\n${itemSummary(beforePlan)}`,
      // What a screen reader says is what the row shows.
      accessibilityLabel: `${label}, ${itemSummary(beforePlan)}`,
      icon: 'history',
      children: children(session, BEFORE_PLAN_ID, beforePlan),
    });
    if (afterPlan) {
      afterTheSteps = node;
    } else {
      nodes.push(node);
    }
  }

  const rows = planRows(plan, stopped);
  plan.forEach((todo, index) => {
    const row = rows[index];
    if (!row) {
      return;
    }
    const item = items.find((entry) => entry.shown && isOnRow(entry, todo));
    if (item) {
      shown.add(item);
    }
    const summary = itemSummary(item);
    const id = `item:${todo.id}`;
    nodes.push(
      markReverted(item, {
        kind: 'step',
        id,
        todoId: todo.id,
        ...facts(item),
        label: row.label,
        description: summary ? `${row.description} · ${summary}` : row.description,
        tooltip: summary ? `${row.tooltip}\nChanged: ${summary}` : row.tooltip,
        accessibilityLabel: row.accessibilityLabel,
        icon: row.icon,
        ...(row.iconColor ? { iconColor: row.iconColor } : {}),
        children: children(session, id, item),
      }),
    );
  });

  if (afterTheSteps) {
    nodes.push(afterTheSteps);
  }

  for (const item of items) {
    if (!shown.has(item) && usable) {
      nodes.push(markReverted(item, earlierStep(usable, plan, session, item)));
    }
  }
  return nodes;
}

/** A step whose changes a revert took back says so: icon, description, screen readers. */
function markReverted(item: ItemChanges | undefined, node: StepNode): StepNode {
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
  const id = `gone:${item.key}`;
  const summary = itemSummary(item);
  const run = runWords(changes, item.run);
  const text = item.lastText ?? item.text ?? undefined;
  const common = {
    kind: 'step' as const,
    id,
    todoId: item.todoId,
    key: item.key,
    icon: item.todoId === null ? ('history' as const) : ('question' as const),
    revertible: item.revertible,
    children: children(session, id, item),
  };
  if (item.todoId === null) {
    const name = runName(changes, item.run);
    return {
      ...common,
      label: name ?? 'Before the plan',
      description: `${name ? 'an earlier task' : 'earlier'} · ${summary}`,
      tooltip: `Changes made before any plan item was in progress${run ? `, in ${run}` : ''}\n${summary}`,
      accessibilityLabel: `${name ?? 'Before the plan'}, earlier, ${summary}`,
    };
  }
  const when = run ? ` in ${run}` : '';
  if (!text) {
    return {
      ...common,
      label: `Plan item #${item.todoId}`,
      description: `not in the current plan · ${summary}`,
      tooltip: `Plan item #${item.todoId} is no longer in the plan; these are the changes made under it${when}.`,
      accessibilityLabel: `Plan item ${item.todoId}, no longer in the plan, ${summary}`,
    };
  }
  // The same step again in the current plan (done again since), or a step the plan lost.
  const again = plan.some((todo) => isOnRow(item, todo));
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

/** The payload's entry of a step row's occurrence (absent: it changed nothing, or the payload is newer). */
export function findEntry(changes: ChangesResult, step: Pick<StepNode, 'key'>): ItemChanges | undefined {
  return step.key === undefined ? undefined : changes.items.find((item) => item.key === step.key);
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
