/**
 * The current session's conversation as the view shows it: the history pages read so far
 * (newest first from the server, "Load earlier" adds older ones in front) followed by the
 * live events since. A page added in front rebuilds the cards from every entry (a tool
 * call and its result may sit on two pages), which the view then draws afresh; a live
 * event only updates the cards it touches.
 *
 * The messages it produces are what the host posts to the webview (conversationView.ts),
 * so the protocol between the two is typed once, here. Pure, for unit tests.
 */
import { APPROVAL_DECISIONS, RUN_MODES, type ApprovalParams, type ApprovalStatus, type HistoryResult, type PromptImage, type RunMode } from '../protocol';
import { type Card, type CardUpdate, ConversationBuilder, type ConversationEvent, type ImageRef, type StepLookup, isImageRef } from './conversation';
import { type PlanCard, type PlanCardEdit, isPlanCardEdit } from './planDraft';
import { CardFolder, type ShownCard, foldCards } from './foldCards';
import type { CompletionItem, CompletionKind } from './completion';
import { FIX_ACTIONS, type Fix } from './errorFixes';
import type { SandboxSetting } from './sandboxCard';
import type { RunningRow } from './running';
import type { MeterView } from './contextMeter';

/** Host → webview. */
export type ToWebview =
  | {
      type: 'reset';
      /** Runs of like cards folded (foldCards.ts). */
      cards: ShownCard[];
      earlier: boolean;
      session: boolean;
      /** How long the history page took to arrive and to become cards (the view records its drawing too). */
      timing?: { requestMs: number; buildMs: number };
      /** The session shown: the page forgets the images of another one. */
      sessionId?: string;
    }
  | { type: 'update'; upserts: ShownCard[]; removed: string[] }
  | { type: 'run'; running: boolean; queued: QueuedRow[]; waiting: number; history: string[]; mode: RunMode; /** workspaceAgent.maxTurns: what Continue gets. */ maxTurns?: number }
  /** The plan that waits for the user (plan mode's planReady), or none. */
  | { type: 'plan'; plan: PlanCard | null; /** After the card's own edit: the item to keep the focus on. */ focus?: string }
  | { type: 'context'; attached: string | null }
  /** How full the context window is (core/contextMeter.ts), or not known yet. */
  | { type: 'meter'; meter: MeterView | null }
  | { type: 'reveal'; cardId: string }
  | { type: 'prefill'; text: string }
  /** The answer to a `complete` request: every candidate (the page narrows them as the user types). */
  | { type: 'completions'; requestId: number; items: CompletionItem[]; problem?: string }
  /** The answer to an `image` request (imageKey of its ref): a data: URL, or why there is none. */
  | { type: 'image'; key: string; url?: string; problem?: string }
  /** The session's background commands: the Running section (running.ts's rows, oldest first). */
  | { type: 'running'; rows: RunningRow[] };

/** A queued task as the view lists it; `held`: kept from before a window reload, it waits for Run. */
export interface QueuedRow {
  id: number;
  text: string;
  held: boolean;
}

/** Webview → host. */
export type FromWebview =
  | { type: 'ready' }
  | { type: 'send'; text: string; images?: PromptImage[] }
  | { type: 'cancel' }
  /** A fix button on a card (Retry, Set API Key, Continue…): the host finds the card's fix. */
  | { type: 'fix'; cardId: string; action: Fix['action'] }
  | { type: 'unqueue'; id: number }
  | { type: 'runQueued'; id: number }
  | { type: 'loadEarlier' }
  | { type: 'openOutput'; toolUseId: string }
  /** A blocked command's fix: "Allow host…" (the host) or "Allow this folder…" (the caches). */
  | { type: 'allowSandbox'; toolUseId: string; setting: SandboxSetting; value?: string }
  /** A revert row's Undo: undo that revert (workspaceAgent.undoRevert). */
  | { type: 'undoRevert'; undoId: string }
  | { type: 'openDiff'; toolUseId: string }
  | { type: 'openFile'; path: string }
  | { type: 'showStep'; todoId: string }
  | { type: 'openLink'; href: string }
  /** A code block's Copy button: the host puts the text on the clipboard. */
  | { type: 'copy'; text: string }
  | { type: 'answer'; toolUseId: string; decision: ApprovalParams['options'][number]; reason?: string }
  | { type: 'showProposed'; toolUseId: string }
  | { type: 'setMode'; mode: RunMode }
  /** The plan card's buttons: Run This Plan, Keep Planning, Discard, Edit in the Plan view. */
  | { type: 'plan'; action: PlanCardAction }
  /** The input's `@` or `/` list opened: the host answers with `completions`. */
  | { type: 'complete'; kind: CompletionKind; requestId: number }
  /** An edit on the plan card (reword, move, delete, add, comment), applied by the host. */
  | { type: 'planEdit'; edit: PlanCardEdit }
  /** A prompt card's image came into sight: the host answers with `image`. */
  | { type: 'image'; ref: ImageRef }
  /** A prompt card's image, opened in an editor tab (VS Code's image preview). */
  | { type: 'openImage'; ref: ImageRef }
  /** The Running section: open a port (its URL), show a command's output, stop it, stop them all. */
  | { type: 'background'; action: BackgroundAction; id?: string; url?: string };

