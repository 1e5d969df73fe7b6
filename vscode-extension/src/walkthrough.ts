/**
 * The context keys the Get Started walkthrough's steps complete on (package.json
 * `completionEvents`: `onContext:workspaceAgent.apiKeySet`, `…taskStarted`). A key is set
 * only when its value changes: VS Code redraws an open walkthrough on every change of a key
 * its steps use, and a redraw takes the focus from whatever the user is typing into.
 */
import * as vscode from 'vscode';
import type { ApiKeyStore } from './apiKey';
import { API_KEY_SET_CONTEXT, TASK_STARTED_CONTEXT } from './commands';
import { apiKeyAvailable } from './core/settings';
import type { AgentState } from './core/state';

export class WalkthroughProgress {
  private readonly values = new Map<string, boolean>();

  constructor(private readonly apiKey: ApiKeyStore) {}

  /**
   * The key step (and the Plan view's "needs a key" line): done while the server gets a
   * key, stored or from the editor's environment. Call at activation and after Set API Key.
   */
  async checkApiKey(): Promise<void> {
    this.set(API_KEY_SET_CONTEXT, apiKeyAvailable(process.env, await this.apiKey.get()));
  }

  /** The first-task step: done once a run has started in this window. */
  watchRuns(state: AgentState): vscode.Disposable {
    const subscription = state.onChange(() => {
      if (state.running) {
        this.set(TASK_STARTED_CONTEXT, true);
      }
    });
    return new vscode.Disposable(() => subscription.dispose());
  }

  private set(key: string, value: boolean): void {
    if (this.values.get(key) !== value) {
      this.values.set(key, value);
      void vscode.commands.executeCommand('setContext', key, value);
    }
  }
}
