/**
 * The Plan view: one row per todo item of the current session, with "2/5" as the view's
 * description and badge. An item that changed the workspace expands to the files it
 * changed (file icon, M/A/D letter, "+12 −3"; a click opens the diff) and the commands it
 * ran (exit status icon); changes made before the plan have a group of their own, and
 * earlier steps (a replaced plan's, an earlier run's) fold into one "Earlier runs" row after
 * the plan. Reverted steps and files say so; a command row opens the command's output; a
 * step row's inline action (and menu) shows its cards in the Conversation view (a click
 * still expands the row).
 * A step a subagent works for (a `task` call) has the subagent's row first, its own plan
 * under it, live (core/subagentPlans.ts).
 * A plan that waits for the user (plan mode's `planReady`) shows as a draft instead:
 * its rows can be reworded, dragged, deleted, commented on (planEditor.ts, through the
 * small `DraftEditor` this module owns), each marked
 * with what the user or the model's revision changed.
 * An empty tree lets the viewsWelcome content (package.json) explain what to do.
 * The view starts collapsed, so an empty Plan leaves the side bar to the Conversation; it
 * opens itself when a plan comes (core/plan.ts planViewOpening says when and why).
 * The rows come from core/plan.ts, core/changeRows.ts and core/planDraft.ts.
 */
import * as vscode from 'vscode';
import type { ChangesTracker } from './core/changes';
import { type StepNode, type TreeNode, changeTree, foldEarlier, markWaiting } from './core/changeRows';
import { type SubagentPlans, withSubagents } from './core/subagentPlans';
import { planBadge, planHeader, planViewOpening, revertedItems } from './core/plan';
import type { AgentState } from './core/state';
import { type DiscardedPlan, livePlan } from './core/livePlan';
import { type DraftNode, type PlanDraft, draftDescription, draftTree } from './core/planDraft';
import { COMMAND_IDS, PLAN_VIEW_ID } from './commands';
import { changeUri } from './versions';

/** `viewItem` values for the menus in package.json. */
const CONTEXT = {
  step: 'step',
  revertibleStep: 'step revertible',
  file: 'changedFile',
  fileGone: 'changedFile deleted',
  fileReverted: 'changedFile reverted',
  command: 'command',
  subagent: 'subagent',
  group: 'earlierRuns',
  draftItem: 'draftItem',
  draftComment: 'draftComment',
} as const;

type PlanNode = TreeNode | DraftNode;

/** Theme colours of the draft's icons: the revision's as git's (added, modified), the user's own in blue. */
const DRAFT_ICON_COLORS: Partial<Record<string, string>> = {
  'diff-added': 'gitDecoration.addedResourceForeground',
  'diff-modified': 'gitDecoration.modifiedResourceForeground',
  edit: 'charts.blue',
  add: 'charts.blue',
};

class PlanProvider implements vscode.TreeDataProvider<PlanNode> {
  private readonly changed = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private nodes: PlanNode[] = [];

  update(nodes: PlanNode[]): void {
    this.nodes = nodes;
    this.changed.fire(undefined);
  }

  /** The first row, if any (the tree is empty without a plan). */
  get first(): PlanNode | undefined {
    return this.nodes[0];
  }

  get draftNodes(): DraftNode[] {
    return this.nodes.filter((node): node is DraftNode => isDraft(node));
  }

  /** The step row of a plan item (the newest occurrence shown), for reveal(). */
  step(todoId: string): StepNode | undefined {
    return this.nodes.find((node): node is StepNode => node.kind === 'step' && node.id === `item:${todoId}`);
  }

  getParent(node: PlanNode): PlanNode | undefined {
    if (isDraft(node)) {
      return node.kind === 'draftComment' ? this.draftNodes.find((item) => item.kind === 'draftItem' && item.itemId === node.itemId) : undefined;
    }
    if (node.kind === 'group' || this.nodes.includes(node)) {
      return undefined;
    }
    for (const top of this.nodes) {
      if (top.kind === 'group' && node.kind === 'step' && top.children.includes(node)) {
        return top;
      }
      const steps = top.kind === 'group' ? top.children : top.kind === 'step' ? [top] : [];
      const inStep = node.kind === 'file' || node.kind === 'command' || node.kind === 'subagent';
      const parent = inStep ? steps.find((step) => (step.children as PlanNode[]).includes(node)) : undefined;
      if (parent) {
        return parent;
      }
      // A subagent's plan item: its subagent's row, under a step or on its own.
      const subagents = [top, ...steps.flatMap((step) => step.children)].filter((n) => n.kind === 'subagent');
      const owner = node.kind === 'subtask' ? subagents.find((sub) => sub.children.includes(node)) : undefined;
      if (owner) {
        return owner;
      }
    }
    return undefined;
  }

