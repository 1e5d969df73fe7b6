/**
 * The Anthropic API key, kept in VS Code's SecretStorage (the OS keychain on desktop).
 *
 * It leaves the editor only as ANTHROPIC_API_KEY in the server's environment: never in
 * settings, never in initializationOptions, never in a log line.
 */
import * as vscode from 'vscode';

const SECRET_ID = 'workspaceAgent.anthropicApiKey';

export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async get(): Promise<string | undefined> {
    return (await this.secrets.get(SECRET_ID)) || undefined;
  }

  /** Stores the key; an empty value removes it. */
  async set(key: string): Promise<void> {
    if (key.trim()) {
      await this.secrets.store(SECRET_ID, key.trim());
    } else {
      await this.secrets.delete(SECRET_ID);
    }
  }
}

/**
 * Workspace Agent: Set API Key. The server reads the key from its environment at start,
 * so a new key means a restart of a running server (a server not started yet gets it when
 * it starts); while a run goes, the restart is left to the user.
 */
export async function setApiKey(
  store: ApiKeyStore,
  agent: { runGoing(): boolean; serverRunning(): boolean; restartServer(): Promise<unknown> },
): Promise<void> {
  const key = await vscode.window.showInputBox({
    title: 'Workspace Agent: Set API Key',
    prompt:
      "Your Anthropic API key. It is kept in VS Code's secret storage and given to the agent server as ANTHROPIC_API_KEY (the server restarts). Leave empty to remove it.",
    placeHolder: 'sk-ant-…',
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) {
    return;
  }
  await store.set(key);
  const saved = key.trim() ? 'API key saved' : 'API key removed';
  if (agent.runGoing()) {
    void vscode.window.showInformationMessage(
      `Workspace Agent: ${saved}. A run is going: it takes effect when you run Restart Server after the run.`,
    );
    return;
  }
  if (!agent.serverRunning()) {
    void vscode.window.showInformationMessage(`Workspace Agent: ${saved}.`);
    return;
  }
  await agent.restartServer();
  void vscode.window.showInformationMessage(`Workspace Agent: ${saved}; the server restarted with it.`);
}
