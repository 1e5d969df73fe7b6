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
  approvalSettings: 'workspaceAgent.ui.approvalSettings',
} as const;

/** Context key for `when` clauses: true while a run goes. */
export const RUNNING_CONTEXT = 'workspaceAgent.running';

/** Context keys the walkthrough's steps complete on (package.json `completionEvents`). */
export const API_KEY_SET_CONTEXT = 'workspaceAgent.apiKeySet';
export const TASK_STARTED_CONTEXT = 'workspaceAgent.taskStarted';
