/**
 * A plan the user shapes before anything runs: the plan of a run that stopped with
 * `planReady`, as an editable draft (reword, reorder, delete, add, comment), and the
 * `workspaceAgent/approvePlan` params it becomes (Run This Plan / Keep Planning).
 *
 * Pure and immutable (each edit returns a new draft), so every edit, the order and the
 * marks of a revision (`planDiff`: new and reworded items, removed ones) are unit-tested
 * without an editor; planEditor.ts only wires these to commands and the Plan view. The
 * agent's logic stays in the server: the draft only records what the user did.
 */
import type { ApprovePlanParams, PlanAction, PlanItem, RunResult } from '../protocol';
import { USER_ITEM_ID_PREFIX } from '../protocol';
import { renderMarkdown } from './markdown';

/** What the server's planDiff said of an item against the plan the user sent back. */
export type RevisionMark = 'new' | 'reworded';

export interface DraftItem {
  id: string;
  text: string;
  /** The user reworded or added it (sent as `edited: true`). */
  edited: boolean;
  /** The user added it (its id is the draft's own, `user-N`). */
  added: boolean;
  /** The model's revision made it new or reworded it (from planDiff). */
  mark?: RevisionMark;
  /** With `mark: 'reworded'`: the text before the revision. */
  previousText?: string;
  /** The user's comment for the model, shown under the item. */
  comment?: string;
}

export interface PlanDraft {
  sessionId: string;
  /** The model's summary of the approach (the run's final text). */
  summary: string;
  items: readonly DraftItem[];
  /** Items the model's revision dropped (planDiff.removed), shown struck through. */
  removed: readonly PlanItem[];
  /** 1 for the first plan, +1 for each revision. */
  revision: number;
}

/** The draft of a run that stopped with a plan, else undefined. `revision` counts up from the last draft. */
export function draftFromResult(result: RunResult, previous?: PlanDraft): PlanDraft | undefined {
  if (result.stopReason !== 'planReady' || !result.todos.length) {
    return undefined;
  }
  const diff = new Map((result.planDiff?.items ?? []).map((entry) => [entry.id, entry]));
  const items = result.todos.map((todo): DraftItem => {
    const change = diff.get(todo.id);
    const mark = change?.change === 'new' || change?.change === 'reworded' ? change.change : undefined;
    return {
      id: todo.id,
      text: todo.text,
      edited: false,
      added: false,
      ...(mark ? { mark } : {}),
      ...(mark === 'reworded' && change?.previousText !== undefined ? { previousText: change.previousText } : {}),
    };
  });
  const sameSession = previous?.sessionId === result.sessionId;
  return {
    sessionId: result.sessionId,
    summary: result.text,
    items,
    removed: result.planDiff?.removed ?? [],
    revision: result.planDiff && sameSession ? previous.revision + 1 : 1,
  };
}

function update(draft: PlanDraft, id: string, change: (item: DraftItem) => DraftItem): PlanDraft {
  if (!draft.items.some((item) => item.id === id)) {
    return draft;
  }
  return { ...draft, items: draft.items.map((item) => (item.id === id ? change(item) : item)) };
}