  getChildren(element?: PlanNode): PlanNode[] {
    if (!element) {
      return this.nodes;
    }
    return element.kind === 'step' || element.kind === 'group' || element.kind === 'draftItem' || element.kind === 'subagent' ? element.children : [];
  }

  getTreeItem(node: PlanNode): vscode.TreeItem {
    switch (node.kind) {
      case 'draftItem': {
        const { row } = node;
        const item = new vscode.TreeItem(
          row.label,
          node.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
        );
        // What changed shows in the icon's shape and colour, as for a changed file.
        item.iconPath = new vscode.ThemeIcon(row.icon, DRAFT_ICON_COLORS[row.icon] ? new vscode.ThemeColor(DRAFT_ICON_COLORS[row.icon] ?? '') : undefined);
        item.contextValue = CONTEXT.draftItem;
        item.id = node.id;
        item.description = row.description;
        item.tooltip = row.tooltip;
        item.accessibilityInformation = { label: row.accessibilityLabel };
        return item;
      }
      case 'draftComment': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('comment');
        item.contextValue = CONTEXT.draftComment;
        item.id = node.id;
        item.tooltip = `Your comment for the model: ${node.text}`;
        item.accessibilityInformation = { label: `Your comment: ${node.text}` };
        return item;
      }
      case 'draftRemoved': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('diff-removed', new vscode.ThemeColor('gitDecoration.deletedResourceForeground'));
        item.id = node.id;
        item.description = 'removed';
        item.tooltip = `${node.text}\n(removed in this revision)`;
        item.accessibilityInformation = { label: `${node.text}, removed in this revision` };
        return item;
      }
      case 'draftEmpty': {
        const item = new vscode.TreeItem('The plan has no items', vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('info');
        item.id = node.id;
        item.description = 'Add Plan Item… or Discard Plan';
        item.command = { command: COMMAND_IDS.addPlanItem, title: 'Add Plan Item…' };
        return item;
      }
      case 'group': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
        item.iconPath = new vscode.ThemeIcon('history');
        item.contextValue = CONTEXT.group;
        return this.common(item, node);
      }
      case 'step': {
        // A step whose subagent works now opens on it: its plan is what the user watches.
        const working = node.children.some((child) => child.kind === 'subagent' && child.running);
        const folded = working ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
        const item = new vscode.TreeItem(node.label, node.children.length ? folded : vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon(node.icon, node.iconColor ? new vscode.ThemeColor(node.iconColor) : undefined);
        item.contextValue = node.revertible ? CONTEXT.revertibleStep : CONTEXT.step;
        return this.common(item, node);
      }
      case 'file': {
        // A reverted file has no M/A/D letter (the change is not in the workspace any more).
        const item = node.reverted
          ? new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None)
          : new vscode.TreeItem(changeUri(node), vscode.TreeItemCollapsibleState.None);
        item.label = node.label;
        item.iconPath = node.reverted ? new vscode.ThemeIcon('discard') : vscode.ThemeIcon.File; // the icon theme's, from the file's name
        item.contextValue = node.reverted ? CONTEXT.fileReverted : node.change === 'deleted' ? CONTEXT.fileGone : CONTEXT.file;
        item.command = { command: COMMAND_IDS.openChange, title: 'Open Changes', arguments: [node] };
        return this.common(item, node);
      }
      case 'subagent': {
        // Open from its first row while it works (its plan comes after it): a row first
        // drawn without children would not open by itself when they come.
        const state = node.running ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
        const item = new vscode.TreeItem(node.label, node.running || node.children.length ? state : vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon(node.icon);
        item.contextValue = CONTEXT.subagent;
        return this.common(item, node);
      }
      case 'subtask': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon(node.icon, node.iconColor ? new vscode.ThemeColor(node.iconColor) : undefined);
        return this.common(item, node);
      }
      case 'command': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon(node.icon, new vscode.ThemeColor(node.iconColor));
        item.contextValue = CONTEXT.command;
        if (node.toolUseId) {
          item.command = { command: COMMAND_IDS.openCommandOutput, title: 'Open Output', arguments: [node] };
        }
        return this.common(item, node);
      }
    }
  }

  private common(item: vscode.TreeItem, node: TreeNode): vscode.TreeItem {
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.accessibilityInformation = { label: node.accessibilityLabel };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export interface PlanView extends vscode.Disposable {
  /** Shows and selects a plan item's row (a card's step chip in the Conversation view). */
  revealStep(todoId: string): Promise<void>;
  /** The view is on screen. */
  readonly visible: boolean;
  /** The view came on screen or left it. */
  readonly onDidChangeVisibility: vscode.Event<unknown>;
}

function isDraft(node: PlanNode): node is DraftNode {
  return node.kind.startsWith('draft');
}

/** What the view needs of the plan draft's editor (planEditor.ts). */
export interface DraftEditor {
  /** The plan that waits for the user, shown instead of the steps while no run goes. */
  readonly draft: PlanDraft | undefined;
  /** The next task runs in plan mode (the view's description says so). */
  readonly planMode: boolean;
  /** The plan the user discarded: while the session's plan is still it, no live plan shows. */
  readonly discarded: DiscardedPlan | undefined;
  /** The draft, the mode or the discarded plan changed. */
  readonly onDidChange: vscode.Event<void>;
  /** Drag and drop of the draft's items. */
  readonly dragAndDrop: vscode.TreeDragAndDropController<PlanNode>;
  /** The view (its selection, reveal) and its current draft rows. */
  attach(view: vscode.TreeView<PlanNode>, draftNodes: () => DraftNode[]): void;
}

/** Whether the user watches the agent (the Conversation view is on screen), and when that changes. */
export interface Watching {
  readonly visible: boolean;
  readonly onDidChangeVisibility: vscode.Event<unknown>;
}

/** The view; `shown` runs whenever it becomes visible (and now, if it is already). */
export function createPlanView(
  state: AgentState,
  changes: ChangesTracker,
  subagents: SubagentPlans,
  shown: () => void,
  editor: DraftEditor,
  watching: Watching,
): PlanView {
  const provider = new PlanProvider();
  const view = vscode.window.createTreeView<PlanNode>(PLAN_VIEW_ID, {
    treeDataProvider: provider,
    showCollapseAll: false,
    dragAndDropController: editor.dragAndDrop,
    canSelectMany: false,
  });
  editor.attach(view, () => provider.draftNodes);
  let opening = { pending: false, hadRows: false };
  /** Opens the collapsed view when its first rows come (see planViewOpening). */
  const openIfWanted = (): void => {
    const first = provider.first;
    const next = planViewOpening(first ? 1 : 0, opening, { planVisible: view.visible, watching: watching.visible });
    opening = { pending: next.pending, hadRows: next.hadRows };
    if (next.open && first) {
      // reveal() opens the view (expands its pane) without selecting or focusing anything.
      // The tree is laid out only once the pane is open: the second reveal, then, scrolls the
      // rows into the pane's real height (after the first alone the pane stayed blank).
      const reveal = (): Thenable<void> => view.reveal(provider.first ?? first, { select: false, focus: false });
      void Promise.resolve(reveal()).then(reveal).catch(() => undefined);
    }
  };
  const render = (): void => {
    draw();
    openIfWanted();
  };
  const draw = (): void => {
    const draft = editor.draft;
    if (draft && !state.running) {
      provider.update(draftTree(draft));
      view.description = draftDescription(draft);
      view.badge = { value: draft.items.length, tooltip: 'A plan waits for you: run it, keep planning or discard it' };
      return;
    }
    const waiting = new Set(state.waiting.flatMap((w) => (w.todoId ? [w.todoId] : [])));
    const items = livePlan(state.items, state.sessionId, editor.discarded);
    const steps = foldEarlier(markWaiting(changeTree(items, state.sessionId, changes.changes, !state.running), waiting));
    provider.update(withSubagents(steps, subagents.of(state.sessionId), !state.running));
    const header = planHeader(items, revertedItems(changes.changes));
    view.description = [header, editor.planMode ? 'Plan mode' : ''].filter(Boolean).join(' · ') || undefined;
    view.badge = planBadge(state.waiting.length);
  };
  render();
  if (view.visible) {
    shown();
  }
  const visibility = view.onDidChangeVisibility(({ visible }) => visible && shown());
  const watched = watching.onDidChangeVisibility(() => opening.pending && openIfWanted());
  const disposable = vscode.Disposable.from(
    view,
    provider,
    visibility,
    watched,
    state.onChange(render),
    changes.onChange(render),
    subagents.onChange(render),
    editor.onDidChange(render),
  );
  return {
    get visible() {
      return view.visible;
    },
    onDidChangeVisibility: view.onDidChangeVisibility,
    dispose: () => {
      disposable.dispose();
    },
    revealStep: async (todoId) => {
      const node = provider.step(todoId);
      if (node) {
        await view.reveal(node, { select: true, focus: true });
      } else {
        await vscode.commands.executeCommand(`${PLAN_VIEW_ID}.focus`);
      }
    },
  };
}
