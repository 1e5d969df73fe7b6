/**
 * The extension's commands in one table, as rust-analyzer's `createCommands`: for each id
 * of commands.ts, what makes its handler from the parts (parts.ts). The table's type asks
 * for every id, so a command of package.json (test/unit/protocol.test.ts: exactly the ids)
 * cannot go without a handler, and registerCommands registers them all in one place.
 */
import * as vscode from 'vscode';
import { setApiKey } from './apiKey';
import { COMMAND_IDS, INTERNAL_COMMAND_IDS } from './commands';
import type { CommandNode, FileNode, StepNode } from './core/changeRows';
import type { CodeActionRun } from './core/codeActions';
import type { McpServerRow } from './core/mcpServers';
import type { ConversationView } from './conversationView';
import { addCheck } from './itemChecks';
import { openMcpSettings } from './mcpView';
import type { Parts } from './parts';
import type { PlanRow } from './planEditor';
import { runSavedPrompt } from './savedPrompts';
import { openChange, openChangedFile } from './versions';

type CommandName = keyof typeof COMMAND_IDS | keyof typeof INTERNAL_COMMAND_IDS;

/** A handler takes what its caller passes: a menu the row, a code action its run, the palette nothing. */
type Handler = (...args: never[]) => unknown;

type CommandTable = Record<CommandName, (parts: Parts) => Handler>;

const SWITCHING = 'is working on a task. Cancel the run before switching sessions.';
const NEW_SESSION = 'is working on a task. Cancel the run before starting a new session.';
const RESTARTING = 'is working on a task. Cancel the run before restarting the server.';

