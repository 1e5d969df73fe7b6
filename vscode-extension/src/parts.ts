/**
 * The extension's parts, built once, each after what it uses: the state and the server;
 * what keeps the server's data; the views; then what uses the views (the runs, the
 * questions, the plan's editor and its view). No part here reaches one built after it.
 * The links the other way (the server's notifications, the Conversation view's clicks, the
 * commands) are made by extension.ts once every part exists.
 */
import * as vscode from 'vscode';
import { ApiKeyStore } from './apiKey';
import { ApprovalPrompts } from './approvals';
import { ChangesKeeper } from './changes';
import { AgentServer } from './client';
import { VERSION_SCHEME } from './core/changeLinks';
import { AgentState } from './core/state';
import { SubagentPlans } from './core/subagentPlans';
import { ConversationView } from './conversationView';
import { McpServersView } from './mcpView';
import { ModelPicker } from './modelPicker';
import { PlanEditor } from './planEditor';
import { type PlanView, createPlanView } from './planView';
import { ServerPython } from './python';
import { RevertCommands } from './reverts';
import { RunningCommands } from './running';
import { RunFixes } from './runFixes';
import { RunModeSetting } from './runMode';
import { RunQueue } from './runQueue';
import { RunController } from './runs';
import { SessionKeeper } from './sessions';
import { createStatusItem } from './status';
import { TaskInput } from './taskInput';
import { Transcript } from './transcript';
import { ChangeDecorations, VersionDocuments } from './versions';
import { WalkthroughProgress } from './walkthrough';

export interface Parts {
  readonly log: vscode.LogOutputChannel;
  readonly state: AgentState;
  readonly transcript: Transcript;
  readonly apiKey: ApiKeyStore;
  readonly server: AgentServer;
  readonly sessions: SessionKeeper;
  readonly picker: ModelPicker;
  readonly walkthrough: WalkthroughProgress;
  readonly changes: ChangesKeeper;
  /** The subagents of the sessions' runs, for the Plan view (the `subagent` events). */
  readonly subagents: SubagentPlans;
  readonly versions: VersionDocuments;
  readonly conversation: ConversationView;
  readonly mcpView: McpServersView;
  readonly approvals: ApprovalPrompts;
  readonly running: RunningCommands;
  readonly modes: RunModeSetting;
  readonly runs: RunController;
  readonly queue: RunQueue;
  readonly fixes: RunFixes;
  readonly input: TaskInput;
  readonly reverts: RevertCommands;
  readonly planEditor: PlanEditor;
  readonly planView: PlanView;
  /** The parts and their registrations, for the extension's subscriptions. */
  readonly disposables: vscode.Disposable[];
}

export function createParts(context: vscode.ExtensionContext): Parts {
  const log = vscode.window.createOutputChannel('Workspace Agent', { log: true });
  const state = new AgentState();
  const transcript = new Transcript();
  const apiKey = new ApiKeyStore(context.secrets);
  const server = new AgentServer(log, new ServerPython(context, log), apiKey, extensionVersion(context));
  // Start late: the server starts when a view shows (the Plan view's plan is restored
  // then) or when a command needs it, not when VS Code activates the extension.
  const startServer = (): void => void server.ensureStarted();

  const sessions = new SessionKeeper(state, server, transcript, log, context.workspaceState);
  const picker = new ModelPicker(server);
  const walkthrough = new WalkthroughProgress(apiKey, context.extension.id);
  const changes = new ChangesKeeper(state, server, log);
  const subagents = new SubagentPlans();
  const versions = new VersionDocuments(server);

  const conversation = new ConversationView(context.extensionUri, state, server, changes.tracker, log);
  const mcpView = new McpServersView(
    {
      restart: (name) => server.mcpRestart(name),
      trust: (name, fingerprint) => server.mcpTrust(name, fingerprint),
      setEnabled: (name, enabled) => server.mcpSetEnabled(name, enabled),
    },
    log,
    startServer,
  );
  const approvals = new ApprovalPrompts(state, conversation, log);
  const running = new RunningCommands(state, server, conversation, log);

  const memento = context.workspaceState;
  const modes = new RunModeSetting(memento, transcript);
  const runs = new RunController(state, server, transcript, sessions, modes, conversation, picker);
  const queue = new RunQueue(runs, memento, transcript);
  const fixes = new RunFixes(runs, queue, conversation, transcript);
  const input = new TaskInput(state, server, sessions, modes, queue);
  const reverts = new RevertCommands(state, server, changes, transcript, (why) => runs.refuseWhileRunning(why));

  const planEditor = new PlanEditor(state, runs, modes, memento, () => conversation.visible);
  // The Plan view opens itself for a new plan unless the user watches the Conversation view.
  const watching = {
    get visible() {
      return conversation.viewVisible;
    },
    onDidChangeVisibility: conversation.onDidChangeVisibility,
  };
  const planView = createPlanView(state, changes.tracker, subagents, startServer, planEditor, watching);

  const disposables = [
    log,
    transcript,
    server,
    sessions,
    changes,
    versions,
    modes,
    runs,
    queue,
    fixes,
    planEditor,
    planView,
    mcpView,
    approvals,
    running,
    conversation,
    vscode.workspace.registerTextDocumentContentProvider(VERSION_SCHEME, versions),
    vscode.window.registerFileDecorationProvider(new ChangeDecorations()),
    createStatusItem(state),
    picker,
  ];
  return {
    log,
    state,
    transcript,
    apiKey,
    server,
    sessions,
    picker,
    walkthrough,
    changes,
    subagents,
    versions,
    conversation,
    mcpView,
    approvals,
    running,
    modes,
    runs,
    queue,
    fixes,
    input,
    reverts,
    planEditor,
    planView,
    disposables,
  };
}

function extensionVersion(context: vscode.ExtensionContext): string {
  const manifest: unknown = context.extension.packageJSON;
  const version = typeof manifest === 'object' && manifest !== null ? (manifest as { version?: unknown }).version : undefined;
  return typeof version === 'string' ? version : 'unknown';
}
