/**
 * The agent's plan as the Plan view shows it: rows, icons, and the "2/5" progress.
 *
 * Pure logic (no `vscode` import) so the mapping from workspaceAgent/todos notifications to
 * what the user sees is unit-tested without an editor; planView.ts only turns these rows
 * into TreeItems.
 */
import type { Changes, ItemCheck, ItemCheckParams, TodoItem, TodoStatus } from '../protocol';

/** Codicon ids that exist in VS Code; `loading~spin` is the animated spinner. */
export type PlanIcon = 'circle-large-outline' | 'loading~spin' | 'pass-filled' | 'debug-stop';

export interface PlanRow {
  /** The item id: stable across updates, so it also keys the tree element. */
  id: string;
  label: string;
  /** Shown dimmed after the label. */
  description: string;
  icon: PlanIcon;
  /** A theme colour id for the icon, when it has one. */
  iconColor?: 'testing.iconPassed';
  tooltip: string;
  /** What screen readers (and the end-to-end test) read for the row. */
  accessibilityLabel: string;
}

const ICONS: Record<TodoStatus, PlanIcon> = {
  pending: 'circle-large-outline',
  in_progress: 'loading~spin',
  completed: 'pass-filled',
};

const STATUS_WORDS: Record<TodoStatus, string> = {
  pending: 'pending',
  in_progress: 'in progress',
  completed: 'completed',
};

export function statusWord(status: TodoStatus): string {
  return STATUS_WORDS[status] ?? status;
}

/**
 * One row per item, in the server's order. With `stopped` (no run goes), an item still
 * in progress is shown as stopped: nothing works on it, so no spinner says otherwise.
 */
export function planRows(items: readonly TodoItem[], stopped = false): PlanRow[] {
  return items.map((item) => {
    const halted = stopped && item.status === 'in_progress';
    const word = halted ? 'stopped' : statusWord(item.status);
    const check = item.check ? checkWords(item.check) : '';
    return {
      id: item.id,
      label: item.text,
      description: check ? `#${item.id} · ${check}` : `#${item.id}`,
      icon: halted ? 'debug-stop' : (ICONS[item.status] ?? 'circle-large-outline'),
      ...(item.status === 'completed' ? { iconColor: 'testing.iconPassed' as const } : {}),
      tooltip: `${item.text}\nStatus: ${word}${checkTooltip(item)}`,
      accessibilityLabel: check ? `${item.text}, ${word}, ${check}` : `${item.text}, ${word}`,
    };
  });
}

/** "check passed", "check failed: 1 failed, 3 passed": a plan item's last check, in a few words. */
export function checkWords(check: ItemCheck): string {
  if (check.passed) {
    return 'check passed';
  }
  return check.firstLine ? `check failed: ${check.firstLine}` : 'check failed';
}

/** Lines of a check's output the row's tooltip shows (the rest: the Conversation's hook row). */
const CHECK_TOOLTIP_LINES = 20;

/** The tooltip's lines about the item's checks: its own, and what the last one said. */
function checkTooltip(item: TodoItem): string {
  const own = item.checkCommand ? `\nIts check: ${item.checkCommand}` : '';
  const check = item.check;
  if (!check) {
    return own;
  }
  const who = check.hook === 'check' ? 'its own check' : `the TaskCompleted hook ${check.hook}`;
  const lines = check.output.split('\n');
  const shown = lines.slice(0, CHECK_TOOLTIP_LINES).join('\n');
  const more = lines.length > CHECK_TOOLTIP_LINES ? `\n… ${lines.length - CHECK_TOOLTIP_LINES} more lines` : '';
  return `${own}\n${checkWords(check)} (${who}, ${check.durationMs} ms)${shown ? `\n${shown}${more}` : ''}`;
}

/**
 * The params of workspaceAgent/setItemCheck from what the user typed in Add Check… (a blank
 * answer takes the check away); undefined when the box was dismissed.
 */
export function itemCheckParams(sessionId: string, todoId: string, typed: string | undefined): ItemCheckParams | undefined {
  if (typed === undefined) {
    return undefined;
  }
  const command = typed.trim();
  return { sessionId, todoId, command: command || null };
}

