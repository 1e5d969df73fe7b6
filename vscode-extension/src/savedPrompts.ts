/**
 * Workspace Agent: Run Saved Prompt…: pick a slash command from the server's list, give
 * its arguments when it has an `argument-hint`, and run `/NAME ARGUMENTS` as a task (the
 * server expands it). The list and the prompt are core/savedPrompts.ts.
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { type CommandPick, commandPicks, problemsMessage, slashPrompt } from './core/savedPrompts';

export async function runSavedPrompt(
  server: AgentServer,
  log: vscode.LogOutputChannel,
  send: (prompt: string) => void,
): Promise<void> {
  let picks: CommandPick[];
  try {
    const listed = await server.commands();
    for (const problem of listed.problems) {
      log.warn(`Saved prompt: ${problem}`);
    }
    if (listed.problems.length) {
      void vscode.window.showWarningMessage(problemsMessage(listed.problems));
    }
    picks = commandPicks(listed);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(`Workspace Agent: could not list the saved prompts: ${why}`);
    return;
  }
  const chosen = await vscode.window.showQuickPick(
    picks.map((pick) => ({ label: pick.label, description: pick.description, detail: pick.detail, pick })),
    {
      title: 'Workspace Agent: Run Saved Prompt',
      placeHolder: 'Saved prompts are NAME.md files in .workspace-agent/commands or .claude/commands',
      matchOnDescription: true,
      matchOnDetail: true,
    },
  );
  if (!chosen) {
    return;
  }
  let args: string | undefined;
  if (chosen.pick.argumentHint) {
    args = await vscode.window.showInputBox({
      title: `Workspace Agent: ${chosen.pick.label}`,
      prompt: `${chosen.pick.label} ${chosen.pick.argumentHint}`,
      placeHolder: chosen.pick.argumentHint,
      ignoreFocusOut: true,
    });
    if (args === undefined) {
      return;
    }
  }
  send(slashPrompt(chosen.pick.name, args));
}
