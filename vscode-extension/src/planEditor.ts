/**
 * Plan first, the editor's side: the Plan / Act switch for the next task, and the plan of
 * a run that stopped with `planReady` as a draft the user shapes in the Plan view (reword,
 * drag and drop or Alt+Up / Alt+Down, delete, add, comment), then Run This Plan, Keep
 * Planning or Discard (the view's title, its rows, the Conversation view's plan card).
 * The plan card edits the same draft: its messages come through editFromCard.
 *
 * Only glue: each edit is a pure function of core/planDraft.ts, the answer goes to the
 * server as workspaceAgent/approvePlan through runs.ts (its run shows like any other),
 * and a refusal is shown with the button that does what its message asks. The commands
 * (commandTable.ts) call the public methods; the Plan view (planView.ts) draws the draft.
 */
import * as vscode from 'vscode';
import { COMMAND_IDS, PLAN_DRAFT_CONTEXT, PLAN_VIEW_ID } from './commands';
import {
  type DraftNode,
  type PlanDraft,
  type PlanCard,
  type PlanFix,
  type PlanCardEdit,
  add,
  applyCardEdit,
  approveErrorFixes,
  approveParams,
  comment,
  draftFromResult,
  planCard,
  dropBefore,
  moveBy,
  remove,
  restoreDraft,
  reword,
  textProblem,
} from './core/planDraft';
import { type DiscardedPlan, discardedPlan, restoreDiscarded } from './core/livePlan';
import type { AgentState } from './core/state';
import type { ApprovePlanParams, PlanAction, RunMode, RunResult } from './protocol';

/** Where the draft is kept for the workspace (a window reload brings it back). */
const DRAFT_KEY = 'workspaceAgent.planDraft';
/** The plan the user discarded, kept so the Plan view does not show it as the live one (core/livePlan.ts). */
const DISCARDED_KEY = 'workspaceAgent.discardedPlan';

/** The drag's data: the dragged items' ids (a tree's own MIME type: lowercase view id). */
const DRAG_MIME = 'application/vnd.code.tree.workspaceagent.plan';

/** A node of the Plan view: the draft's, or any other (changes rows), which this ignores. */
export type PlanRow = { kind: string };

/** What the editor needs of the runs (runs.ts): a plan's run, its end, and Cancel Run. */
export interface PlanRuns {
  approvePlan(params: ApprovePlanParams, refused: (text: string) => void): Promise<void>;
  cancelRun(): void;
  /** A run answered: a `planReady` plan becomes the draft. */
  readonly onDidFinish: vscode.Event<RunResult>;
}

/** Plan or Act (runMode.ts): the view says Plan mode; a refusal's fix switches to it. */
export interface ModeSwitch {
  readonly mode: RunMode;
  setMode(mode: RunMode): Promise<void>;
  readonly onDidChange: vscode.Event<void>;
}

export class PlanEditor implements vscode.Disposable {
  private _draft: PlanDraft | undefined;
  /** The draft sent with approvePlan, back on screen if the server refuses it. */
  private sent: PlanDraft | undefined;
  private view: vscode.TreeView<PlanRow> | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  /** The Plan view's current draft nodes (planView.ts builds them). */
  private nodes: (() => DraftNode[]) | undefined;

  /** Drag and drop of draft items in the Plan view. */
  readonly dragAndDrop: vscode.TreeDragAndDropController<PlanRow> = {
    dragMimeTypes: [DRAG_MIME],
    dropMimeTypes: [DRAG_MIME],
    handleDrag: (nodes, data) => {
      const ids = nodes.flatMap((node) => (isDraftItem(node) ? [node.itemId] : []));
      if (ids.length) {
        data.set(DRAG_MIME, new vscode.DataTransferItem(ids));
      }
    },
    handleDrop: async (target, data) => {
      const ids: unknown = await data.get(DRAG_MIME)?.value;
      if (!this._draft || !Array.isArray(ids)) {
        return;
      }
      // Our ids, or (should the tree's own item win) the dragged rows themselves.
      const strings = ids.flatMap((id: unknown) =>
        typeof id === 'string' ? [id] : typeof id === 'object' && id !== null && isDraftItem(id as PlanRow) ? [(id as { itemId: string }).itemId] : [],
      );
      // On an item: before it; on its comment: after the item; anywhere else: at the end.
      const targetId = target && isDraftNode(target) && target.kind === 'draftItem' ? target.itemId : undefined;
      const afterId = target && isDraftNode(target) && target.kind === 'draftComment' ? target.itemId : undefined;
      const next = afterId ? this.nextItemId(afterId) : targetId;
      this.edit(dropBefore(this._draft, strings, next), strings[0]);
    },
  };