/** One line, trimmed: the server takes one line per item. */
export function cleanText(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** Why `text` cannot be an item's text (undefined: it can), for the input box. */
export function textProblem(text: string): string | undefined {
  return cleanText(text) ? undefined : 'An item needs some words (to remove it, use Delete Plan Item).';
}

/** The item in the user's words; the same words again change nothing. */
export function reword(draft: PlanDraft, id: string, text: string): PlanDraft {
  const words = cleanText(text);
  const item = draft.items.find((candidate) => candidate.id === id);
  if (!words || !item || item.text === words) {
    return draft;
  }
  return update(draft, id, (old) => ({ ...old, text: words, edited: true }));
}

/** Moves the item to `index` of the list without it (clamped): drag and drop. */
export function moveTo(draft: PlanDraft, id: string, index: number): PlanDraft {
  const from = draft.items.findIndex((item) => item.id === id);
  if (from < 0) {
    return draft;
  }
  const rest = draft.items.filter((item) => item.id !== id);
  const to = Math.max(0, Math.min(rest.length, index));
  if (to === from) {
    return draft;
  }
  return { ...draft, items: [...rest.slice(0, to), ...draft.items.slice(from, from + 1), ...rest.slice(to)] };
}

/** Move Up (-1) / Move Down (+1); at either end nothing moves. */
export function moveBy(draft: PlanDraft, id: string, delta: number): PlanDraft {
  const from = draft.items.findIndex((item) => item.id === id);
  return from < 0 ? draft : moveTo(draft, id, from + delta);
}

/**
 * Drops the dragged items before `targetId` (undefined: at the end), in their order in
 * the plan, as a tree's drag and drop does.
 */
export function dropBefore(draft: PlanDraft, ids: readonly string[], targetId: string | undefined): PlanDraft {
  const moving = draft.items.filter((item) => ids.includes(item.id));
  if (!moving.length || (targetId !== undefined && ids.includes(targetId))) {
    return draft;
  }
  const rest = draft.items.filter((item) => !ids.includes(item.id));
  const at = targetId === undefined ? rest.length : rest.findIndex((item) => item.id === targetId);
  if (at < 0) {
    return draft;
  }
  return { ...draft, items: [...rest.slice(0, at), ...moving, ...rest.slice(at)] };
}

export function remove(draft: PlanDraft, id: string): PlanDraft {
  return draft.items.some((item) => item.id === id) ? { ...draft, items: draft.items.filter((item) => item.id !== id) } : draft;
}

/** An id no item has, by the contract's rule: `user-1`, `user-2`, … */
function newId(draft: PlanDraft): string {
  const taken = new Set([...draft.items.map((item) => item.id), ...draft.removed.map((item) => item.id)]);
  let n = 1;
  while (taken.has(`${USER_ITEM_ID_PREFIX}${n}`)) {
    n++;
  }
  return `${USER_ITEM_ID_PREFIX}${n}`;
}

/** A new item of the user's after `afterId` (undefined or unknown: at the end); its id comes back too. */
export function add(draft: PlanDraft, text: string, afterId?: string): { draft: PlanDraft; id: string | undefined } {
  const words = cleanText(text);
  if (!words) {
    return { draft, id: undefined };
  }
  const item: DraftItem = { id: newId(draft), text: words, edited: true, added: true };
  const after = afterId === undefined ? -1 : draft.items.findIndex((candidate) => candidate.id === afterId);
  const at = after < 0 ? draft.items.length : after + 1;
  return { draft: { ...draft, items: [...draft.items.slice(0, at), item, ...draft.items.slice(at)] }, id: item.id };
}

/** The user's comment on an item for the model; empty text takes it off. */
export function comment(draft: PlanDraft, id: string, text: string): PlanDraft {
  const words = text.trim();
  return update(draft, id, ({ id: itemId, text: itemText, edited, added, mark, previousText }) => ({
    id: itemId,
    text: itemText,
    edited,
    added,
    ...(mark ? { mark } : {}),
    ...(previousText !== undefined ? { previousText } : {}),
    ...(words ? { comment: words } : {}),
  }));
}

/** The params of workspaceAgent/approvePlan: the items in the user's order, their comments. */
export function approveParams(draft: PlanDraft, action: PlanAction): ApprovePlanParams {
  const comments = draft.items.flatMap((item) => (item.comment ? [{ todoId: item.id, text: item.comment }] : []));
  return {
    sessionId: draft.sessionId,
    items: draft.items.map((item) => ({ id: item.id, text: item.text, ...(item.edited ? { edited: true } : {}) })),
    ...(comments.length ? { comments } : {}),
    action,
  };
}

/** One row of the draft as the Plan view (and the plan card) show it. */
export interface DraftRow {
  id: string;
  label: string;
  /** "reworded · #2" and the like, dimmed after the label (the mark first: a narrow view cuts the end). */
  description: string;
  tooltip: string;
  /** What screen readers (and the e2e) read: "<text>, draft item 2 of 3, reworded". */
  accessibilityLabel: string;
  /** What made it stand out: the model's revision, or the user's own edit. */
  marks: string[];
  /** The same, in one word each ("reworded", "new", "edited", "added"), for narrow places. */
  shortMarks: string[];
  /** The row's icon: the user's edit first, then the revision's change. */
  icon: 'circle-large-outline' | 'diff-added' | 'diff-modified' | 'edit' | 'add';
  comment?: string;
}

/** The words for what changed on an item, shortest first. */
function marksOf(item: DraftItem): string[] {
  const marks: string[] = [];
  if (item.added) {
    marks.push('added by you');
  } else if (item.edited) {
    marks.push('edited by you');
  }
  if (item.mark === 'new' && !item.added) {
    marks.push('new in this revision');
  } else if (item.mark === 'reworded') {
    marks.push('reworded in this revision');
  }
  return marks;
}

export function draftRows(draft: PlanDraft): DraftRow[] {
  return draft.items.map((item, index) => {
    const marks = marksOf(item);
    const position = `draft item ${index + 1} of ${draft.items.length}`;
    const was = item.mark === 'reworded' && item.previousText !== undefined ? `\nBefore the revision: ${item.previousText}` : '';
    const note = item.comment ? `\nYour comment: ${item.comment}` : '';
    return {
      id: item.id,
      label: item.text,
      description: [...marks.map(shortMark), `#${item.id}`].join(' · '),
      tooltip: `${item.text}${was}${note}${marks.length ? `\n(${marks.join(', ')})` : ''}`,
      accessibilityLabel: [item.text, position, ...marks].join(', '),
      marks,
      shortMarks: marks.map(shortMark),
      icon: item.added ? 'add' : item.edited ? 'edit' : item.mark === 'new' ? 'diff-added' : item.mark === 'reworded' ? 'diff-modified' : 'circle-large-outline',
      ...(item.comment ? { comment: item.comment } : {}),
    };
  });
}

const SHORT: Record<string, string> = {
  'added by you': 'added',
  'edited by you': 'edited',
  'new in this revision': 'new',
  'reworded in this revision': 'reworded',
};

function shortMark(mark: string): string {
  return SHORT[mark] ?? mark;
}

/** The plan card's title: "Plan draft · 3 items" (a revision: "Revised plan (2) · 3 items"). */
export function draftTitle(draft: PlanDraft): string {
  return `${draft.revision > 1 ? `Revised plan (${draft.revision})` : 'Plan draft'} · ${itemCount(draft)}`;
}

/** The Plan view's description, short beside the title's buttons: "draft", "revision 2" (the badge counts the items). */
export function draftDescription(draft: PlanDraft): string {
  return draft.revision > 1 ? `revision ${draft.revision}` : 'draft';
}

function itemCount(draft: PlanDraft): string {
  return `${draft.items.length} item${draft.items.length === 1 ? '' : 's'}`;
}

/** A way out of a refused approval, as a button. */
export type PlanFix =
  | { label: 'Add Plan Item…'; action: 'addItem' }
  | { label: 'Discard Plan'; action: 'discard' }
  | { label: 'Cancel Run'; action: 'cancelRun' }
  | { label: 'Plan a Task…'; action: 'planTask' }
  | { label: 'Show Plan'; action: 'showPlan' };

/**
 * The buttons for an approvePlan error (the server's messages, docs/protocol.md) or a
 * draft problem: what the message tells the user to do, one click away.
 */
export function approveErrorFixes(message: string): PlanFix[] {
  if (/no items|empty/i.test(message)) {
    return [{ label: 'Add Plan Item…', action: 'addItem' }, { label: 'Discard Plan', action: 'discard' }];
  }
  if (/run in progress/i.test(message)) {
    return [{ label: 'Cancel Run', action: 'cancelRun' }];
  }
  if (/there is no session/i.test(message)) {
    return [{ label: 'Plan a Task…', action: 'planTask' }, { label: 'Discard Plan', action: 'discard' }];
  }
  if (/at most \d+|items, at most/i.test(message)) {
    return [{ label: 'Show Plan', action: 'showPlan' }];
  }
  return [{ label: 'Show Plan', action: 'showPlan' }, { label: 'Discard Plan', action: 'discard' }];
}

/** A run's mode as the user picked it (remembered per workspace): anything else is act. */
export function runMode(value: unknown): 'act' | 'plan' {
  return value === 'plan' ? 'plan' : 'act';
}

/**
 * The Plan view's tree while a draft is shown: one row per item (its comment as a child
 * row under it), the items the revision removed after them, or one row saying the plan
 * is empty.
 */
export type DraftNode =
  | { kind: 'draftItem'; id: string; itemId: string; row: DraftRow; children: DraftNode[] }
  | { kind: 'draftComment'; id: string; itemId: string; text: string }
  | { kind: 'draftRemoved'; id: string; text: string }
  | { kind: 'draftEmpty'; id: string };

export function draftTree(draft: PlanDraft): DraftNode[] {
  const items = draftRows(draft).map((row): DraftNode => ({
    kind: 'draftItem',
    // A row that gains a comment is a new tree element (a known one keeps its collapsed
    // state), so it opens with the comment under it.
    id: row.comment ? `draft:${row.id}:commented` : `draft:${row.id}`,
    itemId: row.id,
    row,
    children: row.comment ? [{ kind: 'draftComment', id: `draft-comment:${row.id}`, itemId: row.id, text: row.comment }] : [],
  }));
  const removed = draft.removed.map((item): DraftNode => ({ kind: 'draftRemoved', id: `draft-removed:${item.id}`, text: item.text }));
  return items.length ? [...items, ...removed] : [{ kind: 'draftEmpty', id: 'draft-empty' }, ...removed];
}

/** What the Conversation view's plan card shows of a draft (plain JSON for the page). */
export interface PlanCard {
  title: string;
  summary: string;
  /** The summary rendered (markdown.ts: no raw HTML, safe links only): `**Approach:**` shows bold. */
  summaryHtml: string;
  rows: DraftRow[];
  removed: string[];
}

export function planCard(draft: PlanDraft): PlanCard {
  const summaryHtml = draft.summary.trim() ? renderMarkdown(draft.summary) : '';
  return { title: draftTitle(draft), summary: draft.summary, summaryHtml, rows: draftRows(draft), removed: draft.removed.map((item) => item.text) };
}

/**
 * A draft kept in the workspace's storage (a window reload must not lose the user's
 * edits), read back only when it has the shape a draft has; anything else is no draft.
 */
export function restoreDraft(value: unknown): PlanDraft | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const draft = value as Partial<Record<keyof PlanDraft, unknown>>;
  const str = (v: unknown): v is string => typeof v === 'string';
  const isItem = (v: unknown): v is DraftItem => {
    if (typeof v !== 'object' || v === null) return false;
    const item = v as Partial<Record<keyof DraftItem, unknown>>;
    return (
      str(item.id) &&
      str(item.text) &&
      item.text !== '' &&
      typeof item.edited === 'boolean' &&
      typeof item.added === 'boolean' &&
      (item.mark === undefined || item.mark === 'new' || item.mark === 'reworded') &&
      (item.previousText === undefined || str(item.previousText)) &&
      (item.comment === undefined || str(item.comment))
    );
  };
  const isRemoved = (v: unknown): v is PlanItem =>
    typeof v === 'object' && v !== null && str((v as PlanItem).id) && str((v as PlanItem).text);
  if (
    !str(draft.sessionId) ||
    !str(draft.summary) ||
    !Array.isArray(draft.items) ||
    !draft.items.every(isItem) ||
    !Array.isArray(draft.removed) ||
    !draft.removed.every(isRemoved) ||
    typeof draft.revision !== 'number'
  ) {
    return undefined;
  }
  return {
    sessionId: draft.sessionId,
    summary: draft.summary,
    items: draft.items.map((item) => ({ ...item })),
    removed: draft.removed.map(({ id, text }) => ({ id, text })),
    revision: draft.revision,
  };
}