export const BACKGROUND_ACTIONS = ['open', 'output', 'stop', 'stopAll'] as const;
export type BackgroundAction = (typeof BACKGROUND_ACTIONS)[number];

/** The card a Retry kept through Set API Key is on. */
export const AFTER_KEY_WORDS = 'Once the API key is set, retry the task:';

export const PLAN_CARD_ACTIONS = ['run', 'revise', 'discard', 'edit'] as const;
export type PlanCardAction = (typeof PLAN_CARD_ACTIONS)[number];

/** Images pasted or dropped into the input: at most MAX_IMAGES, base64 of an image type. */
export const MAX_IMAGES = 20;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function isImages(value: unknown): value is PromptImage[] {
  return (
    Array.isArray(value) &&
    value.length <= MAX_IMAGES &&
    value.every(
      (item) =>
        typeof item === 'object' &&
        item !== null &&
        typeof (item as PromptImage).data === 'string' &&
        IMAGE_TYPES.includes((item as PromptImage).mediaType),
    )
  );
}

/** Checks a message from the webview (it is another process's word). */
export function isFromWebview(value: unknown): value is FromWebview {
  if (typeof value !== 'object' || value === null || !('type' in value)) {
    return false;
  }
  const message = value as Record<string, unknown>;
  const str = (key: string): boolean => typeof message[key] === 'string';
  switch (message.type) {
    case 'ready':
    case 'cancel':
    case 'loadEarlier':
      return true;
    case 'send':
      return str('text') && (message.images === undefined || isImages(message.images));
    case 'unqueue':
    case 'runQueued':
      return typeof message.id === 'number';
    case 'fix':
      return str('cardId') && (FIX_ACTIONS as readonly string[]).includes(message.action as string);
    case 'openOutput':
    case 'openDiff':
    case 'showProposed':
      return str('toolUseId');
    case 'openFile':
      return str('path');
    case 'allowSandbox':
      return (
        str('toolUseId') &&
        (message.setting === 'sandbox.allowedDomains' || message.setting === 'sandbox.writablePaths'
          ? str('value')
          : message.setting === 'sandbox.realCaches')
      );
    case 'showStep':
      return str('todoId');
    case 'undoRevert':
      return str('undoId');
    case 'openLink':
      return str('href');
    case 'copy':
      return str('text');
    case 'complete':
      return (message.kind === 'mention' || message.kind === 'command') && Number.isSafeInteger(message.requestId);
    case 'setMode':
      return (RUN_MODES as readonly string[]).includes(message.mode as string);
    case 'plan':
      return (PLAN_CARD_ACTIONS as readonly string[]).includes(message.action as string);
    case 'planEdit':
      return isPlanCardEdit(message.edit);
    case 'image':
    case 'openImage':
      return isImageRef(message.ref);
    case 'background':
      switch (message.action) {
        case 'open':
          return str('id') && str('url') && /^http:\/\/localhost:\d+\/?$/.test(message.url as string);
        case 'output':
        case 'stop':
          return str('id');
        case 'stopAll':
          return true;
        default:
          return false;
      }
    case 'answer':
      return (
        str('toolUseId') &&
        (APPROVAL_DECISIONS as readonly string[]).includes(message.decision as string) &&
        (message.reason === undefined || str('reason'))
      );
    default:
      return false;
  }
}

export class ConversationStore {
  private _sessionId: string | undefined;
  private entries: ConversationEvent[] = [];
  /** The runStart of the run the oldest page begins inside (the server's `runStart`): its prompt card goes first. */
  private pageRunStart: ConversationEvent | undefined;
  private _before: string | null = null;
  private builder: ConversationBuilder;
  private ended = false;
  /** Questions this window asks, kept across a rebuild. */
  private readonly asks = new Map<string, ApprovalParams>();
  /**
   * A Retry kept through Set API Key: the key restarts the server, and a session whose only
   * run failed for want of it was never saved, so the view comes back empty. Until the next
   * run starts, an empty view of that session (or of none) offers the Retry still.
   */
  private carried: { sessionId: string | undefined; fixes: Fix[]; prompt: string } | undefined;
  /** What the page shows: the cards with runs of like ones folded. */
  private readonly folder = new CardFolder();
  /** The images of the prompts this window sent, by their key, and each live runStart's key. */
  private readonly sent = new Map<string, PromptImage[]>();
  private readonly sentKeys = new WeakMap<ConversationEvent, string>();
  private sentCount = 0;

  constructor(private readonly lookup: StepLookup) {
    this.builder = this.newBuilder();
  }

  get sessionId(): string | undefined {
    return this._sessionId;
  }

  /** The cursor of the next older page, null when everything is loaded. */
  get before(): string | null {
    return this._before;
  }

  get cards(): readonly Card[] {
    return this.builder.cards;
  }

