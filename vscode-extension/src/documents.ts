/**
 * Answers workspaceAgent/saveDocuments: before the agent runs a command, the server asks
 * the editor to save the documents it edited through workspace/applyEdit, so the command
 * sees the same text the user sees. Documents that are not open are left to the server.
 */
import * as vscode from 'vscode';
import type { SaveDocumentsParams, SaveDocumentsResult } from './protocol';

/** The params' URIs, when they have the promised shape (they come off the wire). */
function urisOf(params: SaveDocumentsParams | null | undefined): string[] {
  const uris: unknown = params?.uris;
  return Array.isArray(uris) && uris.every((uri) => typeof uri === 'string') ? uris : [];
}

export async function saveDocuments(params: SaveDocumentsParams): Promise<SaveDocumentsResult> {
  const saved: string[] = [];
  for (const uri of urisOf(params)) {
    const document = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri);
    if (document && (!document.isDirty || (await document.save()))) {
      saved.push(uri);
    }
  }
  return { saved };
}