/**
 * An edit the Conversation view's plan card asks for (the page only posts these; the
 * host applies them with the functions above, to the one draft the Plan view shows too).
 */
export type PlanCardEdit =
  | { op: 'reword'; id: string; text: string }
  | { op: 'move'; id: string; delta: -1 | 1 }
  | { op: 'delete'; id: string }
  | { op: 'add'; text: string; afterId?: string }
  | { op: 'comment'; id: string; text: string };

/** Longest text the card may send for an item or a comment (the page's inputs cap it too). */
export const CARD_TEXT_MAX = 2000;

/** Checks an edit from the webview (another process's word): only the shapes above. */
export function isPlanCardEdit(value: unknown): value is PlanCardEdit {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const edit = value as Record<string, unknown>;
  const id = typeof edit.id === 'string' && edit.id !== '';
  const text = typeof edit.text === 'string' && edit.text.length <= CARD_TEXT_MAX;
  switch (edit.op) {
    case 'reword':
    case 'comment':
      return id && text;
    case 'move':
      return id && (edit.delta === -1 || edit.delta === 1);
    case 'delete':
      return id;
    case 'add':
      return text && (edit.afterId === undefined || (typeof edit.afterId === 'string' && edit.afterId !== ''));
    default:
      return false;
  }
}

/**
 * The draft after a card's edit, and the item the card should keep the focus on (the
 * edited or moved one, the new one, or after a delete the next row); an edit that
 * changes nothing (unknown id, empty words, the top item moved up) gives the same draft.
 */
export function applyCardEdit(draft: PlanDraft, edit: PlanCardEdit): { draft: PlanDraft; focus: string | undefined } {
  switch (edit.op) {
    case 'reword':
      return { draft: reword(draft, edit.id, edit.text), focus: edit.id };
    case 'move':
      return { draft: moveBy(draft, edit.id, edit.delta), focus: edit.id };
    case 'comment':
      return { draft: comment(draft, edit.id, edit.text), focus: edit.id };
    case 'delete': {
      const at = draft.items.findIndex((item) => item.id === edit.id);
      const next = at < 0 ? undefined : (draft.items[at + 1] ?? draft.items[at - 1])?.id;
      return { draft: remove(draft, edit.id), focus: next };
    }
    case 'add': {
      const added = add(draft, edit.text, edit.afterId);
      return { draft: added.draft, focus: added.id };
    }
  }
}
