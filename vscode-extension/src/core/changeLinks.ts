/**
 * The URIs the changes UI hands to VS Code, as path + query parts (vscode.Uri is built
 * from them in the editor layer):
 *
 * - `workspace-agent-version:/<path>?session=…&item=…&key=…&side=before|after&bytes=…`: one
 *   side of a diff, read-only, its text fetched with workspaceAgent/fileVersion. The path
 *   keeps the file's name, so the editor picks the language and the icon from it; a name
 *   that is not UTF-8 is its readable form (`caf\xe9.txt`), and `bytes` its pathBytes.
 * - `workspace-agent-change:/<path>?item=…&key=…&change=…`: a file row of the Plan view, so
 *   the icon theme finds its icon and the decoration provider its M/A/D letter.
 *
 * `item` is absent for changes made before the plan (todoId null). `key` names the item's
 * occurrence (plan ids are reused by later plans); it is absent when the server sends none.
 */
import { CHANGE_KINDS, type ChangeKind, FILE_SIDES, type FileSide, type FileVersionParams } from '../protocol';

export const VERSION_SCHEME = 'workspace-agent-version';
export const CHANGE_SCHEME = 'workspace-agent-change';

export interface UriParts {
  /** Starts with "/": the workspace-relative path. */
  path: string;
  query: string;
}

function itemParams(query: URLSearchParams, todoId: string | null, key: string | undefined): void {
  if (todoId !== null) {
    query.set('item', todoId);
  }
  if (key !== undefined) {
    query.set('key', key);
  }
}

export function versionUriParts(params: FileVersionParams): UriParts {
  const query = new URLSearchParams({ session: params.sessionId });
  itemParams(query, params.todoId, params.key);
  query.set('side', params.side);
  if (params.pathBytes !== undefined) {
    query.set('bytes', params.pathBytes);
  }
  return { path: `/${params.path}`, query: query.toString() };
}

/** The fileVersion params a version URI stands for; undefined when it is not one of ours. */
export function parseVersionUri(parts: UriParts): FileVersionParams | undefined {
  const query = new URLSearchParams(parts.query);
  const sessionId = query.get('session');
  const side = query.get('side');
  if (!sessionId || !parts.path.startsWith('/') || !(FILE_SIDES as readonly (string | null)[]).includes(side)) {
    return undefined;
  }
  const key = query.get('key');
  const pathBytes = query.get('bytes');
  return {
    sessionId,
    todoId: query.get('item'),
    ...(key ? { key } : {}),
    path: parts.path.slice(1),
    ...(pathBytes ? { pathBytes } : {}),
    side: side as FileSide,
  };
}

export function changeUriParts(todoId: string | null, key: string | undefined, filePath: string, change: ChangeKind): UriParts {
  const query = new URLSearchParams();
  itemParams(query, todoId, key);
  query.set('change', change);
  return { path: `/${filePath}`, query: query.toString() };
}

/** The change a file row's URI carries; undefined when it is not one of ours. */
export function parseChangeUri(parts: UriParts): ChangeKind | undefined {
  const change = new URLSearchParams(parts.query).get('change');
  return (CHANGE_KINDS as readonly (string | null)[]).includes(change) ? (change as ChangeKind) : undefined;
}
