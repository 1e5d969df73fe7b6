/**
 * The editor's context of a run (docs/protocol.md, `RunContext`): the active file, the
 * selection and the problems where the user is looking, and the words that tell the user
 * what will be attached before they send a task.
 *
 * Pure: editorContext.ts takes a snapshot of the active editor from VS Code (paths made
 * relative to the workspace, positions in UTF-16 code units, severities as LSP numbers)
 * and the rules live here, unit-tested.
 */
import type { ContextDiagnostic, Range, RunContext } from '../protocol';

/** The problems sent along at most; the server lists fewer and counts the rest. */
export const MAX_DIAGNOSTICS = 50;
/** The server's default context.maxChars (server/workspace_agent/config.py). */
export const DEFAULT_MAX_CHARS = 20_000;

export interface EditorSnapshot {
  /** Relative to the workspace root with "/"; undefined when the file is not in it. */
  path: string | undefined;
  /** The primary selection (empty when only the cursor is there) and its text. */
  selection: { range: Range; text: string };
  /** The file's problems, in the order the editor lists them. */
  diagnostics: Omit<ContextDiagnostic, 'path'>[];
}

/**
 * The context of a snapshot: the file, the selection when there is one (its text cut one
 * character past `maxChars`, so the server still sees it was cut and says so), and the
 * problems that touch the selection, or the cursor's line when nothing is selected.
 * Undefined for a file outside the workspace (the agent cannot open it anyway).
 */
export function editorContext(snapshot: EditorSnapshot, maxChars = DEFAULT_MAX_CHARS): RunContext | undefined {
  const { path, selection } = snapshot;
  if (path === undefined) {
    return undefined;
  }
  const context: RunContext = { activeFile: path };
  const looked = isEmpty(selection.range) ? wholeLine(selection.range.start.line) : selection.range;
  if (!isEmpty(selection.range)) {
    context.selection = { path, range: selection.range, text: selection.text.slice(0, maxChars + 1) };
  }
  const touching = snapshot.diagnostics
    .filter((diagnostic) => touches(diagnostic.range, looked))
    .slice(0, MAX_DIAGNOSTICS)
    .map((diagnostic) => ({ path, ...diagnostic }));
  if (touching.length) {
    context.diagnostics = touching;
  }
  return context;
}

/** "src/app.py (lines 4–6 selected, 1 problem)": what a run will carry, in a few words. */
export function attachmentWords(context: RunContext | undefined): string | undefined {
  const file = context?.selection?.path ?? context?.activeFile;
  if (!context || file === undefined) {
    return undefined;
  }
  const parts: string[] = [];
  if (context.selection) {
    const [first, last] = lineSpan(context.selection.range);
    parts.push(first === last ? `line ${first} selected` : `lines ${first}–${last} selected`);
  }
  const problems = context.diagnostics?.length ?? 0;
  if (problems) {
    parts.push(`${problems} problem${problems === 1 ? '' : 's'}`);
  }
  return parts.length ? `${file} (${parts.join(', ')})` : file;
}

/** The 1-based first and last line a range covers (a range ending at a line's start stops before it). */
export function lineSpan(range: Range): [number, number] {
  const first = range.start.line + 1;
  let last = range.end.line + 1;
  if (range.end.character === 0 && last > first) {
    last -= 1;
  }
  return [first, last];
}

function isEmpty(range: Range): boolean {
  return range.start.line === range.end.line && range.start.character === range.end.character;
}

function wholeLine(line: number): Range {
  return { start: { line, character: 0 }, end: { line: line + 1, character: 0 } };
}

function before(a: Range['start'], b: Range['start']): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/** Two ranges overlap or touch (an empty diagnostic range at the selection's edge counts). */
function touches(a: Range, b: Range): boolean {
  return !before(a.end, b.start) && !before(b.end, a.start);
}
