/**
 * The MCP Servers view: one row per MCP server the agent's server knows of (from
 * workspaceAgent/mcpServers), its state and source, its tools as children once ready; row
 * actions Restart, Trust (a workspace candidate: after a modal question showing what it
 * runs), Disable and Enable, inline and in the context menu. An action's error says what
 * to do next and offers it as a button (the server's `data.nextStep`). The commands
 * (commandTable.ts) call the public methods with the row a menu passes, or none (a pick).
 * An empty tree lets the viewsWelcome content (package.json) say how to add a server.
 * The rows come from core/mcpServers.ts.
 */
import * as vscode from 'vscode';
import { MCP_VIEW_ID } from './commands';
import { type McpServerRow, type McpToolRow, mcpError, mcpRows, mcpSummary, NEXT_STEP_BUTTONS, trustQuestion } from './core/mcpServers';
import type { McpNextStep, McpServerState, McpServersPayload } from './protocol';

type Node = McpServerRow | McpToolRow;

/** The agent server's side of the actions (client.ts). */
export interface McpActions {
  restart(name: string): Promise<McpServersPayload>;
  trust(name: string, fingerprint: string): Promise<McpServersPayload>;
  setEnabled(name: string, enabled: boolean): Promise<McpServersPayload>;
}

class McpProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  rows: McpServerRow[] = [];

  update(rows: McpServerRow[]): void {
    this.rows = rows;
    this.changed.fire(undefined);
  }

  getChildren(element?: Node): Node[] {
    if (!element) {
      return this.rows;
    }
    return element.kind === 'server' ? element.children : [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'tool') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
      item.id = node.id;
      item.iconPath = new vscode.ThemeIcon('tools');
      item.tooltip = node.tooltip;
      item.contextValue = 'mcpTool';
      item.accessibilityInformation = { label: node.accessibilityLabel };
      return item;
    }
    const item = new vscode.TreeItem(
      node.label,
      node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.iconPath = new vscode.ThemeIcon(node.icon, node.iconColor ? new vscode.ThemeColor(node.iconColor) : undefined);
    item.contextValue = node.contextValue;
    item.accessibilityInformation = { label: node.accessibilityLabel };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export class McpServersView implements vscode.Disposable {
  private readonly provider = new McpProvider();
  private readonly view: vscode.TreeView<Node>;
  private readonly disposables: vscode.Disposable[];

  /** `shown` runs whenever the view becomes visible (and now, if it is already). */
  constructor(
    private readonly actions: McpActions,
    private readonly log: vscode.LogOutputChannel,
    shown: () => void,
  ) {
    this.view = vscode.window.createTreeView(MCP_VIEW_ID, { treeDataProvider: this.provider, showCollapseAll: true });
    if (this.view.visible) {
      shown();
    }
    this.disposables = [
      this.view,
      this.provider,
      this.view.onDidChangeVisibility(({ visible }) => visible && shown()),
    ];
  }

  /** The servers' states as the server last sent them (empty: the welcome text shows). */
  update(servers: McpServerState[]): void {
    this.provider.update(mcpRows(servers));
    this.view.description = mcpSummary(servers) || undefined;
  }

  async restart(row?: McpServerRow): Promise<void> {
    const server = await this.pick(row, 'Restart which MCP server?');
    if (server) {
      await this.act('restart', server.name, () => this.actions.restart(server.name));
    }
  }

  /** Trust and Start, after a modal question showing what the server runs. */
  async trust(row?: McpServerRow): Promise<void> {
    const server = await this.pick(row, 'Trust which MCP server?', (s) => s.state === 'not started' && s.source === 'workspace');
    if (!server?.fingerprint) {
      return;
    }
    const fingerprint = server.fingerprint;
    const { message, detail } = trustQuestion(server);
    const answer = await vscode.window.showWarningMessage(message, { modal: true, detail }, 'Trust and Start');
    if (answer === 'Trust and Start') {
      await this.act('trust', server.name, () => this.actions.trust(server.name, fingerprint));
    }
  }

  async setEnabled(row: McpServerRow | undefined, enabled: boolean): Promise<void> {
    const server = await this.pick(row, enabled ? 'Enable which MCP server?' : 'Disable which MCP server?', (s) =>
      enabled ? s.state === 'disabled' : s.state !== 'disabled',
    );
    if (server) {
      await this.act(enabled ? 'enable' : 'disable', server.name, () => this.actions.setEnabled(server.name, enabled));
    }
  }

  /** The row's server, or (from the palette) one the user picks. */
  private async pick(
    row: McpServerRow | undefined,
    title: string,
    fits: (server: McpServerState) => boolean = () => true,
  ): Promise<McpServerState | undefined> {
    if (row?.kind === 'server') {
      return row.state;
    }
    const candidates = this.provider.rows.filter((r) => fits(r.state));
    if (!candidates.length) {
      void vscode.window.showInformationMessage('Workspace Agent: no MCP server fits.', 'Open MCP Settings').then((answer) => {
        if (answer) {
          void openMcpSettings();
        }
      });
      return undefined;
    }
    const chosen = await vscode.window.showQuickPick(
      candidates.map((r) => ({ label: r.label, description: r.description, row: r })),
      { title },
    );
    return chosen?.row.state;
  }

  private async act(verb: string, name: string, action: () => Promise<McpServersPayload>): Promise<void> {
    const what = `${verb} ${name}`;
    try {
      this.update((await action()).servers);
    } catch (error) {
      const { message, nextStep } = mcpError(error);
      this.log.warn(`MCP: could not ${what}: ${message}`);
      const buttons = nextStep ? [NEXT_STEP_BUTTONS[nextStep]] : ['Show Log'];
      const answer = await vscode.window.showErrorMessage(`Workspace Agent: could not ${what}: ${message}.`, ...buttons);
      if (answer === 'Show Log') {
        this.log.show();
      } else if (answer && nextStep) {
        await this.nextStep(nextStep, name);
      }
    }
  }

  private async nextStep(step: McpNextStep, name: string): Promise<void> {
    const row = this.provider.rows.find((r) => r.name === name);
    switch (step) {
      case 'trust':
        return this.trust(row);
      case 'enable':
        return this.setEnabled(row, true);
      case 'restart':
        return this.restart(row);
      case 'openSettings':
        return openMcpSettings();
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}

/** The user-scope setting that lists the user's own MCP servers. */
export async function openMcpSettings(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.openSettings', 'workspaceAgent.mcp.servers');
}
