/**
 * The Anthropic API key, kept in VS Code's SecretStorage (the OS keychain on desktop).
 *
 * It leaves the editor only as ANTHROPIC_API_KEY in the server's environment: never in
 * settings, never in initializationOptions, never in a log line.
 */
import type * as vscode from 'vscode';

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
