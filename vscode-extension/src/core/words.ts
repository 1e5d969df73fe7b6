/** Small wording helpers shared by the views and the host's messages. */

/** "1 file", "3 files": a count with its noun (nouns that take an `s`). */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
