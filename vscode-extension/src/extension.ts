/**
 * Wiring only: builds the parts, connects the server's notifications to the state, and
 * registers the commands. No agent logic lives in the extension.
 */
import * as vscode from 'vscode';
import { ApiKeyStore } from './apiKey';
import { AgentServer } from './client';
import { COMMAND_IDS } from './commands';
import { AgentState } from './core/state';
import { createPlanView } from './planView';
import { ServerPython, onPythonExtensionChange } from './python';
import { RunController } from './runs';
import { onSettingsChange, readPythonSetting } from './settings';
import { createStatusItem } from './status';
import { Transcript } from './transcript';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('Workspace Agent', { log: true });
  const state = new AgentState();
  const transcript = new Transcript();
  const apiKey = new ApiKeyStore(context.secrets);
  const server = new AgentServer(log, new ServerPython(context, log), apiKey, {
    todos: (payload) => state.acceptTodos(payload),
    event: (event) => {
      if (event.sessionId === state.sessionId) {
        transcript.accept(event);
      }
    },
    stopped: () => {
      if (state.sessionId) {
        transcript.note('The server stopped: its session is gone; the next task starts a new one.');
      }
      if (!state.running) {
        state.clearSession();
      }
    },
  });
  const runs = new RunController(state, server, transcript);

  const restartServer = async (): Promise<void> => {
    if (await runs.refuseWhileRunning('is working on a task. Cancel the run before restarting the server.')) {
      return;
    }
    if (await server.restart()) {
      void vscode.window.showInformationMessage('Workspace Agent: server restarted.');
    }
  };

  const setApiKey = async (): Promise<void> => {
    const key = await vscode.window.showInputBox({
      title: 'Workspace Agent: Set API Key',
      prompt: 'Your Anthropic API key. It is kept in VS Code\'s secret storage and given to the agent server as ANTHROPIC_API_KEY (the server restarts). Leave empty to remove it.',
      placeHolder: 'sk-ant-…',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) {
      return;
    }
    await apiKey.set(key);
    const saved = key.trim() ? 'API key saved' : 'API key removed';
    if (state.running) {
      void vscode.window.showInformationMessage(`Workspace Agent: ${saved}. It applies after the current run, on Restart Server.`);
      return;
    }
    await server.restart();
    void vscode.window.showInformationMessage(`Workspace Agent: ${saved}; the server restarted with it.`);
  };

  context.subscriptions.push(
    log,
    transcript,
    server,
    createPlanView(state),
    createStatusItem(state),
    vscode.commands.registerCommand(COMMAND_IDS.runTask, () => runs.runTask()),
    vscode.commands.registerCommand(COMMAND_IDS.newSession, () => runs.newSession()),
    vscode.commands.registerCommand(COMMAND_IDS.cancelRun, () => runs.cancelRun()),
    vscode.commands.registerCommand(COMMAND_IDS.showTranscript, () => transcript.show()),
    vscode.commands.registerCommand(COMMAND_IDS.setApiKey, setApiKey),
    vscode.commands.registerCommand(COMMAND_IDS.restartServer, restartServer),
    onSettingsChange((change) => {
      if (change === 'restart') {
        void restartServer();
      } else {
        void server.pushSettings();
      }
    }),
    await onPythonExtensionChange(() => {
      if (!readPythonSetting()) {
        void restartServer();
      }
    }),
  );

  // Start the server now so the first task does not wait for it (and a missing server
  // package is reported as soon as the user opens the view).
  void server.ensureStarted();
}

export function deactivate(): void {
  // Subscriptions (the server among them) are disposed by VS Code.
}