  /** The draft kept from before a window reload, until its session is current again. */
  private saved: PlanDraft | undefined;

  constructor(
    private readonly state: AgentState,
    private readonly runs: PlanRuns,
    private readonly modes: ModeSwitch,
    private readonly memento: vscode.Memento,
    /** The Conversation view is on screen: its plan card is where the user edits, keyboard and all. */
    private readonly cardInSight: () => boolean = () => false,
  ) {
    this.saved = restoreDraft(memento.get<unknown>(DRAFT_KEY));
    this.disposables.push(
      this.changed,
      runs.onDidFinish((result) => this.finished(result)),
      modes.onDidChange(() => this.changed.fire()),
      state.onChange(() => this.sessionMaybeChanged()),
    );
  }

  private sessionMaybeChanged(): void {
    const { saved, state } = this;
    if (saved && state.sessionId !== undefined) {
      this.saved = undefined;
      if (saved.sessionId === state.sessionId && !state.running && !this._draft) {
        this.setDraft(saved); // the session came back after a reload: so does its draft
        return;
      }
    }
    // A run began (approved or not), or another session became current: no draft then.
    if (this._draft && (state.running || state.sessionId !== this._draft.sessionId)) {
      this.setDraft(undefined);
    }
  }

  /** The next task runs in plan mode (the view's description says so). */
  get planMode(): boolean {
    return this.modes.mode === 'plan';
  }

  get draft(): PlanDraft | undefined {
    return this._draft;
  }

  /** The plan the user last discarded (the session keeps its items; the Plan view does not show them). */
  get discarded(): DiscardedPlan | undefined {
    return restoreDiscarded(this.memento.get<unknown>(DISCARDED_KEY));
  }

  /** The Plan view's tree view, for the selection (keybindings pass no row) and reveal, and its draft rows. */
  attach(view: vscode.TreeView<PlanRow>, draftNodes: () => DraftNode[]): void {
    this.view = view;
    this.nodes = draftNodes;
  }

  /** What the Conversation view's plan card shows now (undefined: no card). */
  card(): PlanCard | undefined {
    return this._draft ? planCard(this._draft) : undefined;
  }

