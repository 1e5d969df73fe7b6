/**
 * The plan the Plan view shows as the session's live one (issue 50, item 5). Discard Plan
 * only drops the extension's draft: the session keeps the items plan mode wrote, and the
 * view went on showing them as the live plan ("0/4") though the user had thrown it away.
 * The discarded plan is remembered (the workspace's storage: a window reload brings the
 * session's items back from the server); while the session's plan is still exactly that
 * one, there is no live plan. A later todo call (a new plan, or the same one being worked
 * on) shows again. Pure, for unit tests; planEditor.ts keeps it, planView.ts applies it.
 */
import type { TodoItem } from '../protocol';

/** A plan the user discarded: its session and its items as the server holds them. */
export interface DiscardedPlan {
  sessionId: string;
  items: TodoItem[];
}

/** What Discard Plan remembers of the session's plan. */
export function discardedPlan(sessionId: string, items: readonly TodoItem[]): DiscardedPlan {
  return { sessionId, items: items.map(({ id, text, status }) => ({ id, text, status })) };
}

/** The session's items, or none while they are still the plan the user discarded. */
export function livePlan(items: readonly TodoItem[], sessionId: string | undefined, discarded: DiscardedPlan | undefined): readonly TodoItem[] {
  if (!discarded || discarded.sessionId !== sessionId || items.length !== discarded.items.length) {
    return items;
  }
  const same = items.every((item, index) => {
    const gone = discarded.items[index];
    return gone !== undefined && gone.id === item.id && gone.text === item.text && gone.status === item.status;
  });
  return same ? [] : items;
}

/** A discarded plan read back from storage, when it has the shape one has; anything else is none. */
export function restoreDiscarded(value: unknown): DiscardedPlan | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { sessionId, items } = value as { sessionId?: unknown; items?: unknown };
  if (typeof sessionId !== 'string' || !Array.isArray(items)) return undefined;
  const good = items.every(
    (item: unknown) =>
      typeof item === 'object' && item !== null &&
      typeof (item as TodoItem).id === 'string' && typeof (item as TodoItem).text === 'string' && typeof (item as TodoItem).status === 'string',
  );
  return good ? discardedPlan(sessionId, items as TodoItem[]) : undefined;
}
