/**
 * Answers workspaceAgent/codeIntel: the agent's `code_intel` and `rename_symbol` tools,
 * answered by VS Code's own providers (`vscode.execute…Provider` and the call hierarchy
 * commands), so every installed language extension serves the agent with no set-up. The
 * answer is the LSP result in its JSON shape (positions are UTF-16 on both sides); the
 * server reads and bounds it. A rename's WorkspaceEdit is returned, never applied here:
 * the server applies it through its write path (approval, checkpoints).
 */
import * as vscode from 'vscode';
import type { CodeIntelParams } from './protocol';

type Json = Record<string, unknown>;

const position = (p: vscode.Position): Json => ({ line: p.line, character: p.character });
const range = (r: vscode.Range): Json => ({ start: position(r.start), end: position(r.end) });
/** VS Code's SymbolKind counts from 0, the protocol's from 1. */
const kind = (k: vscode.SymbolKind): number => k + 1;

function location(value: vscode.Location | vscode.LocationLink): Json {
  if ('targetUri' in value) {
    return {
      targetUri: value.targetUri.toString(),
      targetRange: range(value.targetRange),
      targetSelectionRange: range(value.targetSelectionRange ?? value.targetRange),
    };
  }
  return { uri: value.uri.toString(), range: range(value.range) };
}

function symbol(value: vscode.DocumentSymbol | vscode.SymbolInformation): Json {
  if ('location' in value) {
    return { name: value.name, kind: kind(value.kind), containerName: value.containerName, location: location(value.location) };
  }
  return {
    name: value.name,
    kind: kind(value.kind),
    range: range(value.range),
    selectionRange: range(value.selectionRange),
    children: (value.children ?? []).map(symbol),
  };
}

function callItem(item: vscode.CallHierarchyItem): Json {
  return { name: item.name, kind: kind(item.kind), uri: item.uri.toString(), range: range(item.range), selectionRange: range(item.selectionRange) };
}

function hover(hovers: vscode.Hover[] | undefined): Json | null {
  const parts: string[] = [];
  for (const found of hovers ?? []) {
    for (const content of found.contents) {
      if (typeof content === 'string') parts.push(content);
      else if ('language' in content) parts.push('```' + content.language + '\n' + content.value + '\n```');
      else parts.push(content.value);
    }
  }
  return parts.length ? { contents: { kind: 'markdown', value: parts.join('\n\n---\n\n') } } : null;
}

function workspaceEdit(edit: vscode.WorkspaceEdit | undefined): Json | null {
  if (!edit) return null;
  const changes: Record<string, Json[]> = {};
  for (const [uri, edits] of edit.entries()) {
    changes[uri.toString()] = edits.map((e) => ({ range: range(e.range), newText: e.newText }));
  }
  return { changes };
}

const run = <T>(command: string, ...args: unknown[]): Thenable<T> => vscode.commands.executeCommand<T>(command, ...args);

export async function answerCodeIntel(params: CodeIntelParams): Promise<unknown> {
  const uri = vscode.Uri.parse(params.uri);
  const at = params.position as { line: number; character: number } | undefined;
  const where = at ? new vscode.Position(at.line, at.character) : new vscode.Position(0, 0);
  switch (params.operation) {
    case 'definition':
      return (await run<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', uri, where) ?? []).map(location);
    case 'references':
      return (await run<vscode.Location[]>('vscode.executeReferenceProvider', uri, where) ?? []).map(location);
    case 'implementations':
      return (await run<(vscode.Location | vscode.LocationLink)[]>('vscode.executeImplementationProvider', uri, where) ?? []).map(location);
    case 'hover':
      return hover(await run<vscode.Hover[]>('vscode.executeHoverProvider', uri, where));
    case 'document_symbols':
      return (await run<(vscode.DocumentSymbol | vscode.SymbolInformation)[]>('vscode.executeDocumentSymbolProvider', uri) ?? []).map(symbol);
    case 'workspace_symbols':
      return (await run<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', params.query ?? '') ?? []).map(symbol);
    case 'incoming_calls':
    case 'outgoing_calls': {
      const items = (await run<vscode.CallHierarchyItem[]>('vscode.prepareCallHierarchy', uri, where)) ?? [];
      const incoming = params.operation === 'incoming_calls';
      const calls: Json[] = [];
      for (const item of items.slice(0, 5)) {
        if (incoming) {
          const found = (await run<vscode.CallHierarchyIncomingCall[]>('vscode.provideIncomingCalls', item)) ?? [];
          calls.push(...found.map((call) => ({ from: callItem(call.from), fromRanges: call.fromRanges.map(range) })));
        } else {
          const found = (await run<vscode.CallHierarchyOutgoingCall[]>('vscode.provideOutgoingCalls', item)) ?? [];
          calls.push(...found.map((call) => ({ to: callItem(call.to), fromRanges: call.fromRanges.map(range) })));
        }
      }
      return calls;
    }
    case 'rename': {
      // The file is loaded first: for a document not loaded yet, VS Code hands the
      // command's newName over as an array and refuses it ("Unexpected type"). Loaded only
      // for this, it is no document the user has open: the answer says so, and the server
      // writes its edit on disk (VS Code reloads it), leaving no hidden unsaved buffer.
      const loaded = vscode.workspace.textDocuments.some((document) => document.uri.toString() === uri.toString());
      await vscode.workspace.openTextDocument(uri);
      const edit = workspaceEdit(await run<vscode.WorkspaceEdit>('vscode.executeDocumentRenameProvider', uri, where, params.newName ?? ''));
      return edit && !loaded ? { ...edit, loadedForRename: [uri.toString()] } : edit;
    }
    default:
      throw new Error(`unknown operation ${params.operation}`);
  }
}
