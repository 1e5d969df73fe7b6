/**
 * A review question's proposed change as the whole file: the server sends the replaced
 * text and its replacement with the line where it starts (ApprovalDiff); the diff editor
 * shows the file as it is on the left and the file with the change applied on the right,
 * so the change sits at its real lines. Pure (no `vscode` import).
 */
import type { ApprovalDiff } from '../protocol';

export interface ProposedFile {
  before: string;
  after: string;
  /** False: the file no longer holds the replaced text where it was; only the snippet is shown. */
  whole: boolean;
}

/**
 * `current`: the file's text now (the editor's, else the disk's; undefined when it does not
 * exist). Line breaks are compared as "\n" (the server's diff has them so).
 */
export function proposedFile(diff: ApprovalDiff, current: string | undefined): ProposedFile {
  const snippet: ProposedFile = { before: diff.before ?? '', after: diff.after, whole: false };
  if (diff.before === null) {
    return { before: '', after: diff.after, whole: current === undefined || current === '' };
  }
  if (current === undefined) {
    return snippet;
  }
  const text = current.includes('\r\n') ? current.replace(/\r\n/g, '\n') : current;
  if (text === diff.before) {
    return { before: text, after: diff.after, whole: true }; // write_file: the whole file
  }
  const lineStart = startOfLine(text, diff.line ?? 1);
  if (lineStart === undefined) {
    return snippet;
  }
  const at = text.indexOf(diff.before, lineStart);
  const lineEnd = text.indexOf('\n', lineStart);
  if (at < 0 || (lineEnd >= 0 && at > lineEnd)) {
    return snippet;
  }
  return { before: text, after: text.slice(0, at) + diff.after + text.slice(at + diff.before.length), whole: true };
}

function startOfLine(text: string, line: number): number | undefined {
  let offset = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) {
      return undefined;
    }
    offset = next + 1;
  }
  return offset;
}

/** The diff editor's title: "app.py (proposed change at line 12)". */
export function proposedTitle(diff: ApprovalDiff, whole: boolean): string {
  if (diff.before === null) {
    return `${diff.path} (proposed: a new file)`;
  }
  if (!whole) {
    return `${diff.path} (proposed change, from line ${diff.line ?? 1}; the file changed since)`;
  }
  return diff.line && diff.line > 1 ? `${diff.path} (proposed change at line ${diff.line})` : `${diff.path} (proposed change)`;
}
