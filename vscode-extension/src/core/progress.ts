/**
 * Turns plan updates into reports for VS Code's progress notification.
 *
 * `Progress.report` takes an *increment*, not a percentage, so this remembers how far the
 * bar already is. The message matches the server's own work-done progress wording
 * ("2/5 · Write the tests"). Pure, for unit tests.
 */
import type { TodoItem } from '../protocol';
import { progressMessage, progressPercent } from './plan';

export interface ProgressReport {
  message: string;
  /** Percentage points to add to the bar; absent when the bar does not move. */
  increment?: number;
}

export class ProgressTracker {
  private shown = 0;

  /** The report for the plan as it is now. The bar never goes backwards. */
  update(items: readonly TodoItem[]): ProgressReport {
    const message = progressMessage(items);
    const percent = progressPercent(items);
    if (percent === undefined || percent <= this.shown) {
      return { message };
    }
    const increment = percent - this.shown;
    this.shown = percent;
    return { message, increment };
  }
}
