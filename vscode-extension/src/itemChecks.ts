/**
 * Add Check… on a step row of the Plan view: the user gives one plan item a command of
 * their own that runs when the agent marks the item done (workspaceAgent/setItemCheck);
 * the item is done only when it exits 0. The box and the params come from core/plan.ts; the
 * row then says "check passed" or "check failed: …" from the plan the server sends.
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import type { StepNode } from './core/changeRows';
import { addCheckPrompt, itemCheckParams } from './core/plan';
import type { AgentState } from './core/state';

export async function addCheck(node: StepNode | undefined, state: AgentState, server: AgentServer): Promise<void> {
  const sessionId = state.sessionId;
  const item = state.items.find((candidate) => candidate.id === node?.todoId);
  if (!sessionId || !item) {
    void vscode.window.showInformationMessage('Workspace Agent: a check goes on an item of the current plan.');
    return;
  }
  if (state.running) {
    void vscode.window.showInformationMessage('Workspace Agent: add the check once the run has ended.');
    return;
  }
  const params = itemCheckParams(sessionId, item.id, await vscode.window.showInputBox({ ...addCheckPrompt(item), title: 'Add Check' }));
  if (!params) {
    return;
  }
  try {
    await server.setItemCheck(params); // the plan comes back as workspaceAgent/todos too
  } catch (error) {
    void vscode.window.showErrorMessage(`Workspace Agent: ${error instanceof Error ? error.message : String(error)}`);
  }
}
