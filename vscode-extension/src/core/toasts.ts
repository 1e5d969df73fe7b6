/**
 * When a run's toasts show: its progress notification (with Cancel) and the message it
 * ends with (with its fixes). The Conversation view says both already (its cards, the
 * error card's buttons, Escape in its input cancels), so a task sent from the view gets no
 * toast while the view is visible; if the view is hidden during the run, the progress
 * notification comes back, and the end message shows. A task from elsewhere (Run Task…, a
 * code action, Ask About Selection, the walkthrough) keeps its toasts: the user's eyes
 * are on the editor, not on the side bar. Pure, for unit tests; runs.ts applies it.
 */

/** Where a task came from: the Conversation view (its input box, a card's Retry or Continue, a held task's Run) or elsewhere. */
export type RunOrigin = 'view' | 'elsewhere';

/** Whether the run's progress notification shows now, and whether its end is told in a toast. */
export function showsToasts(origin: RunOrigin, viewVisible: boolean): boolean {
  return origin === 'elsewhere' || !viewVisible;
}
