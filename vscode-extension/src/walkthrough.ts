/**
 * The context keys the Get Started walkthrough's steps complete on (package.json
 * `completionEvents`: `onContext:workspaceAgent.apiKeySet`, `…firstTaskDone`, `…planWatched`, `…serverReady`;
 * a key turned true also marks its step complete directly, see `set`). A key is set
 * only when its value changes: VS Code redraws an open walkthrough on every change of a key
 * its steps use, and a redraw takes the focus from whatever the user is typing into.
 */
import * as vscode from 'vscode';
import type { ApiKeyStore } from './apiKey';
import { API_KEY_SET_CONTEXT, PLAN_WATCHED_CONTEXT, SERVER_READY_CONTEXT, TASK_DONE_CONTEXT } from './commands';
import { apiKeyAvailable } from './core/settings';
import { type AgentState, ranToCompletion } from './core/state';

/** The walkthrough's id, and the step each context key completes (package.json `contributes.walkthroughs`). */
const WALKTHROUGH_ID = 'getStarted';
const STEP_OF_KEY: Record<string, string> = {
  [SERVER_READY_CONTEXT]: 'installServer',
  [API_KEY_SET_CONTEXT]: 'setApiKey',
  [TASK_DONE_CONTEXT]: 'runFirstTask',
  [PLAN_WATCHED_CONTEXT]: 'watchPlan',
};

export class WalkthroughProgress {
  private readonly values = new Map<string, boolean>();

  constructor(
    private readonly apiKey: ApiKeyStore,
    /** This extension's id (`publisher.name`): a step's full id starts with it. */
    private readonly extensionId = '',
  ) {}

  /** The server is up: the install step is done. */
  serverStarted(): void {
    this.set(SERVER_READY_CONTEXT, true);
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

  /**
   * Sets the key; a key turned true also marks its step complete directly
   * (`welcome.markStepComplete`, VS Code's own command). The `onContext:` event alone does
   * not tick a step whose key was already true as VS Code registered it (the walkthroughs
   * service starts with the first Welcome page, often after the server started or a plan
   * was shown): VS Code then counts the event as seen and never marks the step. Where the
   * command does not exist, the context key is all there is.
   */
  private set(key: string, value: boolean): void {
    if (this.values.get(key) !== value) {
      this.values.set(key, value);
      void vscode.commands.executeCommand('setContext', key, value);
      const step = STEP_OF_KEY[key];
      if (value && step && this.extensionId) {
        const id = `${this.extensionId}#${WALKTHROUGH_ID}#${step}`;
        void Promise.resolve(vscode.commands.executeCommand('welcome.markStepComplete', id)).catch(() => undefined);
      }
    }
  }
}
