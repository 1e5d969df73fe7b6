/**
 * Points the server's code actions at the extension's own run (core/codeActions.ts says
 * which and why): a middleware of the language client's code action provider.
 */
import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';
import { INTERNAL_COMMAND_IDS } from './commands';
import { codeActionRun } from './core/codeActions';

type Provided = (vscode.Command | vscode.CodeAction)[] | null | undefined;

function redirected(item: vscode.Command | vscode.CodeAction): vscode.Command | vscode.CodeAction {
  if (item instanceof vscode.CodeAction) {
    const run = codeActionRun(item.command, item.kind?.value);
    if (run && item.command) {
      item.command = { title: item.command.title, command: INTERNAL_COMMAND_IDS.runCodeAction, arguments: [run] };
    }
    return item;
  }
  const run = codeActionRun(item, undefined);
  return run ? { title: item.title, command: INTERNAL_COMMAND_IDS.runCodeAction, arguments: [run] } : item;
}

export const codeActionMiddleware: Pick<Middleware, 'provideCodeActions'> = {
  async provideCodeActions(document, range, context, token, next) {
    const provided: Provided = await next(document, range, context, token);
    return provided?.map(redirected);
  },
};
