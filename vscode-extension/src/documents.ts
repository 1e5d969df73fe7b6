/**
 * Answers workspaceAgent/saveDocuments: before the agent runs a command, the server asks
 * the editor to save the documents it edited through workspace/applyEdit, so the command
 * sees the same text the user sees. Documents that are not open are left to the server.
 */
import * as vscode from 'vscode';
import type { SaveDocumentsParams, SaveDocumentsResult } from './protocol';

function isSaveDocumentsParams(value: unknown): value is SaveDocumentsParams {
  const uris = (value as Partial<SaveDocumentsParams> | null)?.uris;
  return Array.isArray(uris) && uris.every((uri) => typeof uri === 'string');
}

export async function saveDocuments(params: unknown): Promise<SaveDocumentsResult> {
  const saved: string[] = [];
  if (!isSaveDocumentsParams(params)) {
    return { saved };
  }
  for (const uri of params.uris) {
    const document = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri);
    if (document && (!document.isDirty || (await document.save()))) {
      saved.push(uri);
    }
  }
  return { saved };
}
