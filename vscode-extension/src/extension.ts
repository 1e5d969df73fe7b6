/**
 * Wiring only: builds the parts, connects the server's notifications to the state, and
 * registers the commands. No agent logic lives in the extension.
 */
import * as vscode from 'vscode';
import { ApiKeyStore, setApiKey } from './apiKey';
import { ApprovalPrompts } from './approvals';
import { ChangesKeeper } from './changes';
import { AgentServer } from './client';
import { COMMAND_IDS, INTERNAL_COMMAND_IDS, REVERT_ONLY_CONTEXT } from './commands';
import type { CodeActionRun } from './core/codeActions';
import type { CommandNode, FileNode, StepNode } from './core/changeRows';
import { AgentState } from './core/state';
import { ConversationView } from './conversationView';
import { McpServersView } from './mcpView';
import { PLAN_VIEW_ID, createPlanView } from './planView';
import { PlanEditor } from './planEditor';
import { ServerPython, onPythonExtensionChange } from './python';
import { RevertCommands } from './reverts';
import { RunningCommands } from './running';
import { RunController } from './runs';
import { SessionKeeper } from './sessions';
import { onSettingsChange, readPythonSetting } from './settings';
import { createStatusItem } from './status';
import { ModelPicker } from './modelPicker';
import { Transcript } from './transcript';
import { WalkthroughProgress } from './walkthrough';
import { runSavedPrompt } from './savedPrompts';
import type { ApprovalResult } from './protocol';
import { VERSION_SCHEME } from './core/changeLinks';
import { ChangeDecorations, VersionDocuments, openChange, openChangedFile } from './versions';

