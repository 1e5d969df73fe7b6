/**
 * The tasks the user sent, for the input box's Up/Down: oldest first, no repeats (a task
 * sent again moves to the end), at most 50. Pure, for unit tests.
 */
export const PROMPT_HISTORY_SIZE = 50;

export function promptHistory(history: readonly string[], prompt: string): string[] {
  return [...history.filter((entry) => entry !== prompt), prompt].slice(-PROMPT_HISTORY_SIZE);
}