  /**
   * An edit on the Conversation view's plan card: the same draft changes (the Plan view
   * redraws from it), without moving the keyboard focus away from the card. Returns the
   * item the card keeps the focus on.
   */
  editFromCard(edit: PlanCardEdit): string | undefined {
    if (!this._draft) {
      void vscode.window.showInformationMessage('Workspace Agent: no plan draft to edit. Switch to Plan mode and run a task to get one.');
      return undefined;
    }
    const { draft, focus } = applyCardEdit(this._draft, edit);
    if (draft !== this._draft) {
      this.setDraft(draft);
    }
    return focus;
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  // -- The answer ---------------------------------------------------------------------------

  /** Run This Plan (`run`) / Keep Planning (`revise`): the plan as the user left it. */
  async approve(action: PlanAction): Promise<void> {
    const draft = this._draft;
    if (!draft) {
      void vscode.window.showInformationMessage(
        'Workspace Agent: no plan waits for you. Switch to Plan mode and run a task to get one.',
        'Switch to Plan Mode',
      ).then((answer) => answer && this.modes.setMode('plan'));
      return;
    }
    this.sent = draft;
    await this.runs.approvePlan(approveParams(draft, action), (text) => this.refused(text, action));
  }

  private finished(result: RunResult): void {
    const previous = this.sent ?? this._draft;
    this.sent = undefined;
    if (result.sessionId !== this.state.sessionId) {
      return;
    }
    this.setDraft(draftFromResult(result, previous));
    // Away from the Conversation view, the Plan view takes the keyboard to show the draft. In
    // sight, the card has it: taking the keyboard then lost what the user had begun typing
    // into the card's first reword (issue 50, item 1); the Plan view opens without focus
    // (planView.ts, planViewOpening).
    if (this._draft && !this.cardInSight()) {
      void vscode.commands.executeCommand(`${PLAN_VIEW_ID}.focus`);
    } else if (this._draft) {
      void this.openOnDraft();
    }
  }

  /**
   * Opens the Plan view on the draft's first row, the keyboard left where it is. The view's
   * own opening (planView.ts) aimed at the run's rows, which the draft had just replaced.
   * Twice, as there: the tree is laid out only once its pane is open.
   */
  private async openOnDraft(): Promise<void> {
    const first = this.nodes?.()[0];
    if (!first || !this.view) {
      return;
    }
    try {
      await this.view.reveal(first, { select: false, focus: false });
      await this.view.reveal(first, { select: false, focus: false });
    } catch {
      // The draft changed meanwhile (its rows went): nothing to open on.
    }
  }

  /** The server (or the run in progress) refused: the draft comes back, with the way out. */
  private refused(text: string, action: PlanAction): void {
    if (this.sent && this.sent.sessionId === this.state.sessionId) {
      this.setDraft(this.sent);
    }
    this.sent = undefined;
    const fixes = approveErrorFixes(text);
    const what = action === 'run' ? 'The plan was not run' : 'The plan was not sent back';
    void vscode.window.showErrorMessage(`Workspace Agent: ${what}: ${text}`, ...fixes.map((fix) => fix.label)).then((answer) => {
      const fix = fixes.find((candidate) => candidate.label === answer);
      if (fix) {
        void this.applyFix(fix);
      }
    });
  }

  private async applyFix(fix: PlanFix): Promise<void> {
    switch (fix.action) {
      case 'addItem':
        return this.addItem();
      case 'discard':
        return this.discard();
      case 'cancelRun':
        this.runs.cancelRun();
        return;
      case 'planTask':
        await this.modes.setMode('plan');
        await vscode.commands.executeCommand(COMMAND_IDS.runTask);
        return;
      case 'showPlan':
        await vscode.commands.executeCommand(`${PLAN_VIEW_ID}.focus`);
        return;
    }
  }

  /** Discard Plan: the draft goes, nothing was changed. */
  discard(): void {
    if (!this._draft) {
      return;
    }
    // The session still has the items plan mode wrote: remembered, so they do not show as the live plan.
    void this.memento.update(DISCARDED_KEY, discardedPlan(this._draft.sessionId, this.state.items));
    this.setDraft(undefined);
    if (this.cardInSight()) {
      return; // the card going says it: no toast over the Conversation view (issue 50, item 7)
    }
    void vscode.window.showInformationMessage(
      'Workspace Agent: plan discarded. Nothing was changed; the next task goes on from here.',
    );
  }

  // -- Edits: a menu passes the row, a keybinding none (the view's selection then) ----------

  async rewordItem(node?: PlanRow): Promise<void> {
    await this.withItem(node, async (draft, id) => {
      const item = draft.items.find((candidate) => candidate.id === id);
      const text = await vscode.window.showInputBox({
        title: `Workspace Agent: Reword Plan Item #${id}`,
        prompt: 'The item in your words (the model is told you edited it).',
        value: item?.text,
        ignoreFocusOut: true,
        validateInput: textProblem,
      });
      if (text !== undefined && this._draft) {
        this.edit(reword(this._draft, id, text), id);
      }
    });
  }

  async commentItem(node?: PlanRow): Promise<void> {
    await this.withItem(node, async (draft, id) => {
      const item = draft.items.find((candidate) => candidate.id === id);
      const text = await vscode.window.showInputBox({
        title: `Workspace Agent: Comment on Plan Item #${id}`,
        prompt: `For the model, about "${item?.text ?? id}" (sent with Keep Planning or Run This Plan; empty removes it).`,
        value: item?.comment,
        ignoreFocusOut: true,
      });
      if (text !== undefined && this._draft) {
        this.edit(comment(this._draft, id, text), id);
      }
    });
  }

  /** A new item after the row's, else at the end. */
  async addItem(node?: PlanRow): Promise<void> {
    if (!this._draft) {
      return;
    }
    const afterId = this.itemOf(node);
    const text = await vscode.window.showInputBox({
      title: 'Workspace Agent: Add Plan Item',
      prompt: afterId ? `A new item after #${afterId}, in your words.` : 'A new item at the end of the plan, in your words.',
      ignoreFocusOut: true,
      validateInput: textProblem,
    });
    if (text !== undefined && this._draft) {
      const added = add(this._draft, text, afterId);
      this.edit(added.draft, added.id);
    }
  }

  async deleteItem(node?: PlanRow): Promise<void> {
    await this.withItem(node, (draft, id) => this.edit(remove(draft, id), this.neighbour(id)));
  }

  /** Alt+Up (`by` -1) / Alt+Down (1). */
  async moveItem(node: PlanRow | undefined, by: -1 | 1): Promise<void> {
    await this.withItem(node, (draft, id) => this.edit(moveBy(draft, id, by), id));
  }

  /** Runs `change` on the row's item (a menu passes the row, a keybinding the selection). */
  private async withItem(node: PlanRow | undefined, change: (draft: PlanDraft, id: string) => unknown): Promise<void> {
    const id = this.itemOf(node);
    if (!this._draft || !id) {
      void vscode.window.showInformationMessage(
        this._draft ? 'Workspace Agent: select a plan item in the Plan view first.' : 'Workspace Agent: no plan draft to edit.',
      );
      return;
    }
    await change(this._draft, id);
  }

  /** The item of a row (its comment row counts as the item), else of the view's selection. */
  private itemOf(node: PlanRow | undefined): string | undefined {
    const chosen = node ?? this.view?.selection[0];
    return chosen && isDraftNode(chosen) && (chosen.kind === 'draftItem' || chosen.kind === 'draftComment') ? chosen.itemId : undefined;
  }

  private nextItemId(id: string): string | undefined {
    const items = this._draft?.items ?? [];
    return items[items.findIndex((item) => item.id === id) + 1]?.id;
  }

  /** The row to select once `id` is deleted: the next one, else the one before. */
  private neighbour(id: string): string | undefined {
    const items = this._draft?.items ?? [];
    const at = items.findIndex((item) => item.id === id);
    return (items[at + 1] ?? items[at - 1])?.id;
  }

  private edit(draft: PlanDraft, select?: string): void {
    if (draft === this._draft) {
      return;
    }
    this.setDraft(draft);
    if (select && this.view) {
      const id = select;
      // The tree draws the new rows first; then the moved (or next) row keeps the keyboard focus.
      setTimeout(() => void this.revealItem(id), 0);
    }
  }

  private async revealItem(id: string): Promise<void> {
    const node = this.nodes?.().find((candidate) => candidate.kind === 'draftItem' && candidate.itemId === id);
    if (node && this.view?.visible) {
      await this.view.reveal(node, { select: true, focus: true });
    }
  }

  private setDraft(draft: PlanDraft | undefined): void {
    this._draft = draft;
    void this.memento.update(DRAFT_KEY, draft);
    void vscode.commands.executeCommand('setContext', PLAN_DRAFT_CONTEXT, draft !== undefined);
    this.changed.fire();
  }
}

function isDraftNode(node: PlanRow): node is DraftNode {
  return node.kind.startsWith('draft');
}

function isDraftItem(node: PlanRow): node is Extract<DraftNode, { kind: 'draftItem' }> {
  return node.kind === 'draftItem';
}