export function activate(context: vscode.ExtensionContext): void {
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
      if (event.kind === 'preparing') {
        state.acceptPreparing(event);
      }
      running.accept(event);
      conversation.accept(event);
    },
    sandbox: (status) => state.setSandbox(status),
    mcpServers: (payload) => mcpView.update(payload.servers),
    approval: (params, token): Promise<ApprovalResult> => approvals.ask(params, token),
    changes: (payload) => {
      if (changes.accept(payload)) {
        versions.sessionChanged(payload.sessionId);
      }
    },
    // Sessions are saved by the server: the keeper resumes one each time it starts. The
    // changes are read again then (notifications may have been missed while it was down).
    started: () => {
      sessions.serverStarted();
      void picker.refresh();
      void vscode.commands.executeCommand('setContext', REVERT_ONLY_CONTEXT, server.canRevertOnly);
      walkthrough.serverStarted();
      void sessions.ready().then(() => {
        void changes.refresh();
        void conversation.reload();
        void running.refresh();
      });
    },
    stopped: () => {
      mcpView.update([]); // its MCP servers stopped with it; the next server sends their states
      if (state.sessionId) {
        transcript.note('The server stopped.');
      }
      state.serverStopped();
      running.serverStopped();
    },
  }, extensionVersion(context));
  activeServer = server;
  server.runningSession = () => (state.running ? state.sessionId : undefined);
  const sessions = new SessionKeeper(state, server, transcript, log);
  const picker = new ModelPicker(server);
  const runs = new RunController(state, server, transcript, sessions, context.workspaceState, picker);
  const walkthrough = new WalkthroughProgress(apiKey, context.extension.id);
  const changes = new ChangesKeeper(state, server, log);
  const versions = new VersionDocuments(server);
  const reverts = new RevertCommands(state, server, changes, transcript, (why) => runs.refuseWhileRunning(why));
  const conversation: ConversationView = new ConversationView(context.extensionUri, state, server, changes.tracker, log);
  const approvals: ApprovalPrompts = new ApprovalPrompts(state, conversation, log);
  const running: RunningCommands = new RunningCommands(state, server, conversation, log);
  runs.attachView(conversation);
  // Start late: the server starts when the Plan view shows (its plan is restored then)
  // or when a command needs it, not when VS Code activates the extension.
  const planEditor = new PlanEditor(state, runs, context.workspaceState);
  const planView = createPlanView(state, changes.tracker, () => void server.ensureStarted(), planEditor, {
    get visible() {
      return conversation.viewVisible;
    },
    onDidChangeVisibility: conversation.onDidChangeVisibility,
  });
  const mcpView: McpServersView = new McpServersView(
    {
      restart: (name) => server.mcpRestart(name),
      trust: (name, fingerprint) => server.mcpTrust(name, fingerprint),
      setEnabled: (name, enabled) => server.mcpSetEnabled(name, enabled),
    },
    log,
    () => void server.ensureStarted(),
  );
  conversation.actions = {
    send: (text, images) => runs.send(text, images),
    cancel: () => runs.cancelRun(),
    fix: (fix, prompt) => void runs.applyFix(fix, prompt),
    unqueue: (id) => runs.unqueue(id),
    runQueued: (id) => runs.runQueued(id),
    answer: (toolUseId, decision, reason) => approvals.answer(toolUseId, decision, reason),
    showProposed: (toolUseId) => approvals.showProposed(toolUseId),
    revealStep: (todoId) => planView.revealStep(todoId),
    undoRevert: (undoId) => reverts.undoRevert(undoId),
    openChange: (node) => openChange(versions, node),
    setMode: (mode) => void runs.setMode(mode),
    plan: (action) => {
      const command = { run: COMMAND_IDS.runPlan, revise: COMMAND_IDS.keepPlanning, discard: COMMAND_IDS.discardPlan, edit: `${PLAN_VIEW_ID}.focus` }[action];
      void vscode.commands.executeCommand(command);
    },
    planEdit: (edit) => {
      const focus = planEditor.editFromCard(edit); // the edit first: the card then shows it
      conversation.showPlan(planEditor.card(), focus);
    },
    runState: () => ({
      mode: runs.mode,
      running: state.running,
      queued: runs.queued.map(({ id, text, held }) => ({ id, text, held: held === true })),
      history: runs.history,
    }),
    background: (request) => running.act(request),
  };

  const restartServer = async (): Promise<void> => {
    if (await runs.refuseWhileRunning('is working on a task. Cancel the run before restarting the server.')) {
      return;
    }
    if (await server.restart()) {
      void vscode.window.showInformationMessage('Workspace Agent: server restarted.');
    }
  };

  context.subscriptions.push(
    log,
    transcript,
    server,
    changes,
    versions,
    runs,
    planEditor,
    planView,
    ...planEditor.commands(),
    planEditor.onDidChange(() => conversation.showPlan(planEditor.card())),
    mcpView,
    approvals,
    conversation,
    runs.onDidChange(() => conversation.runChanged()),
    vscode.commands.registerCommand(COMMAND_IDS.showConversation, async () => {
      await conversation.show();
      void server.ensureStarted();
    }),
    vscode.commands.registerCommand(COMMAND_IDS.openConversationInEditor, () => {
      conversation.openInEditor();
      void server.ensureStarted();
    }),
    vscode.commands.registerCommand(COMMAND_IDS.moveConversationToSecondarySideBar, () => conversation.moveTo('secondarySideBar')),
    vscode.commands.registerCommand(COMMAND_IDS.moveConversationToSideBar, () => conversation.moveTo('sideBar')),
    vscode.commands.registerCommand(COMMAND_IDS.showStepInConversation, (node?: StepNode) =>
      node?.todoId ? conversation.showStep(node.todoId) : conversation.show(),
    ),
    vscode.workspace.registerTextDocumentContentProvider(VERSION_SCHEME, versions),
    vscode.window.registerFileDecorationProvider(new ChangeDecorations()),
    vscode.commands.registerCommand(COMMAND_IDS.openChange, (node: FileNode) => openChange(versions, node)),
    vscode.commands.registerCommand(COMMAND_IDS.openChangedFile, (node: FileNode) => openChangedFile(node)),
    vscode.commands.registerCommand(COMMAND_IDS.revertStep, (node?: StepNode) => reverts.revertStep(node)),
    vscode.commands.registerCommand(COMMAND_IDS.undoStep, (node?: StepNode) => reverts.undoStep(node)),
    vscode.commands.registerCommand(COMMAND_IDS.openCommandOutput, async (node?: CommandNode) => {
      if (node?.toolUseId) {
        try {
          await conversation.openToolOutput(node.toolUseId, node.command);
        } catch (error) {
          void vscode.window.showErrorMessage(`Workspace Agent: could not open the output: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }),
    vscode.commands.registerCommand(COMMAND_IDS.revertLastRun, () => reverts.revertLastRun()),
    vscode.commands.registerCommand(COMMAND_IDS.undoRevert, () => reverts.undoLastRevert()),
    createStatusItem(state),
    running,
    ...running.commands(),
    picker,
    vscode.commands.registerCommand(COMMAND_IDS.pickModel, () => picker.choose()),
    walkthrough.watchRuns(state, () => planView.visible),
    planView.onDidChangeVisibility(() => planView.visible && walkthrough.planShown(state)),
    vscode.commands.registerCommand(COMMAND_IDS.runTask, (suggestion?: unknown) => runs.runTask(suggestion)),
    vscode.commands.registerCommand(COMMAND_IDS.runSavedPrompt, () =>
      runSavedPrompt(server, log, (prompt) => runs.send(prompt, [], 'elsewhere')),
    ),
    vscode.commands.registerCommand(COMMAND_IDS.askAboutSelection, () => runs.askAboutSelection()),
    vscode.commands.registerCommand(INTERNAL_COMMAND_IDS.runCodeAction, (run: CodeActionRun) => runs.runCodeAction(run)),
    vscode.commands.registerCommand(COMMAND_IDS.acceptChange, (uri?: vscode.Uri) => approvals.answerFromDiff(uri, 'allow')),
    vscode.commands.registerCommand(COMMAND_IDS.rejectChange, (uri?: vscode.Uri) => approvals.answerFromDiff(uri, 'deny')),
    vscode.commands.registerCommand(COMMAND_IDS.newSession, () => runs.newSession()),
    vscode.commands.registerCommand(COMMAND_IDS.resumeSession, () =>
      sessions.resumeCommand(() =>
        runs.refuseWhileRunning('is working on a task. Cancel the run before switching sessions.'),
      ),
    ),
    vscode.commands.registerCommand(COMMAND_IDS.cancelRun, () => runs.cancelRun()),
    vscode.commands.registerCommand(COMMAND_IDS.showTranscript, () => transcript.show()),
    vscode.commands.registerCommand(COMMAND_IDS.setApiKey, async () => {
      await setApiKey(apiKey, {
        runGoing: () => state.running,
        serverRunning: () => server.running,
        restartServer: () => server.restart(),
      });
      await walkthrough.checkApiKey();
    }),
    vscode.commands.registerCommand(COMMAND_IDS.approvalSettings, () =>
      vscode.commands.executeCommand('workbench.action.openSettings', 'workspaceAgent.approvals'),
    ),
    vscode.commands.registerCommand(COMMAND_IDS.restartServer, restartServer),
    vscode.commands.registerCommand(COMMAND_IDS.installServer, async () => {
      if (await server.installAndStart()) {
        void vscode.window.showInformationMessage('Workspace Agent: the server is ready.');
      }
    }),
    onSettingsChange((change) => {
      if (change === 'restart') {
        void restartServer();
      } else {
        void server.pushSettings();
      }
    }),
  );
  // Not awaited: asking for the Python extension's API activates it, which can take a while.
  void onPythonExtensionChange(() => {
    if (!readPythonSetting()) {
      void restartServer();
    }
  }).then((subscription) => context.subscriptions.push(subscription));

  void walkthrough.checkApiKey();
}

/** The server of the active extension, for deactivate. */
let activeServer: AgentServer | undefined;

export function deactivate(): Promise<void> | undefined {
  // The window reloads or closes: the server is stopped here, where VS Code waits for it,
  // telling it first why the run still going stops (the conversation then says so).
  // Other subscriptions are disposed by VS Code.
  return activeServer?.stop('reload');
}

function extensionVersion(context: vscode.ExtensionContext): string {
  const manifest: unknown = context.extension.packageJSON;
  const version = typeof manifest === 'object' && manifest !== null ? (manifest as { version?: unknown }).version : undefined;
  return typeof version === 'string' ? version : 'unknown';
}