export function createCommands(): CommandTable {
  return {
    // Tasks and runs.
    runTask: ({ input }) => (suggestion?: unknown) => input.runTask(suggestion),
    runSavedPrompt: ({ server, log, queue }) => () => runSavedPrompt(server, log, (prompt) => queue.send(prompt, [], 'elsewhere')),
    askAboutSelection: ({ input }) => () => input.askAboutSelection(),
    runCodeAction: ({ input }) => (run: CodeActionRun) => input.runCodeAction(run),
    cancelRun: ({ runs }) => () => runs.cancelRun(),
    newSession: ({ sessions, runs }) => () => sessions.newSessionCommand(() => runs.refuseWhileRunning(NEW_SESSION)),
    resumeSession: ({ sessions, runs }) => () => sessions.resumeCommand(() => runs.refuseWhileRunning(SWITCHING)),
    showTranscript: ({ transcript }) => () => transcript.show(),
    pickModel: ({ picker }) => () => picker.choose(),
    // The server and its settings.
    setApiKey: (parts) => () => setApiKeyCommand(parts),
    restartServer: (parts) => () => restartServer(parts),
    installServer: ({ server }) => async () => {
      if (await server.installAndStart()) {
        void vscode.window.showInformationMessage('Workspace Agent: the server is ready.');
      }
    },
    approvalSettings: () => () => vscode.commands.executeCommand('workbench.action.openSettings', 'workspaceAgent.approvals'),
    // The Conversation view.
    showConversation: ({ conversation, server }) => async () => {
      await conversation.show();
      void server.ensureStarted();
    },
    openConversationInEditor: ({ conversation, server }) => () => {
      conversation.openInEditor();
      void server.ensureStarted();
    },
    moveConversationToSecondarySideBar: ({ conversation }) => () => conversation.moveTo('secondarySideBar'),
    moveConversationToSideBar: ({ conversation }) => () => conversation.moveTo('sideBar'),
    showStepInConversation: ({ conversation }) => (node?: StepNode) => (node?.todoId ? conversation.showStep(node.todoId) : conversation.show()),
    // The Plan view's changes, and the reverts.
    openChange: ({ versions }) => (node: FileNode) => openChange(versions, node),
    openChangedFile: () => (node: FileNode) => openChangedFile(node),
    openCommandOutput: ({ conversation }) => (node?: CommandNode) => openCommandOutput(conversation, node),
    revertStep: ({ reverts }) => (node?: StepNode) => reverts.revertStep(node),
    undoStep: ({ reverts }) => (node?: StepNode) => reverts.undoStep(node),
    addCheck: ({ state, server }) => (node?: StepNode) => addCheck(node, state, server),
    revertLastRun: ({ reverts }) => () => reverts.revertLastRun(),
    undoRevert: ({ reverts }) => () => reverts.undoLastRevert(),
    // A review question's diff editor.
    acceptChange: ({ approvals }) => (uri?: vscode.Uri) => approvals.answerFromDiff(uri, 'allow'),
    rejectChange: ({ approvals }) => (uri?: vscode.Uri) => approvals.answerFromDiff(uri, 'deny'),
    // The MCP Servers view.
    mcpRestart: ({ mcpView }) => (row?: McpServerRow) => mcpView.restart(row),
    mcpTrust: ({ mcpView }) => (row?: McpServerRow) => mcpView.trust(row),
    mcpDisable: ({ mcpView }) => (row?: McpServerRow) => mcpView.setEnabled(row, false),
    mcpEnable: ({ mcpView }) => (row?: McpServerRow) => mcpView.setEnabled(row, true),
    mcpSettings: () => () => openMcpSettings(),
    // Plan mode and the plan's draft.
    planMode: ({ modes }) => () => modes.setMode('plan'),
    actMode: ({ modes }) => () => modes.setMode('act'),
    runPlan: ({ planEditor }) => () => planEditor.approve('run'),
    keepPlanning: ({ planEditor }) => () => planEditor.approve('revise'),
    discardPlan: ({ planEditor }) => () => planEditor.discard(),
    addPlanItem: ({ planEditor }) => (row?: PlanRow) => planEditor.addItem(row),
    rewordPlanItem: ({ planEditor }) => (row?: PlanRow) => planEditor.rewordItem(row),
    commentPlanItem: ({ planEditor }) => (row?: PlanRow) => planEditor.commentItem(row),
    deletePlanItem: ({ planEditor }) => (row?: PlanRow) => planEditor.deleteItem(row),
    movePlanItemUp: ({ planEditor }) => (row?: PlanRow) => planEditor.moveItem(row, -1),
    movePlanItemDown: ({ planEditor }) => (row?: PlanRow) => planEditor.moveItem(row, 1),
    // Background commands (run_in_background): the status bar's menu, and Stop All.
    showRunning: ({ running }) => () => running.choose(),
    stopAllBackground: ({ running }) => () => running.stopAll(),
  };
}

/** Registers every command of the table with the parts. */
export function registerCommands(parts: Parts): vscode.Disposable[] {
  const table = createCommands();
  const ids: Record<CommandName, string> = { ...COMMAND_IDS, ...INTERNAL_COMMAND_IDS };
  return (Object.keys(table) as CommandName[]).map((name) =>
    // VS Code passes whatever the caller gave; each handler says what it expects.
    vscode.commands.registerCommand(ids[name], table[name](parts) as (...args: unknown[]) => unknown),
  );
}

/** Workspace Agent: Restart Server (also after a change to a setting the server reads at start). */
export async function restartServer({ runs, server }: Parts): Promise<void> {
  if (await runs.refuseWhileRunning(RESTARTING)) {
    return;
  }
  if (await server.restart()) {
    void vscode.window.showInformationMessage('Workspace Agent: server restarted.');
  }
}

async function setApiKeyCommand({ apiKey, state, server, walkthrough }: Parts): Promise<void> {
  await setApiKey(apiKey, {
    runGoing: () => state.running,
    serverRunning: () => server.running,
    restartServer: () => server.restart(),
  });
  await walkthrough.checkApiKey();
}

/** A command row's Open Output: the tool call's whole output in an editor. */
async function openCommandOutput(conversation: ConversationView, node?: CommandNode): Promise<void> {
  if (node?.toolUseId) {
    try {
      await conversation.openToolOutput(node.toolUseId, node.command);
    } catch (error) {
      void vscode.window.showErrorMessage(`Workspace Agent: could not open the output: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
