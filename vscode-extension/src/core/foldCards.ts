/**
 * Room to read: what the Conversation view folds, and where it keeps the reader's place.
 *
 * Grouping: a `task` call's subagent works in a card group under the task's card (its
 * calls are the cards whose `parent` is that card), so its many calls take one row once
 * it is done.
 *
 * Folding: consecutive "Plan updated" rows become one row ("Plan updated 3 times"), and
 * consecutive reads of one plan step become one expandable row ("Read 12 files"; a read
 * that gave an image stays a row of its own, its thumbnail in sight). The
 * builder (conversation.ts) keeps every card as it was; the folding is a view of its list,
 * applied to what is posted to the page (`CardFolder`), so a card's id, its Plan link and
 * the host's look-ups (a command's output, an edit's diff) stay as they were. A fold's id
 * is `fold:` and its first member's id; a member joining or leaving it redraws the fold.
 *
 * The reading position: "Load earlier" rebuilds every card, and cards numbered by their
 * position get new ids; `anchorAfterPrepend` finds the card the reader was looking at in
 * the new list, counted from the end. Pure, for unit tests.
 */
import type { Card, CardUpdate, StepRef } from './conversation';

/** Several consecutive cards of one kind, drawn as one row. */
export interface FoldCard {
  kind: 'fold';
  id: string;
  before?: string;
  /** `read`: expandable, its members listed; `plan`: one row, nothing to open. */
  fold: 'read' | 'plan';
  /** "Read 12 files", "Plan updated 3 times". */
  label: string;
  members: Card[];
  /** The plan step the members share (reads fold within one step). */
  step?: StepRef;
}

/**
 * A `task` call and its subagent's cards (those whose `parent` it is): one group, open
 * while the subagent works, folded once it is done (the page decides), with its plan's
 * progress, then its tokens and cost, on its row. Its id is the task card's.
 */
export interface GroupCard {
  kind: 'group';
  id: string;
  before?: string;
  task: Extract<Card, { kind: 'tool' }>;
  /** The subagent's cards, folded as the top level's are. */
  members: ShownCard[];
}

/** What the page draws: the builder's cards, with runs of like ones folded. */
export type ShownCard = Card | FoldCard | GroupCard;

/** A run of cards with the same key folds (two or more); undefined: never folds. */
export function foldKey(card: Card): string | undefined {
  if (card.kind === 'read' && card.status !== 'failed' && !card.images?.length) {
    return `read:${card.step?.todoId ?? ''}`;
  }
  if (card.kind === 'tool' && card.name === 'Plan' && card.status !== 'failed') {
    return 'plan';
  }
  return undefined;
}

/** "Read 12 files", "Read app.py 3 times", "Reading 2 files…" (one still going). */
export function foldLabel(fold: FoldCard['fold'], members: readonly Card[]): string {
  if (fold === 'plan') {
    return `Plan updated ${members.length} times`;
  }
  const paths = new Set(members.map((card) => (card.kind === 'read' ? card.path : card.id)));
  const running = members.some((card) => 'status' in card && card.status === 'running');
  const verb = running ? 'Reading' : 'Read';
  const tail = running ? '…' : '';
  if (paths.size === 1) {
    const [path] = paths;
    return `${verb} ${path} ${members.length} times${tail}`;
  }
  return `${verb} ${paths.size} files${tail}`;
}

/**
 * The cards as shown: each run of two or more with one key becomes a fold; a `task` card
 * and its subagent's cards become a group (a subagent's card whose task card is not in
 * the list, on an earlier history page, stays on its own).
 */
export function foldCards(cards: readonly Card[]): ShownCard[] {
  const ids = new Set(cards.map((card) => card.id));
  const inner = new Map<string, Card[]>();
  const top: Card[] = [];
  for (const card of cards) {
    if (card.parent !== undefined && ids.has(card.parent)) {
      inner.set(card.parent, [...(inner.get(card.parent) ?? []), card]);
    } else {
      top.push(card);
    }
  }
  return foldRuns(top).map((card) => {
    if (card.kind !== 'tool' || (!card.subagent && !inner.has(card.id))) {
      return card;
    }
    const group: GroupCard = { kind: 'group', id: card.id, task: card, members: foldRuns(inner.get(card.id) ?? []) };
    return card.before ? { ...group, before: card.before } : group;
  });
}

