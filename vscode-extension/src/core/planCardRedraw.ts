/**
 * What a redraw of the Conversation view's plan card may do to a text box the user is
 * typing in (issue 50, item 1): the host sends the card again on every draft or mode
 * change, and a box rebuilt under the caret lost what had been typed. A card equal to the
 * one shown is not drawn again; an open box whose item is still there stays open, and the
 * page moves the same element (its value, caret and listeners) into the new card.
 */
import type { PlanCard } from './planDraft';

/** The card's open text box: rewording an item, commenting on one, or a new item ("end"). */
export interface OpenBox {
  kind: 'reword' | 'comment' | 'add';
  id: string;
}

/** Whether the host's card shows anything the shown one does not (a focus to move counts too). */
export function cardNeedsDrawing(shown: PlanCard | null, next: PlanCard | null, focus?: string): boolean {
  if (focus !== undefined) return true;
  if (shown === null || next === null) return shown !== next;
  return JSON.stringify(shown) !== JSON.stringify(next);
}

/** The open box, if it survives the card: its item is still on it (a new item's box always is). */
export function boxKept<T extends OpenBox>(box: T | null, card: PlanCard | null): T | null {
  if (!box || !card) return null;
  return box.kind === 'add' || card.rows.some((row) => row.id === box.id) ? box : null;
}

/** The key of the box's element on the page: a redraw finds the live one by it. */
export function boxKey(box: OpenBox): string {
  return `input:${box.kind}:${box.id}`;
}
