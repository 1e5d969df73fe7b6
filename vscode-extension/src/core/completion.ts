/**
 * The Conversation input's completion list: when it opens (`@` for a mention, `/` at the
 * start for a slash command), how candidates are fuzzy-matched and ranked as the user
 * types, and what choosing one inserts. The server resolves `@path` and `/name` itself
 * (agent/mentions.py, the saved prompts), so the list only helps to type them right.
 * Pure (no `vscode`, no DOM): the webview and the host both use it, the unit tests too.
 */

export type CompletionKind = 'mention' | 'command';

/** One row of the list. `insert` is the text that replaces the typed `@query` or `/query`. */
export interface CompletionItem {
  label: string;
  /** What the row says next to the label (a slash command's description, "folder"). */
  detail: string;
  /** A slash command's argument hint, e.g. `FILE`. */
  hint?: string;
  kind: 'special' | 'file' | 'folder' | 'command';
  insert: string;
}

/** Where the list opened: the `@` or `/` at `start`, and what was typed after it up to the caret. */
export interface Trigger {
  kind: CompletionKind;
  start: number;
  query: string;
}

/** The special mentions the server resolves (agent/mentions.py). */
export const SPECIAL_MENTIONS: readonly CompletionItem[] = [
  { label: '@problems', detail: "the workspace's problems", kind: 'special', insert: '@problems ' },
  { label: '@diff', detail: "the working tree's git diff", kind: 'special', insert: '@diff ' },
];

/** At most this many rows show; the rest narrow down as the user types. */
export const MAX_ROWS = 50;

// What may stand before an `@` that starts a mention (as the server's pattern has it).
const BEFORE_MENTION = /[\s([{"']/;
// What ends a mention's token (the server's pattern, agent/mentions.py).
const NOT_IN_MENTION = /[\s`'"()[\]{}<>,;:@]/;

/**
 * The trigger at the caret, or null when no list should show: `@` at the start or after a
 * space or an opening bracket or quote, with only mention characters up to the caret; `/`
 * as the input's first character with no space typed after it yet.
 */
export function triggerAt(text: string, caret: number): Trigger | null {
  const before = text.slice(0, caret);
  if (before.startsWith('/') && !/\s/.test(before)) {
    return { kind: 'command', start: 0, query: before.slice(1) };
  }
  const at = before.lastIndexOf('@');
  if (at === -1) {
    return null;
  }
  const query = before.slice(at + 1);
  if (NOT_IN_MENTION.test(query) || (at > 0 && !BEFORE_MENTION.test(before.charAt(at - 1)))) {
    return null;
  }
  return { kind: 'mention', start: at, query };
}

/**
 * How well `query` matches `candidate` (higher is better), or null when it does not: the
 * query's characters in order, case-insensitively. Consecutive characters, a match at the
 * start of a path segment or word, and a match in the file name score more; a longer
 * candidate scores a little less, so `src/a` prefers `src/a.py` to `src/b/abc.py`.
 */
export function fuzzyScore(query: string, candidate: string): number | null {
  const q = query.toLowerCase();
  const c = candidate.toLowerCase();
  if (!q) {
    return 0;
  }
  const nameStart = c.replace(/\/$/, '').lastIndexOf('/') + 1;
  let score = 0;
  let from = 0;
  let previous = -2;
  for (const char of q) {
    const found = c.indexOf(char, from);
    if (found === -1) {
      return null;
    }
    let points = 1;
    if (found === previous + 1) points += 5;
    const prior = found === 0 ? '/' : c.charAt(found - 1);
    if ('/_-. '.includes(prior)) points += 3;
    if (found >= nameStart) points += 1;
    score += points;
    previous = found;
    from = found + 1;
  }
  if (c.startsWith(q)) score += 10;
  if (c.slice(nameStart).startsWith(q.slice(q.lastIndexOf('/') + 1)) && q.slice(q.lastIndexOf('/') + 1)) score += 4;
  return score - c.length * 0.05;
}

/** The rows for what was typed: best first, at most `limit` (ties: shorter, then by name). */
export function rank(query: string, items: readonly CompletionItem[], limit = MAX_ROWS): CompletionItem[] {
  if (!query) {
    return items.slice(0, limit); // in their own order: the special mentions, folders, files
  }
  const scored: { item: CompletionItem; score: number }[] = [];
  for (const item of items) {
    const score = fuzzyScore(query, item.label.replace(/^[@/]/, ''));
    if (score !== null) {
      scored.push({ item, score });
    }
  }
  scored.sort((a, b) => b.score - a.score || a.item.label.length - b.item.label.length || a.item.label.localeCompare(b.item.label));
  return scored.slice(0, limit).map((entry) => entry.item);
}

/**
 * The mention rows of the workspace's files (paths relative to the workspace, `/`
 * separated), their folders with a trailing `/`, and the special mentions first. A path
 * with a character that would end the mention is left out: the server would not read it.
 */
export function mentionItems(files: readonly string[]): CompletionItem[] {
  const usable = files.filter((file) => file && !NOT_IN_MENTION.test(file));
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = `${parts.slice(0, i).join('/')}/`;
      if (!NOT_IN_MENTION.test(folder)) folders.add(folder);
    }
  }
  const sorted = [...usable].sort();
  return [
    ...SPECIAL_MENTIONS,
    ...[...folders].sort().map((folder): CompletionItem => ({ label: `@${folder}`, detail: 'folder', kind: 'folder', insert: `@${folder} ` })),
    ...sorted.map((file): CompletionItem => ({ label: `@${file}`, detail: '', kind: 'file', insert: `@${file} ` })),
  ];
}

/** A slash command as the list shows it (from workspaceAgent/commands, via core/savedPrompts.ts). */
export function commandItem(command: { name: string; detail: string; argumentHint?: string }): CompletionItem {
  return {
    label: `/${command.name}`,
    detail: command.detail,
    ...(command.argumentHint ? { hint: command.argumentHint } : {}),
    kind: 'command',
    insert: `/${command.name} `,
  };
}

/** The input after choosing `item`: the typed trigger replaced, the caret after the insert. */
export function applyChoice(text: string, caret: number, trigger: Trigger, item: CompletionItem): { text: string; caret: number } {
  let rest = text.slice(caret);
  // Typed over the middle of a token: the rest of it goes (it was the old mention's tail).
  rest = rest.replace(trigger.kind === 'command' ? /^\S*/ : /^[^\s`'"()[\]{}<>,;:@]*/, '');
  if (rest.startsWith(' ')) {
    rest = rest.slice(1);
  }
  const head = text.slice(0, trigger.start) + item.insert;
  return { text: head + rest, caret: head.length };
}

/** The mentions a text holds, as the server finds them (for the chips under the input). */
export function mentionsIn(text: string): string[] {
  const found: string[] = [];
  const pattern = /(?:^|(?<=[\s([{"']))@([^\s`'"()[\]{}<>,;:@]+)/g;
  for (const match of text.matchAll(pattern)) {
    const token = (match[1] ?? '').replace(/[.!?]+$/, '');
    if (token && !found.includes(`@${token}`)) {
      found.push(`@${token}`);
    }
  }
  return found;
}
