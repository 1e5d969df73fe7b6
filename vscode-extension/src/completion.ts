/**
 * The candidates of the Conversation input's completion list, asked for each time the
 * list opens (the page narrows them down as the user types, core/completion.ts): the
 * workspace's files and folders for `@`, without what `files.exclude` hides (findFiles'
 * default excludes) and, when `search.useIgnoreFiles` is on, what git ignores (asked of
 * `git check-ignore`, so nested .gitignore files and negations count as git counts them);
 * the server's slash commands for `/`.
 */
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { type CompletionItem, type CompletionKind, commandItem, mentionItems } from './core/completion';
import { commandPicks } from './core/savedPrompts';

/** Files looked at for `@`: enough for a big repository, bounded for a huge one. */
const MAX_FILES = 5000;

export async function completionItems(kind: CompletionKind, server: AgentServer): Promise<{ items: CompletionItem[]; problem?: string }> {
  if (kind === 'command') {
    try {
      return { items: commandPicks(await server.commands(), true).map((pick) => commandItem({ ...pick, detail: pick.detail })) };
    } catch (error) {
      return { items: [], problem: `Could not list the slash commands (${message(error)}); the palette's Run Saved Prompt… says more.` };
    }
  }
  try {
    return { items: mentionItems(await workspaceFiles()) };
  } catch (error) {
    return { items: mentionItems([]), problem: `Could not list the workspace's files (${message(error)}); type the path after @ yourself.` };
  }
}

async function workspaceFiles(): Promise<string[]> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    return [];
  }
  // `undefined` as the exclude: the files.exclude setting applies.
  const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/*'), undefined, MAX_FILES);
  const files = uris.map((uri) => vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/')).sort();
  const useIgnoreFiles = vscode.workspace.getConfiguration('search', folder.uri).get<boolean>('useIgnoreFiles', true);
  if (!useIgnoreFiles || folder.uri.scheme !== 'file') {
    return files;
  }
  const ignored = await gitIgnored(folder.uri.fsPath, files);
  return files.filter((file) => !ignored.has(file));
}

/** The paths git ignores, of `files` (none when this is no git repository or git is missing). */
function gitIgnored(cwd: string, files: string[]): Promise<Set<string>> {
  return new Promise((resolve) => {
    const child = execFile('git', ['check-ignore', '-z', '--stdin'], { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      // Exit 1: nothing ignored; 128: not a repository. Either way, what was printed counts.
      void error;
      resolve(new Set(String(stdout).split('\0').filter(Boolean)));
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(files.join('\0'));
  });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
