/**
 * Reads `workspaceAgent.*` from VS Code and tells the rest what a change means.
 *
 * The list of keys lives in core/settings.ts; this module only supplies VS Code's
 * configuration as the getter and turns change events into 'push' or 'restart'.
 */
import * as vscode from 'vscode';
import { SETTINGS_SECTION } from './protocol';
import {
  type Getter,
  type ServerSettings,
  type SettingsChange,
  pythonSetting,
  serverSettings,
  settingsChange,
  wrappedSettings,
} from './core/settings';

function getter(): Getter {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return (key, userOnly) => (userOnly ? config.inspect<unknown>(key)?.globalValue : config.get<unknown>(key));
}

export function readServerSettings(): ServerSettings {
  return serverSettings(getter());
}

export function readWrappedSettings(): ReturnType<typeof wrappedSettings> {
  return wrappedSettings(getter());
}

export function readPythonSetting(): string | undefined {
  return pythonSetting(getter());
}

/** Calls `onChange` with 'push' or 'restart' when a workspaceAgent setting changes. */
export function onSettingsChange(onChange: (change: Exclude<SettingsChange, 'none'>) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    const change = settingsChange((key) => event.affectsConfiguration(key));
    if (change !== 'none') {
      onChange(change);
    }
  });
}
