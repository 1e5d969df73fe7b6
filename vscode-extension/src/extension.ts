/**
 * Wiring only: builds the parts (parts.ts), then connects them: the server's notifications
 * and questions (serverListener.ts), the Conversation view's clicks (conversationActions.ts),
 * the commands from one table (commandTable.ts), and what one part shows of another's
 * changes. No agent logic lives in the extension.
 */
import type * as vscode from 'vscode';
import { registerCommands, restartServer } from './commandTable';
import { conversationActions } from './conversationActions';
import type { AgentServer } from './client';
import { type Parts, createParts } from './parts';
import { onPythonExtensionChange } from './python';
import { serverListener } from './serverListener';
import { onSettingsChange, readPythonSetting } from './settings';

export function activate(context: vscode.ExtensionContext): void {
  const parts = createParts(context);
  activeServer = parts.server;
  parts.server.listen(serverListener(parts));
  parts.conversation.actions = conversationActions(parts);
  context.subscriptions.push(...parts.disposables, ...followChanges(parts), ...registerCommands(parts));
  // Not awaited: asking for the Python extension's API activates it, which can take a while.
  void onPythonExtensionChange(() => {
    if (!readPythonSetting()) {
      void restartServer(parts);
    }
  }).then((subscription) => context.subscriptions.push(subscription));
  void parts.walkthrough.checkApiKey();
}

/** The server of the active extension, for deactivate. */
let activeServer: AgentServer | undefined;

export function deactivate(): Promise<void> | undefined {
  // The window reloads or closes: the server is stopped here, where VS Code waits for it,
  // telling it first why the run still going stops (the conversation then says so).
  // Other subscriptions are disposed by VS Code.
  return activeServer?.stop('reload');
}

/** What one part shows of another's changes, and the settings the server follows. */
function followChanges(parts: Parts): vscode.Disposable[] {
  const { conversation, planEditor, planView, runs, queue, modes, walkthrough, state, server } = parts;
  return [
    planEditor.onDidChange(() => conversation.showPlan(planEditor.card())),
    ...[runs.onDidChange, queue.onDidChange, modes.onDidChange].map((changed) => changed(() => conversation.runChanged())),
    walkthrough.watchRuns(state, () => planView.visible),
    planView.onDidChangeVisibility(() => planView.visible && walkthrough.planShown(state)),
    onSettingsChange((change) => {
      if (change === 'restart') {
        void restartServer(parts);
      } else {
        void server.pushSettings();
      }
    }),
  ];
}