  /**
   * Another session (or none): its newest page of history, or nothing yet. `ended`: no
   * run of it goes on in this window, so a run the history leaves open was cut short (its
   * server stopped) and is shown so.
   */
  reset(sessionId: string | undefined, page?: HistoryResult, ended = false): ToWebview {
    if (this.carried && sessionId !== undefined && sessionId !== this.carried.sessionId) {
      this.carried = undefined; // another session: its own cards say what to do
    }
    this._sessionId = sessionId;
    this.ended = ended;
    this.entries = page && page.sessionId === sessionId ? [...page.entries] : [];
    this._before = page && page.sessionId === sessionId ? page.before : null;
    this.pageRunStart = page && page.sessionId === sessionId ? page.runStart : undefined;
    this.asks.clear();
    this.sent.clear();
    return this.rebuild();
  }

  /** An older page ("Load earlier"): goes in front. Ignored for another session. */
  prepend(page: HistoryResult): ToWebview | undefined {
    if (page.sessionId !== this._sessionId) {
      return undefined;
    }
    this.entries = [...page.entries, ...this.entries];
    this._before = page.before;
    this.pageRunStart = page.runStart;
    return this.rebuild();
  }

  /**
   * A live event. `sent`: the images this window sent with the task a live runStart starts
   * (its card shows them until the history gives them back by the entry's seq).
   */
  accept(event: ConversationEvent, sent?: PromptImage[]): ToWebview {
    if (event.kind === 'runStart') {
      this.carried = undefined;
    }
    if (event.kind === 'runStart' && sent?.length && event.images?.length === sent.length) {
      const key = `l${++this.sentCount}`;
      this.sent.set(key, sent);
      this.sentKeys.set(event, key);
    }
    this.entries.push(event);
    return this.shownUpdate(this.builder.accept(event));
  }

  ask(params: ApprovalParams): ToWebview {
    this.asks.set(params.toolUseId, params);
    return this.shownUpdate(this.builder.ask(params));
  }

  answered(toolUseId: string, status: Exclude<ApprovalStatus, 'waiting'>, reason?: string): ToWebview {
    this.asks.delete(toolUseId);
    return this.shownUpdate(this.builder.answered(toolUseId, status, reason));
  }

  /** The cards as the page shows them (runs of like ones folded). */
  shownCards(): ShownCard[] {
    return foldCards(this.builder.cards);
  }

  private shownUpdate(update: CardUpdate): ToWebview {
    return { type: 'update', ...this.folder.update(this.builder.cards, update) };
  }

  firstCardOfStep(todoId: string): string | undefined {
    return this.builder.firstCardOfStep(todoId);
  }

  /** A run request that failed without an answer: its card (not in the history, so a reload drops it). */
  failure(text: string, fixes: Fix[], prompt?: string): ToWebview {
    return this.shownUpdate(this.builder.failure(text, fixes, prompt));
  }

  /** Set API Key was clicked on this card: its Retry outlives the server's restart (see `carried`). */
  carryRetry(cardId: string): void {
    const retry = this.fixOf(cardId, 'retry');
    if (retry?.prompt) {
      this.carried = { sessionId: this._sessionId, fixes: [retry.fix], prompt: retry.prompt };
    }
  }

  /** The fix a card offers for `action`, and the prompt of its run. */
  fixOf(cardId: string, action: Fix['action']): { fix: Fix; prompt?: string } | undefined {
    const card = this.builder.card(cardId);
    if (card?.kind !== 'notice' && card?.kind !== 'end') {
      return undefined;
    }
    const fix = card.fixes?.find((candidate) => candidate.action === action);
    return fix ? { fix, ...(card.prompt !== undefined ? { prompt: card.prompt } : {}) } : undefined;
  }

  /** An image this window sent (a `local` ref), undefined for one the history has. */
  sentImage(ref: ImageRef): PromptImage | undefined {
    return ref.local !== undefined ? this.sent.get(ref.local)?.[ref.index] : undefined;
  }

  private newBuilder(): ConversationBuilder {
    return new ConversationBuilder(this.lookup, undefined, (event) => this.sentKeys.get(event));
  }

  private rebuild(): ToWebview {
    this.builder = this.newBuilder();
    // A page that begins inside a run shows that run's prompt first (its retries use it too).
    for (const entry of this.pageRunStart ? [this.pageRunStart, ...this.entries] : this.entries) {
      this.builder.accept(entry);
    }
    if (this.ended) {
      this.builder.interrupted();
    }
    for (const params of this.asks.values()) {
      const card = this.builder.card(`approval:${params.toolUseId}`);
      if (!card || (card.kind === 'approval' && card.status === 'waiting')) {
        this.builder.ask(params);
      }
    }
    const fixed = this.builder.cards.some((card) => (card.kind === 'notice' || card.kind === 'end') && card.fixes?.length);
    if (this.carried && !fixed) {
      this.builder.failure(AFTER_KEY_WORDS, this.carried.fixes, this.carried.prompt, 'info');
    }
    return {
      type: 'reset',
      cards: [...this.folder.all(this.builder.cards)],
      earlier: this._before !== null,
      session: this._sessionId !== undefined,
      ...(this._sessionId !== undefined ? { sessionId: this._sessionId } : {}),
    };
  }
}
