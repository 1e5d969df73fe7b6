/**
 * Reads what the user has in front of them from VS Code (the active editor, its
 * selection, the problems of its file) for a run's `context`; the rules are in
 * core/editorContext.ts.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type EditorSnapshot, editorContext } from './core/editorContext';
import type { ContextDiagnostic, Range, RunContext, Severity } from './protocol';
import { readContextMaxChars } from './settings';

/** The workspace-relative path of a file of the (first) workspace folder, the agent's root. */
export function workspacePath(uri: vscode.Uri): string | undefined {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (uri.scheme !== 'file' || root?.scheme !== 'file') {
    return undefined;
  }
  const relative = path.relative(root.fsPath, uri.fsPath);
  if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) {
    return undefined;
  }
  return relative.split(path.sep).join('/');
}

export function lspRange(range: vscode.Range): Range {
  return {
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  };
}

/** A VS Code diagnostic as LSP has it (severity 1-4, code without its link). */
export function lspDiagnostic(diagnostic: vscode.Diagnostic): Omit<ContextDiagnostic, 'path'> {
  const code = typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code;
  return {
    range: lspRange(diagnostic.range),
    severity: (diagnostic.severity + 1) as Severity,
    message: diagnostic.message,
    ...(diagnostic.source ? { source: diagnostic.source } : {}),
    ...(code !== undefined && code !== '' ? { code } : {}),
  };
}

export function snapshot(editor: vscode.TextEditor): EditorSnapshot {
  const { document, selection } = editor;
  return {
    path: workspacePath(document.uri),
    selection: { range: lspRange(selection), text: document.getText(selection) },
    diagnostics: vscode.languages.getDiagnostics(document.uri).map(lspDiagnostic),
  };
}

/** The context of the active text editor, or undefined when there is none worth sending. */
export function activeEditorContext(): RunContext | undefined {
  const editor = vscode.window.activeTextEditor;
  return editor ? editorContext(snapshot(editor), readContextMaxChars()) : undefined;
}
