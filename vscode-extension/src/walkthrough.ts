/**
 * The context keys the Get Started walkthrough's steps complete on (package.json
 * `completionEvents`: `onContext:workspaceAgent.apiKeySet`, `…firstTaskDone`, `…planWatched`, `…serverReady`). A key is set
 * only when its value changes: VS Code redraws an open walkthrough on every change of a key
 * its steps use, and a redraw takes the focus from whatever the user is typing into.
 */
import * as vscode from 'vscode';
import type { ApiKeyStore } from './apiKey';
import { API_KEY_SET_CONTEXT, PLAN_WATCHED_CONTEXT, TASK_DONE_CONTEXT } from './commands';
import { apiKeyAvailable } from './core/settings';
import { type AgentState, ranToCompletion } from './core/state';

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

  /**
   * The first-task step: done once a run in this window did its task (not one that failed
   * or was cancelled). The plan step: done once the Plan view showed a plan (`planVisible`).
   */
  watchRuns(state: AgentState, planVisible: () => boolean): vscode.Disposable {
    const check = (): void => {
      if (ranToCompletion(state.phase)) {
        this.set(TASK_DONE_CONTEXT, true);
      }
      if (state.items.length > 0 && planVisible()) {
        this.set(PLAN_WATCHED_CONTEXT, true);
      }
    };
    const subscription = state.onChange(check);
    check();
    return new vscode.Disposable(() => subscription.dispose());
  }

  /** The Plan view became visible (or hidden): a plan on screen ticks "Watch the plan". */
  planShown(state: AgentState): void {
    if (state.items.length > 0) {
      this.set(PLAN_WATCHED_CONTEXT, true);
    }
  }

  private set(key: string, value: boolean): void {
    if (this.values.get(key) !== value) {
      this.values.set(key, value);
      void vscode.commands.executeCommand('setContext', key, value);
    }
  }
}
