/**
 * The Plan tree view: one row per todo item of the current session, with "2/5" as the
 * view's description and badge. An empty tree lets the viewsWelcome content (package.json)
 * explain what to do, with a Run Task button.
 */
import * as vscode from 'vscode';
import { type PlanRow, planBadge, planProgress, planRows } from './core/plan';
import type { AgentState } from './core/state';

export const PLAN_VIEW_ID = 'workspaceAgent.plan';

class PlanProvider implements vscode.TreeDataProvider<PlanRow> {
  private readonly changed = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private rows: PlanRow[] = [];

  update(rows: PlanRow[]): void {
    this.rows = rows;
    this.changed.fire(undefined);
  }

  getChildren(element?: PlanRow): PlanRow[] {
    return element ? [] : this.rows;
  }

  getTreeItem(row: PlanRow): vscode.TreeItem {
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.id = row.id;
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.iconPath = new vscode.ThemeIcon(row.icon, row.iconColor ? new vscode.ThemeColor(row.iconColor) : undefined);
    item.accessibilityInformation = { label: row.accessibilityLabel };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The view; `shown` runs whenever it becomes visible (and now, if it is already). */
export function createPlanView(state: AgentState, shown: () => void): vscode.Disposable {
  const provider = new PlanProvider();
  const view = vscode.window.createTreeView(PLAN_VIEW_ID, { treeDataProvider: provider, showCollapseAll: false });
  const render = (): void => {
    provider.update(planRows(state.items));
    const { fraction } = planProgress(state.items);
    view.description = fraction || undefined;
    view.badge = planBadge(state.items);
  };
  render();
  if (view.visible) {
    shown();
  }
  const visibility = view.onDidChangeVisibility(({ visible }) => visible && shown());
  return vscode.Disposable.from(view, provider, visibility, state.onChange(render));
}
