/**
 * Questions that wait in place: the server's workspaceAgent/approval requests become cards
 * in the Conversation view (revealed, the user's focus kept), the Plan row of the step
 * says "waiting for you", the status bar and the run's progress say "Waiting for your
 * approval", and the view's badge counts the questions. A question stays until it is
 * answered in its card or the run is cancelled (the server cancels the request); nothing
 * else, such as a closed notification, answers it.
 *
 * A write question can open its proposed change in the diff editor before the answer: the
 * whole file, the change at its lines (core/proposed.ts), with Accept / Reject in the diff
 * editor's title bar (package.json menus `editor/title`, on the proposed side's scheme).
 * The diff tab closes once the question is answered, wherever it was answered.
 */
import * as vscode from 'vscode';
import type { ConversationView } from './conversationView';
import { MemoryDocuments } from './conversationView';
import { proposedFile, proposedTitle } from './core/proposed';
import type { AgentState } from './core/state';
import type { ApprovalDecision, ApprovalParams, ApprovalResult } from './protocol';
import { SETTINGS_SECTION } from './protocol';

const ALLOWED_DOMAINS = 'sandbox.allowedDomains';

interface Pending {
  params: ApprovalParams;
  resolve: (result: ApprovalResult) => void;
  cancelled: vscode.Disposable;
}

export class ApprovalPrompts implements vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  private readonly proposed = new MemoryDocuments('workspace-agent-proposed');
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(this.proposed.scheme, this.proposed);

  constructor(
    private readonly state: AgentState,
    private readonly conversation: ConversationView,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The workspaceAgent/approval handler: resolves with the user's answer. */
  ask(params: ApprovalParams, token: vscode.CancellationToken): Promise<ApprovalResult> {
    this.log.info(`Approval asked: ${params.message}`);
    return new Promise<ApprovalResult>((resolve) => {
      const cancelled = token.onCancellationRequested(() => this.withdraw(params.toolUseId));
      this.pending.get(params.toolUseId)?.resolve({ decision: 'deny' }); // asked again: the old one is over
      this.pending.set(params.toolUseId, { params, resolve, cancelled });
      this.state.approvalAsked({ toolUseId: params.toolUseId, todoId: params.todoId });
      this.conversation.ask(params);
    });
  }

  /** The user answered in the card. */
  answer(toolUseId: string, decision: ApprovalDecision, reason?: string): void {
    const pending = this.pending.get(toolUseId);
    if (!pending || !pending.params.options.includes(decision)) {
      return;
    }
    this.finish(toolUseId);
    this.log.info(`Approval answered: ${decision}${reason ? ` ("${reason}")` : ''}`);
    this.conversation.answered(toolUseId, decision === 'deny' ? 'denied' : 'allowed', reason);
    void this.closeProposed(toolUseId);
    pending.resolve({ decision, ...(reason ? { reason } : {}) });
    if (decision === 'allowAlways' && pending.params.host) {
      void this.keepHost(pending.params.host);
    }
  }

  /** "Always allow": the host joins the user's sandbox.allowedDomains (user settings: a
   * workspace's may not open the network). The server allowed it for the session already. */
  private async keepHost(host: string): Promise<void> {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const kept = config.inspect<string[]>(ALLOWED_DOMAINS)?.globalValue ?? [];
    if (kept.includes(host)) {
      return;
    }
    try {
      await config.update(ALLOWED_DOMAINS, [...kept, host], vscode.ConfigurationTarget.Global);
      this.log.info(`Always allowed ${host}: added to ${SETTINGS_SECTION}.${ALLOWED_DOMAINS}`);
    } catch (error) {
      const open = 'Open Settings';
      const choice = await vscode.window.showErrorMessage(
        `Could not add ${host} to ${SETTINGS_SECTION}.${ALLOWED_DOMAINS}: ${String(error)}. It is allowed for this session; add it yourself to stop the question in the next one.`,
        open,
      );
      if (choice === open) {
        await vscode.commands.executeCommand('workbench.action.openSettings', `${SETTINGS_SECTION}.${ALLOWED_DOMAINS}`);
      }
    }
  }

  /** The proposed change of a write question, in the diff editor: the whole file. */
  async showProposed(toolUseId: string): Promise<void> {
    const diff = this.pending.get(toolUseId)?.params.diff;
    if (!diff) {
      return;
    }
    const file = proposedFile(diff, await this.currentText(diff.path));
    const before = this.proposed.put(diff.path, `${toolUseId}-before`, file.before);
    const after = this.proposed.put(diff.path, `${toolUseId}-after`, file.after);
    await vscode.commands.executeCommand('vscode.diff', before, after, proposedTitle(diff, file.whole), { preview: true });
  }

  /** Accept / Reject in the diff editor's title bar: the question of the proposed side shown. */
  answerFromDiff(uri: vscode.Uri | undefined, decision: 'allow' | 'deny'): void {
    const shown = uri ?? activeDiffSide();
    const toolUseId = shown?.scheme === this.proposed.scheme ? shown.query.replace(/-(before|after)$/, '') : undefined;
    if (!toolUseId || !this.pending.has(toolUseId)) {
      void vscode.window.showInformationMessage('Workspace Agent: this change was already answered.');
      return;
    }
    this.answer(toolUseId, decision);
  }

  /** The file as it is now: the editor's text when it is open, else the disk's. */
  private async currentText(path: string): Promise<string | undefined> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!folder) {
      return undefined;
    }
    const uri = vscode.Uri.joinPath(folder, path);
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
    if (open) {
      return open.getText();
    }
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      return undefined;
    }
  }

  /** The question is over: its diff tab (if open) closes. */
  private async closeProposed(toolUseId: string): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === this.proposed.scheme && tab.input.modified.query === `${toolUseId}-after`);
    if (tabs.length) {
      await vscode.window.tabGroups.close(tabs);
    }
  }

  /**
   * The extension goes away (a window reload or close): questions still waiting are left
   * unanswered, not denied. VS Code disposes this while `deactivate` is still telling the
   * server why the run stops; a "deny" sent now could reach it first and read as the
   * user's No. The server withdraws them itself when it cuts the run off (its card then
   * says "Not answered: the run ended first").
   */
  dispose(): void {
    for (const toolUseId of [...this.pending.keys()]) {
      this.finish(toolUseId);
    }
    this.registration.dispose();
    this.proposed.dispose();
  }

  /** The run was cancelled (the server withdrew the request): its card says so. */
  private withdraw(toolUseId: string): void {
    const pending = this.pending.get(toolUseId);
    if (!pending) {
      return;
    }
    this.finish(toolUseId);
    this.conversation.answered(toolUseId, 'denied', 'the run was cancelled');
    void this.closeProposed(toolUseId);
    pending.resolve({ decision: 'deny' });
  }

  private finish(toolUseId: string): void {
    this.pending.get(toolUseId)?.cancelled.dispose();
    this.pending.delete(toolUseId);
    this.state.approvalDone(toolUseId);
  }
}

/** The modified side of the active diff editor (a title-bar command run without a URI). */
function activeDiffSide(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputTextDiff ? input.modified : undefined;
}
