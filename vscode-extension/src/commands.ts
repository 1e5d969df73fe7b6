/**
 * The extension's ids: its views, its commands and its `when` clauses' context keys, as
 * package.json names them. A module that shows, focuses or runs one imports it from here,
 * never from the module that implements it (so the two need not import each other).
 */

/** The views (package.json `contributes.views`). */
export const PLAN_VIEW_ID = 'workspaceAgent.plan';
export const CONVERSATION_VIEW_ID = 'workspaceAgent.conversation';
export const MCP_VIEW_ID = 'workspaceAgent.mcpServers';

/**
 * The extension's own command ids (package.json `contributes.commands`). They differ from
 * the server's workspaceAgent.run / .cancel / .newSession / .getTodos, which
 * vscode-languageclient registers by itself. commandTable.ts gives each its handler.
 */
export const COMMAND_IDS = {
  runTask: 'workspaceAgent.ui.runTask',
  runSavedPrompt: 'workspaceAgent.ui.runSavedPrompt',
  askAboutSelection: 'workspaceAgent.ui.askAboutSelection',
  newSession: 'workspaceAgent.ui.newSession',
  resumeSession: 'workspaceAgent.ui.resumeSession',
  cancelRun: 'workspaceAgent.ui.cancelRun',
  showTranscript: 'workspaceAgent.ui.showTranscript',
  setApiKey: 'workspaceAgent.ui.setApiKey',
  restartServer: 'workspaceAgent.ui.restartServer',
  installServer: 'workspaceAgent.ui.installServer',
  approvalSettings: 'workspaceAgent.ui.approvalSettings',
  // The model · effort status-bar item: pick them for this window's sessions.
  pickModel: 'workspaceAgent.ui.pickModel',
  // The Conversation view: show it, open it in an editor tab; a plan step's cards.
  showConversation: 'workspaceAgent.ui.showConversation',
  openConversationInEditor: 'workspaceAgent.ui.openConversationInEditor',
  moveConversationToSecondarySideBar: 'workspaceAgent.ui.moveConversationToSecondarySideBar',
  moveConversationToSideBar: 'workspaceAgent.ui.moveConversationToSideBar',
  showStepInConversation: 'workspaceAgent.ui.showStepInConversation',
  // The Plan view's changes (checkpoints): file rows, step rows and the view's title.
  openChange: 'workspaceAgent.ui.openChange',
  openChangedFile: 'workspaceAgent.ui.openChangedFile',
  revertStep: 'workspaceAgent.ui.revertStep',
  undoStep: 'workspaceAgent.ui.undoStep',
  addCheck: 'workspaceAgent.ui.addCheck',
  openCommandOutput: 'workspaceAgent.ui.openCommandOutput',
  revertLastRun: 'workspaceAgent.ui.revertLastRun',
  undoRevert: 'workspaceAgent.ui.undoRevert',
  // A review question's diff editor: its title bar answers the question.
  acceptChange: 'workspaceAgent.ui.acceptChange',
  rejectChange: 'workspaceAgent.ui.rejectChange',
  // The MCP Servers view: row actions, and the setting that lists the user's servers.
  mcpRestart: 'workspaceAgent.ui.mcpRestart',
  mcpTrust: 'workspaceAgent.ui.mcpTrust',
  mcpDisable: 'workspaceAgent.ui.mcpDisable',
  mcpEnable: 'workspaceAgent.ui.mcpEnable',
  mcpSettings: 'workspaceAgent.ui.mcpSettings',
  // Plan mode: the mode of the next task, and the draft of a plan that is ready.
  planMode: 'workspaceAgent.ui.planMode',
  actMode: 'workspaceAgent.ui.actMode',
  runPlan: 'workspaceAgent.ui.runPlan',
  keepPlanning: 'workspaceAgent.ui.keepPlanning',
  discardPlan: 'workspaceAgent.ui.discardPlan',
  addPlanItem: 'workspaceAgent.ui.addPlanItem',
  rewordPlanItem: 'workspaceAgent.ui.rewordPlanItem',
  commentPlanItem: 'workspaceAgent.ui.commentPlanItem',
  deletePlanItem: 'workspaceAgent.ui.deletePlanItem',
  movePlanItemUp: 'workspaceAgent.ui.movePlanItemUp',
  movePlanItemDown: 'workspaceAgent.ui.movePlanItemDown',
  // Background commands (run_in_background): the status bar's menu, and Stop All.
  showRunning: 'workspaceAgent.ui.showRunning',
  stopAllBackground: 'workspaceAgent.ui.stopAllBackground',
} as const;

/** Context key for `when` clauses: true while a run goes. */
export const RUNNING_CONTEXT = 'workspaceAgent.running';

/** Context key: the next task runs in plan mode (remembered per workspace). */
export const PLAN_MODE_CONTEXT = 'workspaceAgent.planMode';
/** Context key: a plan waits for the user (the Plan view shows it as an editable draft). */
export const PLAN_DRAFT_CONTEXT = 'workspaceAgent.planDraft';

/** Context keys the walkthrough's steps complete on (package.json `completionEvents`). */
export const API_KEY_SET_CONTEXT = 'workspaceAgent.apiKeySet';
/** A run in this window did its task (a failed or cancelled one does not count). */
export const TASK_DONE_CONTEXT = 'workspaceAgent.firstTaskDone';
/** The Plan view showed a plan. */
export const PLAN_WATCHED_CONTEXT = 'workspaceAgent.planWatched';
/** Context key: the server runs (the walkthrough's Install step is done). */
export const SERVER_READY_CONTEXT = 'workspaceAgent.serverReady';
/** Context key: the current session's agent changed files (Revert Last Run). */
export const HAS_CHANGES_CONTEXT = 'workspaceAgent.hasChanges';
/** Context key: the server takes back one step alone (Undo Only This Step). */
export const REVERT_ONLY_CONTEXT = 'workspaceAgent.canRevertOnly';
/** Context key: the current session's newest revert can be undone (Undo Last Revert). */
export const CAN_UNDO_REVERT_CONTEXT = 'workspaceAgent.canUndoRevert';

/**
 * Commands the extension registers but does not list in the palette: the server's code
 * actions are pointed at this one (client.ts), so their runs go through the extension's
 * own run (progress, Plan view, transcript) in its current session.
 */
export const INTERNAL_COMMAND_IDS = {
  runCodeAction: 'workspaceAgent.ui.runCodeAction',
} as const;
