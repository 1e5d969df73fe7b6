/**
 * A changed file, one click away: the diff editor "before ↔ after" a plan item, with both
 * sides served read-only from the server's checkpoints (workspaceAgent/fileVersion), and
 * the M/A/D letter on the Plan view's file rows.
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import {
  CHANGE_SCHEME,
  type UriParts,
  VERSION_SCHEME,
  changeUriParts,
  parseChangeUri,
  parseVersionUri,
  versionUriParts,
} from './core/changeLinks';
import { CHANGE_COLORS, CHANGE_LETTERS, type FileNode, binaryNotice } from './core/changeRows';
import type { FileSide, FileVersionParams } from './protocol';

/** Texts kept for diffs opened lately (both sides of 32 files). */
const MAX_KEPT = 64;

function uriOf(scheme: string, parts: UriParts): vscode.Uri {
  return vscode.Uri.from({ scheme, path: parts.path, query: parts.query });
}

export function versionUri(params: FileVersionParams): vscode.Uri {
  return uriOf(VERSION_SCHEME, versionUriParts(params));
}

/** The resourceUri of a file row: its name gives the icon, its query the decoration. */
export function changeUri(node: FileNode): vscode.Uri {
  return uriOf(CHANGE_SCHEME, changeUriParts(node.todoId, node.key, node.path, node.change));
}

/**
 * Read-only documents holding one side of a change. The texts fetched to open a diff are
 * kept until the session's changes move on (the "after" side of a step still in progress
 * changes with every call); open documents are then refreshed.
 */
export class VersionDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly texts = new Map<string, { sessionId: string; text: string }>();

  constructor(private readonly server: AgentServer) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const cached = this.texts.get(uri.toString());
    if (cached) {
      return cached.text;
    }
    const params = parseVersionUri({ path: uri.path, query: uri.query });
    if (!params) {
      throw new Error(`not a Workspace Agent file version: ${uri.toString()}`);
    }
    return (await this.server.fileVersion(params, token)) ?? '';
  }

  /** Fetches a side now (so a failure is reported before the editor opens); '' when absent. */
  async load(params: FileVersionParams): Promise<vscode.Uri> {
    const uri = versionUri(params);
    this.texts.set(uri.toString(), { sessionId: params.sessionId, text: (await this.server.fileVersion(params)) ?? '' });
    for (const key of [...this.texts.keys()].slice(0, Math.max(0, this.texts.size - MAX_KEPT))) {
      this.texts.delete(key); // the oldest first; an open document fetches its text again
    }
    return uri;
  }

  /** The session's changes moved on: drop its texts, refresh its open documents. */
  sessionChanged(sessionId: string): void {
    for (const [key, entry] of [...this.texts]) {
      if (entry.sessionId === sessionId) {
        this.texts.delete(key);
      }
    }
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === VERSION_SCHEME && parseVersionUri(partsOf(document.uri))?.sessionId === sessionId) {
        this.changed.fire(document.uri);
      }
    }
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}

function partsOf(uri: vscode.Uri): UriParts {
  return { path: uri.path, query: uri.query };
}

/** The M / A / D letter (git's colours) on the Plan view's file rows. */
export class ChangeDecorations implements vscode.FileDecorationProvider {
  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== CHANGE_SCHEME) {
      return undefined;
    }
    const change = parseChangeUri(partsOf(uri));
    if (!change) {
      return undefined;
    }
    const decoration = new vscode.FileDecoration(CHANGE_LETTERS[change], change[0]?.toUpperCase() + change.slice(1), new vscode.ThemeColor(CHANGE_COLORS[change]));
    decoration.propagate = false;
    return decoration;
  }
}

/** The workspace file a row names (the server's paths are relative to the first folder). */
export function workspaceFile(filePath: string): vscode.Uri | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, ...filePath.split('/')) : undefined;
}

/** Clicking a file row: the diff editor before ↔ after the step (binary files explained). */
export async function openChange(documents: VersionDocuments, node: FileNode): Promise<void> {
  if (node.binary) {
    const open = 'Open File';
    const answer = await vscode.window.showInformationMessage(
      binaryNotice(node),
      ...(node.change === 'deleted' ? [] : [open]),
    );
    if (answer === open) {
      await openChangedFile(node);
    }
    return;
  }
  const side = (which: FileSide): Promise<vscode.Uri> =>
    documents.load({
      sessionId: node.sessionId,
      todoId: node.todoId,
      ...(node.key !== undefined ? { key: node.key } : {}),
      path: node.path,
      ...(node.pathBytes !== undefined ? { pathBytes: node.pathBytes } : {}),
      side: which,
    });
  let before: vscode.Uri;
  let after: vscode.Uri;
  try {
    [before, after] = await Promise.all([side('before'), side('after')]);
  } catch (error) {
    void vscode.window.showErrorMessage(`Workspace Agent: could not show the change of ${node.path}: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  await vscode.commands.executeCommand('vscode.diff', before, after, node.diffTitle, { preview: true });
}

/** Opens the file as it is now in the workspace. */
export async function openChangedFile(node: FileNode): Promise<void> {
  const uri = workspaceFile(node.path);
  if (!uri) {
    return;
  }
  try {
    await vscode.window.showTextDocument(uri, { preview: true });
  } catch {
    // Not a text file (or gone): let VS Code pick the editor, or say it is gone.
    await vscode.commands.executeCommand('vscode.open', uri);
  }
}
