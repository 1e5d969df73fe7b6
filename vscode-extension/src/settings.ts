/**
 * Reads `workspaceAgent.*` from VS Code and tells the rest what a change means.
 *
 * The list of keys, and what a workspace may do to each, lives in core/settings.ts; this
 * module only supplies VS Code's configuration (the merged value and every level of
 * `inspect()`) as the getter and turns change events into 'push' or 'restart'.
 */
import * as vscode from 'vscode';
import { DEFAULT_MAX_CHARS } from './core/editorContext';
import { SETTINGS_SECTION } from './protocol';
import {
  type Getter,
  type Report,
  type ServerSettings,
  type SettingsChange,
  clientSetting,
  pythonSetting,
  serverSettings,
  settingsChange,
  wrappedSettings,
} from './core/settings';

function getter(): Getter {
  // Scoped to the folder the server works in, so folder-level values are seen (and held
  // to the same rules as workspace-level ones). In a single-folder window the folder's
  // settings are the workspace's, and VS Code reports them at both levels: once is enough.
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, vscode.workspace.workspaceFolders?.[0]?.uri);
  const multiRoot = vscode.workspace.workspaceFile !== undefined;
  return (key) => {
    const levels = config.inspect<unknown>(key);
    return {
      value: config.get<unknown>(key),
      globalValue: levels?.globalValue,
      workspaceValue: levels?.workspaceValue,
      workspaceFolderValue: multiRoot ? levels?.workspaceFolderValue : undefined,
    };
  };
}

export function readServerSettings(report?: Report): ServerSettings {
  return serverSettings(getter(), report);
}

export function readWrappedSettings(report?: Report): ReturnType<typeof wrappedSettings> {
  return wrappedSettings(getter(), report);
}

export function readPythonSetting(report?: Report): string | undefined {
  return pythonSetting(getter(), report);
}

/** context.maxChars: how much selected text a run carries (the server cuts past it). */
export function readContextMaxChars(): number {
  return clientSetting(getter(), 'context.maxChars', DEFAULT_MAX_CHARS);
}

/** context.attachActiveEditor: Run Task… attaches the active file and selection. */
export function readAttachActiveEditor(): boolean {
  return clientSetting(getter(), 'context.attachActiveEditor', true);
}

/** conversation.openIn: where the conversation opens when it is shown, the view or an editor tab. */
export function readConversationOpenIn(): 'sideBar' | 'editor' {
  return clientSetting<string>(getter(), 'conversation.openIn', 'sideBar') === 'editor' ? 'editor' : 'sideBar';
}

/** diagnostics.waitSeconds: how long to wait for language servers after an agent's edit. */
export function readDiagnosticsWaitSeconds(): number {
  return clientSetting(getter(), 'diagnostics.waitSeconds', 1.5);
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
