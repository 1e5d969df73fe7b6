/**
 * The extension's own command ids (package.json `contributes.commands`). They differ from
 * the server's workspaceAgent.run / .cancel / .newSession / .getTodos, which
 * vscode-languageclient registers by itself.
 */
export const COMMAND_IDS = {
  runTask: 'workspaceAgent.ui.runTask',
  newSession: 'workspaceAgent.ui.newSession',
  resumeSession: 'workspaceAgent.ui.resumeSession',
  cancelRun: 'workspaceAgent.ui.cancelRun',
  showTranscript: 'workspaceAgent.ui.showTranscript',
  setApiKey: 'workspaceAgent.ui.setApiKey',
  restartServer: 'workspaceAgent.ui.restartServer',
} as const;

/** Context key for `when` clauses: true while a run goes. */
export const RUNNING_CONTEXT = 'workspaceAgent.running';