/** What Add Check…'s input box says and starts with, for a plan item. */
export function addCheckPrompt(item: TodoItem): { prompt: string; value: string; placeHolder: string } {
  return {
    prompt: `A command run in the workspace when #${item.id} "${item.text}" is marked done: the item is done only when it exits 0 (empty: no check)`,
    value: item.checkCommand ?? '',
    placeHolder: 'npm test -- parser',
  };
}

export interface PlanProgress {
  completed: number;
  total: number;
  /** "2/5", or "" when there is no plan. */
  fraction: string;
  /** The item being worked on, if any. */
  current?: TodoItem;
}

/** Counts from the items themselves (the payload's counts are the same numbers). */
export function planProgress(items: readonly TodoItem[]): PlanProgress {
  const completed = items.filter((item) => item.status === 'completed').length;
  const current = items.find((item) => item.status === 'in_progress');
  return {
    completed,
    total: items.length,
    fraction: items.length ? `${completed}/${items.length}` : '',
    ...(current ? { current } : {}),
  };
}

/**
 * The plan items whose changes are taken back now (a revert to before them, or of them
 * alone): the current plan's rows of the changes payload that say `reverted`.
 */
export function revertedItems(changes: Pick<Changes, 'items'> | undefined): Set<string> {
  return new Set((changes?.items ?? []).flatMap((item) => (item.reverted && item.shown && item.todoId !== null ? [item.todoId] : [])));
}

/**
 * The Plan view's header: "2/3", and with reverted steps "0/3 · 3 reverted" (a step done
 * and then reverted is not done: its changes are gone).
 */
export function planHeader(items: readonly TodoItem[], reverted: ReadonlySet<string> = new Set()): string {
  if (!items.length) {
    return '';
  }
  const back = items.filter((item) => reverted.has(item.id)).length;
  const done = items.filter((item) => item.status === 'completed' && !reverted.has(item.id)).length;
  return back ? `${done}/${items.length} · ${back} reverted` : `${done}/${items.length}`;
}

/** "2/5 · Write the tests" (the same wording as the server's work-done progress). */
export function progressMessage(items: readonly TodoItem[]): string {
  const { fraction, current } = planProgress(items);
  if (!fraction) {
    return 'working…';
  }
  return current ? `${fraction} · ${current.text}` : fraction;
}

/** Percentage of the plan completed, or undefined when there is no plan. */
export function progressPercent(items: readonly TodoItem[]): number | undefined {
  const { completed, total } = planProgress(items);
  return total ? Math.round((100 * completed) / total) : undefined;
}

/**
 * Badge for the view: what needs the user, the questions waiting for an answer (a count of
 * completed items read like things to look at); none when nothing waits.
 */
export function planBadge(waiting: number): { value: number; tooltip: string } | undefined {
  if (waiting <= 0) {
    return undefined;
  }
  return { value: waiting, tooltip: waiting === 1 ? '1 question waits for your answer' : `${waiting} questions wait for your answer` };
}


/**
 * Whether the Plan view should open itself now. The view starts collapsed (package.json):
 * VS Code has no API to size a view, and an expanded empty Plan keeps its share of the side
 * bar, which the Conversation needs more. So it opens when there is something to show (a
 * plan, a draft, earlier steps), once per empty→shown change, and only while the user
 * watches the agent (the Conversation view is on screen): opening it also opens its side
 * bar, which must not take the Explorer away from someone who is not looking. A plan that
 * arrives while nobody watches opens it the next time the Conversation shows (`pending`).
 * It is never collapsed again by the extension: the user's own fold stays as they left it.
 */
export function planViewOpening(rows: number, state: { pending: boolean; hadRows: boolean }, on: { planVisible: boolean; watching: boolean }): {
  open: boolean;
  pending: boolean;
  hadRows: boolean;
} {
  const hadRows = rows > 0;
  const wanted = hadRows && !on.planVisible && (state.pending || !state.hadRows);
  if (!wanted) {
    return { open: false, pending: false, hadRows };
  }
  return on.watching ? { open: true, pending: false, hadRows } : { open: false, pending: true, hadRows };
}
