/**
 * The context keys the Get Started walkthrough's steps complete on (package.json
 * `completionEvents`: `onContext:workspaceAgent.apiKeySet`, `…firstTaskDone`, `…planWatched`, `…serverReady`;
 * the install step is also marked complete directly, see serverStarted). A key is set
 * only when its value changes: VS Code redraws an open walkthrough on every change of a key
 * its steps use, and a redraw takes the focus from whatever the user is typing into.
 */
import * as vscode from 'vscode';
import type { ApiKeyStore } from './apiKey';
import { API_KEY_SET_CONTEXT, PLAN_WATCHED_CONTEXT, SERVER_READY_CONTEXT, TASK_DONE_CONTEXT } from './commands';
import { apiKeyAvailable } from './core/settings';
import { type AgentState, ranToCompletion } from './core/state';

/** The walkthrough's id and its install step's (package.json `contributes.walkthroughs`). */
const WALKTHROUGH_ID = 'getStarted';
const INSTALL_STEP_ID = 'installServer';

export class WalkthroughProgress {
  private readonly values = new Map<string, boolean>();
  private installTicked = false;

  constructor(
    private readonly apiKey: ApiKeyStore,
    /** This extension's id (`publisher.name`): a step's full id starts with it. */
    private readonly extensionId = '',
  ) {}

  /**
   * The server is up: the install step is done. Its `onContext:workspaceAgent.serverReady`
   * alone does not tick it when the key was already true as VS Code registered the step
   * (the walkthroughs service starts with the first Welcome page, often after the server):
   * VS Code then counts the event as seen and never marks the step. So the step is also
   * marked complete directly (`welcome.markStepComplete`, VS Code's own command), once a
   * window; where that command does not exist, the context key is all there is.
   */
  serverStarted(): void {
    this.set(SERVER_READY_CONTEXT, true);
    if (this.installTicked || !this.extensionId) {
      return;
    }
    this.installTicked = true;
    const step = `${this.extensionId}#${WALKTHROUGH_ID}#${INSTALL_STEP_ID}`;
    void Promise.resolve(vscode.commands.executeCommand('welcome.markStepComplete', step)).catch(() => undefined);
  }

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