function foldRuns(cards: readonly Card[]): ShownCard[] {
  const shown: ShownCard[] = [];
  let i = 0;
  while (i < cards.length) {
    const first = cards[i];
    const key = foldKey(first);
    let j = i + 1;
    while (key !== undefined && j < cards.length && foldKey(cards[j]) === key) {
      j++;
    }
    if (j - i >= 2) {
      const members = cards.slice(i, j);
      const fold = key === 'plan' ? 'plan' : 'read';
      const step = fold === 'read' && 'step' in first ? first.step : undefined;
      shown.push({ kind: 'fold', id: `fold:${first.id}`, fold, label: foldLabel(fold, members), members, ...(step ? { step } : {}) });
    } else {
      shown.push(first);
    }
    i = j;
  }
  return shown;
}

/**
 * Keeps what the page shows and turns the builder's updates into updates of the shown
 * cards: a new fold, a fold that grew or changed, the cards a fold swallowed (removed). A
 * new shown card goes before the next one the page already has, so a fold takes its
 * members' place.
 */
export class CardFolder {
  private shown: ShownCard[] = [];

  /** Everything afresh (a reset). */
  all(cards: readonly Card[]): ShownCard[] {
    this.shown = foldCards(cards);
    return this.shown;
  }

  update(cards: readonly Card[], update: CardUpdate): { upserts: ShownCard[]; removed: string[] } {
    const old = new Map(this.shown.map((card) => [card.id, card]));
    const next = foldCards(cards);
    const touched = new Set([...update.upserts.map((card) => card.id), ...update.removed]);
    const upserts: ShownCard[] = [];
    const nextIds = new Set(next.map((card) => card.id));
    const removed = [...old.keys()].filter((id) => !nextIds.has(id));
    for (let i = 0; i < next.length; i++) {
      const card = next[i];
      const was = old.get(card.id);
      let changed: boolean;
      if (!was) {
        changed = true;
      } else if (card.kind === 'fold' || card.kind === 'group') {
        changed = was.kind !== card.kind || !sameShown(was, card, touched);
      } else {
        changed = touched.has(card.id) || was !== card;
      }
      if (!changed) {
        continue;
      }
      if (!was) {
        // Before the next card the page keeps: in its place, not at the end.
        const after = next.slice(i + 1).find((later) => old.has(later.id) && !removed.includes(later.id));
        const copy: ShownCard = { ...card };
        delete copy.before;
        upserts.push(after ? { ...copy, before: after.id } : copy);
      } else {
        upserts.push(card);
      }
    }
    this.shown = next;
    return { upserts, removed };
  }
}

/** A fold or a group as the page has it: nothing in it changed. */
function sameShown(was: ShownCard, card: ShownCard, touched: ReadonlySet<string>): boolean {
  if (card.kind === 'fold' && was.kind === 'fold') {
    return (
      was.label === card.label &&
      was.members.length === card.members.length &&
      card.members.every((member, k) => member === was.members[k] && !touched.has(member.id))
    );
  }
  if (card.kind === 'group' && was.kind === 'group') {
    return (
      was.task === card.task &&
      !touched.has(card.id) &&
      was.members.length === card.members.length &&
      card.members.every((member, k) => {
        const old = was.members[k];
        return old !== undefined && old.id === member.id && (member.kind === 'fold' || member.kind === 'group' ? sameShown(old, member, touched) : old === member && !touched.has(member.id));
      })
    );
  }
  return was === card;
}

/**
 * After "Load earlier" drew every card again: the id, in the new list, of the card the
 * reader looked at (`anchor`, in the old list). The new page went in front and what came
 * after it is as it was, so it is the card as far from the end as the anchor was. Not by
 * its id: cards numbered by position ("t1") get new numbers, and an old number may now
 * name a card of the new page.
 */
export function anchorAfterPrepend(oldIds: readonly string[], newIds: readonly string[], anchor: string): string | undefined {
  const index = oldIds.indexOf(anchor);
  if (index < 0 || oldIds.length > newIds.length) {
    return newIds.includes(anchor) ? anchor : undefined;
  }
  return newIds[newIds.length - (oldIds.length - index)];
}
