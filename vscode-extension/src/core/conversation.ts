/**
 * The Conversation view's cards, built from workspaceAgent/event notifications (live) and
 * workspaceAgent/history entries (after a reload, a resume, a server restart).
 *
 * One builder takes both, in order, so a conversation reads the same live and read back:
 * a prompt with its attached context, the model's text as sanitized HTML (markdown.ts),
 * one compact card per tool call (a command with its exit status and output, a read as one
 * line with its range, an edit with `+n −m`), each with the plan step it ran under; quiet
 * rows for notices and errors; a row for each revert between runs ("Reverted to before
 * step #2: 3 files restored", with Undo while it stands); each hook's run as a folded row
 * under its call's card ("PostToolUse: prettier — 120 ms"), or a row of its own when it ran
 * for no call (a prompt, the stop, a plan item's check); one live row for a model call's retries ("Overloaded (529):
 * retrying 3/4 in 3.6 s"); approval cards; a line at each run's end (none for a run that
 * failed before it used a token: its error says it). The last run's error card, or its
 * end row at a limit, carries the fixes (errorFixes.ts: Retry, Set API Key, Continue…);
 * the next run takes them off. The todo
 * nag (`reminder`) is never shown. Live text comes in deltas and joins the open text card;
 * a history `text` entry is one whole message.
 *
 * Cards are plain JSON: the webview draws them (everything but `html` as text). Pure, for
 * unit tests; conversationView.ts posts the updates.
 */
import type {
  AgentEvent,
  ApprovalParams,
  ApprovalStatus,
  ChangedFile,
  HistoryEntry,
  HookEvent,
  HistoryResult,
  ImageRecord,
  NetworkHost,
  RevertAction,
  SandboxBlock,
  StopCause,
  StopReason,
  TodoItem,
  Usage,
} from '../protocol';
import { EVENT_KINDS, WITHDRAWN_REASON } from '../protocol';
import { renderMarkdown } from './markdown';
import { attachedLine } from './attached';
import { costAmount } from './status';
import { type Fix, cardFixes } from './errorFixes';
import { revertRowDetail, revertRowText } from './revertText';
import { subagentWords } from './subagentPlans';

/** An event without its session: what history entries and live events have in common. */
export type ConversationEvent = HistoryEntry | DistributiveOmit<AgentEvent, 'sessionId'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The plan step a card belongs to, as its chip shows it. */
export interface StepRef {
  todoId: string;
  /** "Plan item #2 · Format the code" (the text when the plan still has the id): the server's name for the item. */
  label: string;
}

export type ToolStatus = 'running' | 'ok' | 'failed';

/** One run of a hook, as its row shows it: folded, its output one click away. */
export interface HookRow {
  event: HookEvent['event'];
  hook: string;
  outcome: HookEvent['outcome'];
  /** "PostToolUse: prettier — 120 ms", and what came of it when more than "ok". */
  text: string;
  /** Where it is configured, and its command (the row's tooltip). */
  detail: string;
  output: string;
  /** It refused something (the call, the prompt, the stop, the item's completion) or failed. */
  warning: boolean;
}

/** A hook event as its row. */
export function hookRow(event: Omit<HookEvent, 'sessionId' | 'kind'>): HookRow {
  const said = event.message && event.message !== 'ok' ? ` · ${event.message}` : '';
  const where = event.source === 'workspace' ? (event.sandboxed ? ', in the sandbox' : ', the workspace\'s') : '';
  return {
    event: event.event,
    hook: event.hook,
    outcome: event.outcome,
    text: `${event.event}: ${event.hook} — ${event.durationMs} ms${said}`,
    detail: `${event.command}\n${event.origin}${where}`,
    output: event.output,
    warning: event.outcome !== 'ok',
  };
}

/** The hooks that ran for a call (PreToolUse, PostToolUse), under its card. */
interface Hooked {
  hooks?: HookRow[];
}

interface CardBase {
  id: string;
  /** Drawn before this card (not at the end), when it first appears. */
  before?: string;
  /** A subagent's call: the `task` call it belongs to (shown in that card's group, foldCards.ts). */
  parent?: string;
}

/** What a `task` card says of its subagent (the `subagent` events). */
export interface SubagentSummary {
  agent: string;
  description: string;
  /** "2/3 · working", "done · 1,234 tokens · ≈ $0.0123" (core/subagentPlans.ts). */
  words: string;
  running: boolean;
}

/**
 * One image a prompt carried, as its card names it: `seq` (the runStart entry's, read back
 * from the history: workspaceAgent/historyImage gives it) or `local` (sent from this window
 * and not read back yet: the store keeps what was sent), and its index among the prompt's.
 */
export interface ImageRef {
  index: number;
  seq?: number;
  local?: string;
  /** An image a tool's result carried (an MCP tool's): workspaceAgent/toolImage by this id. */
  toolUseId?: string;
  /** "PNG 800x600" */
  label: string;
}

/** The key of an image of the shown session, the same through every rebuild of its cards. */
export function imageKey(ref: Pick<ImageRef, 'index' | 'seq' | 'local' | 'toolUseId'>): string {
  if (ref.toolUseId !== undefined) return `t${ref.toolUseId}:${ref.index}`;
  return ref.seq !== undefined ? `s${ref.seq}:${ref.index}` : `${ref.local ?? '?'}:${ref.index}`;
}

/** Checks an ImageRef the webview sent back: an index, a label and exactly one of seq, local, toolUseId. */
export function isImageRef(value: unknown): value is ImageRef {
  if (typeof value !== 'object' || value === null) return false;
  const ref = value as Record<string, unknown>;
  const count = (n: unknown): boolean => Number.isSafeInteger(n) && (n as number) >= 0;
  const named = [ref.seq !== undefined && count(ref.seq), typeof ref.local === 'string', typeof ref.toolUseId === 'string' && ref.toolUseId !== ''];
  const given = [ref.seq, ref.local, ref.toolUseId].filter((v) => v !== undefined).length;
  return count(ref.index) && typeof ref.label === 'string' && given === 1 && named.filter(Boolean).length === 1;
}

const IMAGE_NAMES: Record<string, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP' };

/** "PNG 800x600", for a thumbnail's words. */
function imageLabel(image: ImageRecord): string {
  return `${IMAGE_NAMES[image.mediaType] ?? image.mediaType} ${image.width}x${image.height}`;
}

/** The refs of the images a tool's result carried, fetched by its toolUseId (the live event's and the history's alike). */
export function toolImageRefs(toolUseId: string, images: readonly ImageRecord[] | undefined): ImageRef[] {
  return (images ?? []).map((image, index) => ({ index, toolUseId, label: imageLabel(image) }));
}

/** The refs of a runStart's images; `local`: the key the store gave a prompt this window sent. */
export function imageRefs(event: ConversationEvent, local?: string): ImageRef[] {
  if (event.kind !== 'runStart' || !Array.isArray(event.images)) return [];
  const seq = 'seq' in event && typeof event.seq === 'number' ? event.seq : undefined;
  if (seq === undefined && local === undefined) return [];
  return event.images.map((image, index) => ({
    index,
    ...(seq !== undefined ? { seq } : { local }),
    label: imageLabel(image),
  }));
}

export type Card =
  | (CardBase & { kind: 'prompt'; text: string; attached?: string; images?: ImageRef[] })
  | (CardBase & { kind: 'text'; html: string; streaming: boolean })
  | (CardBase & {
      kind: 'thought';
      text: string;
      /** Still thinking (live): shown as "Thinking…". */
      streaming: boolean;
      /** How long it thought, once over (from the history, or timed here). */
      seconds?: number;
    })
  | (CardBase & {
      kind: 'command';
      toolUseId: string;
      command: string;
      status: ToolStatus;
      /** null: did not finish by itself (killed, timed out, cancelled). */
      exitCode?: number | null;
      output?: string;
      /** The output was cut (head and tail); the full one opens in an editor. */
      truncated: boolean;
      /** In the sandbox: the hosts it reached for, and whether each was allowed. */
      network?: NetworkHost[];
      /** Where it ran (absent: it never ran). */
      sandboxed?: boolean;
      /** What the sandbox blocked it from (a failed sandboxed command). */
      blocked?: SandboxBlock[];
      /** The background command it started (`run_in_background`): the Running section's row. */
      background?: string;
      step?: StepRef;
    } & Asked & Hooked)
  | (CardBase & {
      kind: 'read';
      toolUseId: string;
      path: string;
      range?: string;
      status: ToolStatus;
      error?: string;
      /** The image read_file gave the model (a PNG, JPEG, GIF or WebP file), as a thumbnail. */
      images?: ImageRef[];
      step?: StepRef;
    } & Hooked)
  | (CardBase & {
      kind: 'edit';
      toolUseId: string;
      verb: 'write' | 'edit';
      path: string;
      status: ToolStatus;
      files: ChangedFile[];
      error?: string;
      step?: StepRef;
    } & Asked & Hooked)
  | (CardBase & {
      kind: 'tool';
      toolUseId: string;
      name: string;
      summary: string;
      status: ToolStatus;
      /** What it returned (an MCP tool's result), or why it failed. */
      output?: string;
      /** The output was cut (head and tail); the full one opens in an editor. */
      truncated?: boolean;
      /** The images it returned (an MCP tool's), shown as thumbnails. */
      images?: ImageRef[];
      /** A `task` call: its subagent, whose calls are the cards whose `parent` it is. */
      subagent?: SubagentSummary;
      step?: StepRef;
    } & Asked & Hooked)
  | (CardBase & {
      kind: 'web';
      toolUseId: string;
      /** web_search: the query; web_fetch: the URL. */
      verb: 'search' | 'fetch';
      summary: string;
      status: ToolStatus;
      /** The pages it found (a search) or read (a fetch), each opened by the host. */
      links: WebLink[];
      error?: string;
      step?: StepRef;
    } & Asked & Hooked)
  | (CardBase & {
      kind: 'notice';
      tone: 'info' | 'warning' | 'error';
      text: string;
      /** The way out, as buttons (the last run's error). */
      fixes?: Fix[];
      /** The prompt of the run it ended, for Retry. */
      prompt?: string;
    })
  /** A model call's retries, folded into one row: live while it waits, then how it went. */
  | (CardBase & { kind: 'retry'; text: string; live: boolean })
  /** A hook's run for no call (a prompt, the stop, a plan item's check): a row of its own. */
  | (CardBase & { kind: 'hook'; row: HookRow; step?: StepRef })
  | (CardBase & {
      kind: 'approval';
      toolUseId: string;
      status: ApprovalStatus;
      message: string;
      reason?: string;
      /** Present while the question waits for this window's answer. */
      ask?: ApprovalAsk;
      /** Never answered: the run ended first (its server stopped). */
      unanswered?: true;
      /** A review question (approvals.write "review"): answered as Accepted / Rejected. */
      review?: true;
      step?: StepRef;
    })
  | (CardBase & { kind: 'end'; stopReason: StopReason; text: string; fixes?: Fix[]; prompt?: string })
  /**
   * A revert between runs (or its undo): what was taken back, with Undo while it stands
   * (`undoId`; not on an undo's own row); `undone` once an undo put it back.
   */
  | (CardBase & {
      kind: 'revert';
      action: RevertAction;
      text: string;
      /** Every file, one a line (the row's tooltip). */
      detail: string;
      undoId?: string;
      undone?: true;
      warning: boolean;
      step?: StepRef;
    });

/**
 * A call a question is about: `waiting` while the question waits for the user (it does not
 * run yet: "waiting for you"), `denied` (the reason, '' without one) when the user said no
 * and it never ran ("not run (denied: …)").
 */
interface Asked {
  waiting?: true;
  denied?: string;
  /**
   * The call waits for something else than the user before it runs, in words: another
   * task on the same folder (the `preparing` event that names it by `toolUseId`).
   */
  waitingFor?: string;
}

/** A page a web card links to. */
export interface WebLink {
  title: string;
  url: string;
}

/**
 * The pages in a web tool's result: a search's numbered results ("1. Title (age)" then the
 * URL on its own indented line), a fetch's page (the URL its first line starts with).
 * Only http(s) addresses: anything else is no link.
 */
export function webLinks(verb: 'search' | 'fetch', output: string): WebLink[] {
  const lines = output.split('\n');
  const links: WebLink[] = [];
  if (verb === 'fetch') {
    const url = /^(https?:\/\/\S+) \(HTTP \d+/.exec(lines[0] ?? '')?.[1];
    return url ? [{ title: url, url }] : [];
  }
  for (let i = 0; i + 1 < lines.length; i++) {
    const title = /^\d+\. (.+)$/.exec(lines[i] ?? '')?.[1];
    const url = /^ {3}(https?:\/\/\S+)$/.exec(lines[i + 1] ?? '')?.[1];
    if (title && url) {
      links.push({ title, url });
      i++;
    }
  }
  return links;
}

/** What an approval card offers while it waits (from workspaceAgent/approval). */
export interface ApprovalAsk {
  options: ApprovalParams['options'];
  review: boolean;
  /** Why Deny is the default (a destructive command). */
  destructive?: string;
  askedBecause?: string;
  command?: string;
  path?: string;
  /** A network question: the host a sandboxed command reaches for. */
  host?: string;
  /** A proposed change can be opened in the diff editor. */
  hasDiff: boolean;
}

/** What changed: cards to add or replace (in order), and cards gone. */
export interface CardUpdate {
  upserts: Card[];
  removed: string[];
}

export type StepLookup = (todoId: string) => string | undefined;

/** A call's card while it waits for another task's changing call on the same folder. */
export const FOLDER_WAIT_WORDS = 'waiting for another task on this folder';

/** Why a cancelled run stopped (runEnd's `cause`), as its end row says it. */
const CAUSE_WORDS: Record<StopCause, string> = {
  user: 'Stopped: you cancelled the run',
  reload: 'Stopped: the window was reloaded (or closed)',
  restart: 'Stopped: the agent\'s server was restarted',
  serverStopped: 'Stopped: the agent\'s server stopped',
};

/** The first words of a run's end row: how it stopped, and for a cancelled run why. */
export function endWords(stopReason: StopReason, cause?: StopCause, turnLimit?: number): string {
  if (stopReason === 'max_turns' && turnLimit) {
    return `${END_WORDS.max_turns} (${turnLimit} turn${turnLimit === 1 ? '' : 's'})`;
  }
  if (stopReason === 'cancelled' && cause) {
    return CAUSE_WORDS[cause] ?? END_WORDS.cancelled;
  }
  return END_WORDS[stopReason] ?? stopReason;
}

const END_WORDS: Record<StopReason, string> = {
  end_turn: 'Done',
  stop_sequence: 'Done (at a stop sequence)',
  cancelled: 'Cancelled',
  max_turns: 'Stopped at the turn limit',
  budget: 'Stopped at the token budget',
  refusal: 'The model declined the request',
  error: 'Stopped by an error',
  planReady: 'The plan is ready',
};

/** A stepRef for the todoId, with the plan's words for it when there are any. */
export function stepRef(todoId: string | null | undefined, lookup: StepLookup): StepRef | undefined {
  if (!todoId) {
    return undefined;
  }
  const text = lookup(todoId);
  return { todoId, label: text ? `Plan item #${todoId} · ${text}` : `Plan item #${todoId}` };
}

/** "lines 10–39" from read_file's summary ("src/app.py offset=10 limit=30"). */
export function readRange(summary: string): { path: string; range?: string } {
  const offset = /\boffset=(\d+)/.exec(summary);
  const limit = /\blimit=(\d+)/.exec(summary);
  const path = summary.replace(/\s+(offset|limit)=\S+/g, '').trim();
  const start = offset ? Number(offset[1]) : undefined;
  const count = limit ? Number(limit[1]) : undefined;
  if (start !== undefined && count !== undefined) {
    return { path, range: count > 1 ? `lines ${start}–${start + count - 1}` : `line ${start}` };
  }
  if (start !== undefined) {
    return { path, range: `from line ${start}` };
  }
  if (count !== undefined) {
    return { path, range: `lines 1–${count}` };
  }
  return { path };
}

/** The exit status: the event's field, else the `[exit status N]` line older servers append. */
export function exitCodeOf(event: { exitCode?: number | null; output: string; ok: boolean }): number | null | undefined {
  if (event.exitCode !== undefined) {
    return event.exitCode;
  }
  const match = /\[exit status (-?\d+)\]\s*$/.exec(event.output);
  return match ? Number(match[1]) : undefined;
}

function usageTotal(usage: Usage | undefined): number {
  return usage ? usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) + usage.outputTokens : 0;
}

/** "1,234 tokens"; nothing for a run that used none. */
function usageWords(usage: Usage | undefined): string {
  const total = usageTotal(usage);
  return total ? `${total.toLocaleString('en-US')} tokens` : '';
}

/** "Overloaded (529)" from the server's reason ("overloaded, 529"). */
export function retryReason(reason: string): string {
  const words = reason.trim().replace(/^(.*), (\d{3})$/, '$1 ($2)') || 'The model call failed';
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function secondsWords(value: number): string {
  return `${Math.round(value * 10) / 10} s`;
}

type RetryEvent = Extract<ConversationEvent, { kind: 'retry' }>;

/** The words of a model call's retry row: waiting, answered, or stopped while it waited. */
export function retryWords(event: RetryEvent, outcome: 'waiting' | 'answered' | 'stopped'): string {
  const retries = Math.max(1, event.maxAttempts - 1);
  const reason = retryReason(event.reason);
  switch (outcome) {
    case 'waiting':
      return `${reason}: retrying ${event.attempt}/${retries} in ${secondsWords(event.delaySeconds)}`;
    case 'answered':
      return `${reason}: answered after ${event.attempt === 1 ? '1 retry' : `${event.attempt} retries`}`;
    case 'stopped':
      return `${reason}: stopped while retrying (${event.attempt}/${retries})`;
  }
}

/** Said where a run stops in the history without its end: its server went away. */
export const INTERRUPTED_WORDS =
  'This run did not finish: the agent\'s server stopped while it ran (a window reload or close, or a restart).';
const UNFINISHED = 'the run ended before this finished';

/**
 * Folds events into cards. `accept` returns what to redraw; `cards` is the whole list.
 * Ids: tool cards by their toolUseId (a result finds its call), the rest by position.
 */
export class ConversationBuilder {
  private readonly list: Card[] = [];
  private readonly byId = new Map<string, Card>();
  /** The latest answer to each question, by the call it is about. */
  private readonly answers = new Map<string, { status: ApprovalStatus | 'withdrawn'; reason?: string }>();
  private openText: { id: string; text: string } | undefined;
  /** The thinking streaming in now, and when its first piece came (ms). */
  private openThought: { id: string; text: string; since: number } | undefined;
  private counter = 0;
  /** A run has entries and no runEnd yet. */
  private runOpen = false;
  /** The retry row of the model call being retried now, and its last retry. */
  private openRetry: { id: string; event: RetryEvent } | undefined;
  /** The open run's prompt (for Retry) and its last error card. */
  private runPrompt: string | undefined;
  private lastError: string | undefined;
  /** Cards that carry fixes: the next run takes them off. */
  private fixed: string[] = [];

  constructor(
    private readonly lookup: StepLookup = () => undefined,
    /** The clock live thinking is timed by (tests pass their own). */
    private readonly now: () => number = () => Date.now(),
    /** The key of the images of a live prompt this window sent (the store keeps them). */
    private readonly localImages: (event: ConversationEvent) => string | undefined = () => undefined,
  ) {}

  get cards(): readonly Card[] {
    return this.list;
  }

  card(id: string): Card | undefined {
    return this.byId.get(id);
  }

  accept(event: ConversationEvent): CardUpdate {
    const update: CardUpdate = { upserts: [], removed: [] };
    if (event.kind === 'preparing') {
      if (event.toolUseId !== undefined) {
        this.waitsFor(update, event.toolUseId, event.ready ? undefined : FOLDER_WAIT_WORDS);
      }
      return update; // the run's progress notification shows it; an answer streams on
    }
    if (event.kind === 'retry') {
      // The answer streamed before the failure is asked for again: drop it.
      const dropped = this.dropStreamed();
      if (dropped) {
        update.removed.push(dropped);
      }
    } else if (event.kind !== 'text') {
      this.closeText(update);
    }
    if (event.kind !== 'thinking') {
      this.closeThought(update);
    }
    if (event.kind !== 'retry') {
      this.closeRetry(update, event.kind);
    }
    if (event.kind === 'runStart') {
      this.interrupted(update); // the run before it never ended
      this.unfix(update);
      this.runPrompt = event.prompt;
      this.lastError = undefined;
    }
    if (event.kind !== 'revert') {
      this.runOpen = event.kind !== 'runEnd'; // a revert comes between runs
    }
    switch (event.kind) {
      case 'runStart': {
        const images = imageRefs(event, this.localImages(event));
        this.add(update, {
          kind: 'prompt',
          id: this.nextId('p'),
          // What the user did (Run This Plan: "Ran the plan (4 items, 2 edited)"), not the model's instruction.
          text: event.said ?? event.prompt,
          ...attachedField(event),
          ...(images.length ? { images } : {}),
        });
        break;
      }
      case 'text':
        this.text(update, event.text, !('seq' in event));
        break;
      case 'thinking':
        this.thinking(update, event.text, 'seq' in event ? event.seconds : undefined);
        break;
      case 'toolCall':
        this.toolCall(update, event);
        break;
      case 'toolResult':
        this.toolResult(update, event);
        break;
      case 'subagent':
        this.subagent(update, event);
        break;
      case 'approval': {
        const id = `approval:${event.toolUseId}`;
        const old = this.byId.get(id);
        const step = stepRef(event.todoId, this.lookup);
        // Withdrawn by the run's end (a cancel, a reload): nobody said no, so no "Denied".
        const withdrawn = event.status === 'denied' && event.reason === WITHDRAWN_REASON;
        const card: Card = {
          kind: 'approval',
          id,
          toolUseId: event.toolUseId,
          status: event.status,
          message: event.message || (old?.kind === 'approval' ? old.message : ''),
          ...(withdrawn ? { unanswered: true as const } : event.reason ? { reason: event.reason } : {}),
          // An answer ends the question; a repeated "waiting" keeps what it offers.
          ...(event.status === 'waiting' && old?.kind === 'approval' && old.ask ? { ask: old.ask } : {}),
          ...(old?.kind === 'approval' && (old.review || old.ask?.review) ? { review: true as const } : {}),
          ...(step ? { step } : {}),
        };
        this.put(update, card);
        this.question(update, event.toolUseId, withdrawn ? 'withdrawn' : event.status, event.reason);
        break;
      }
      case 'retry': {
        // One row per model call: each retry of it updates the row.
        const id = this.openRetry?.id ?? this.nextId('r');
        this.openRetry = { id, event };
        this.put(update, { kind: 'retry', id, text: retryWords(event, 'waiting'), live: true });
        break;
      }
      case 'notice':
        this.add(update, { kind: 'notice', id: this.nextId('n'), tone: 'info', text: event.message });
        break;
      case 'error': {
        const id = this.nextId('n');
        this.lastError = id;
        this.add(update, { kind: 'notice', id, tone: 'error', text: event.message });
        break;
      }
      case 'runEnd':
        this.runEnd(update, event);
        break;
      case 'hook':
        this.hook(update, event);
        break;
      case 'revert':
        this.revert(update, event);
        break;
      case 'reminder':
      default:
        break; // the todo nag is for the model, not the user
    }
    return update;
  }

  /**
   * The run's end row, with the fixes at a limit; a run that failed gets them on its error
   * card instead, and no end row when it used no tokens (nothing to say beyond the error).
   */
  private runEnd(update: CardUpdate, event: Extract<ConversationEvent, { kind: 'runEnd' }>): void {
    const errorCard = this.lastError ? this.byId.get(this.lastError) : undefined;
    const fixes = cardFixes(event.stopReason, errorCard?.kind === 'notice' ? errorCard.text : undefined);
    const prompt = this.runPrompt !== undefined ? { prompt: this.runPrompt } : {};
    if (event.stopReason === 'error' && errorCard?.kind === 'notice') {
      if (fixes.length) {
        this.put(update, { ...errorCard, fixes, ...prompt });
        this.fixed.push(errorCard.id);
      }
      if (!usageTotal(event.usage)) {
        return;
      }
    }
    const cost = usageTotal(event.usage) ? costAmount(event.cost) : undefined;
    const words = [endWords(event.stopReason, event.cause, event.turnLimit), usageWords(event.usage), cost ? `${cost} (estimate)` : '']
      .filter(Boolean)
      .join(' · ');
    const id = this.nextId('e');
    const onEnd = event.stopReason !== 'error' && fixes.length > 0;
    this.add(update, { kind: 'end', id, stopReason: event.stopReason, text: words, ...(onEnd ? { fixes, ...prompt } : {}) });
    if (onEnd) {
      this.fixed.push(id);
    }
  }

  /**
   * A revert's row (its id from its undoId, so its undo finds it); an undo's own row, and
   * the revert it undid marked undone (its Undo goes).
   */
  private revert(update: CardUpdate, event: Extract<ConversationEvent, { kind: 'revert' }>): void {
    const step = event.action === 'undo' ? undefined : stepRef(event.todoId, this.lookup);
    const row = {
      kind: 'revert' as const,
      action: event.action,
      text: revertRowText(event),
      detail: revertRowDetail(event),
      warning: event.skipped.length > 0,
      ...(step ? { step } : {}),
    };
    if (event.action !== 'undo') {
      this.put(update, { ...row, id: `revert:${event.undoId}`, ...(event.undoId ? { undoId: event.undoId } : {}) });
      return;
    }
    const reverted = this.byId.get(`revert:${event.undoId}`);
    if (reverted?.kind === 'revert') {
      this.put(update, { ...reverted, undone: true });
    }
    this.add(update, { ...row, id: this.nextId('rv') });
  }

  /** A run request that failed without an answer (the server went away): its card, with fixes. */
  failure(text: string, fixes: Fix[], prompt?: string, tone: 'info' | 'error' = 'error'): CardUpdate {
    const update: CardUpdate = { upserts: [], removed: [] };
    this.closeText(update);
    this.closeRetry(update, 'error');
    const id = this.nextId('n');
    this.add(update, { kind: 'notice', id, tone, text, ...(fixes.length ? { fixes } : {}), ...(prompt !== undefined ? { prompt } : {}) });
    if (fixes.length) {
      this.fixed.push(id);
    }
    return update;
  }

  /** The retry row's outcome once something else comes: an error says it all (the row goes). */
  private closeRetry(update: CardUpdate, next: ConversationEvent['kind']): void {
    const open = this.openRetry;
    if (!open) {
      return;
    }
    this.openRetry = undefined;
    if (next === 'error') {
      const index = this.list.findIndex((card) => card.id === open.id);
      if (index >= 0) {
        this.list.splice(index, 1);
      }
      this.byId.delete(open.id);
      update.upserts = update.upserts.filter((card) => card.id !== open.id);
      update.removed.push(open.id);
      return;
    }
    const outcome = next === 'runEnd' || next === 'runStart' ? 'stopped' : 'answered';
    this.put(update, { kind: 'retry', id: open.id, text: retryWords(open.event, outcome), live: false });
  }

  /** The fixes of an earlier run are stale once another starts. */
  private unfix(update: CardUpdate): void {
    for (const id of this.fixed) {
      const card = this.byId.get(id);
      if (card && (card.kind === 'notice' || card.kind === 'end') && card.fixes) {
        const rest = { ...card };
        delete rest.fixes;
        delete rest.prompt;
        this.put(update, rest);
      }
    }
    this.fixed = [];
  }

  /**
   * The open run will not go on (no run of this session goes on in this window, or a new
   * one started): what still runs or waits is shown as cut short, with a line saying why.
   */
  interrupted(update: CardUpdate = { upserts: [], removed: [] }): CardUpdate {
    if (!this.runOpen) {
      return update;
    }
    this.runOpen = false;
    this.closeText(update);
    this.closeRetry(update, 'runEnd');
    for (const card of [...this.list]) {
      if (card.kind === 'approval' && card.status === 'waiting' && !card.ask) {
        this.put(update, { ...card, unanswered: true });
      } else if (card.kind === 'command' && card.status === 'running') {
        this.put(update, { ...card, status: 'failed', exitCode: null });
      } else if ((card.kind === 'read' || card.kind === 'edit' || card.kind === 'web') && card.status === 'running') {
        this.put(update, { ...card, status: 'failed', error: UNFINISHED });
      } else if (card.kind === 'tool' && card.status === 'running') {
        const subagent = card.subagent ? { subagent: { ...card.subagent, running: false, words: 'stopped' } } : {};
        this.put(update, { ...card, status: 'failed', output: UNFINISHED, ...subagent });
      }
    }
    this.add(update, { kind: 'notice', id: this.nextId('n'), tone: 'warning', text: INTERRUPTED_WORDS });
    return update;
  }

  /** A question this window must answer: its card, with what it offers. */
  ask(params: ApprovalParams): CardUpdate {
    const update: CardUpdate = { upserts: [], removed: [] };
    this.closeText(update);
    const step = stepRef(params.todoId, this.lookup);
    this.put(update, {
      kind: 'approval',
      id: `approval:${params.toolUseId}`,
      toolUseId: params.toolUseId,
      status: 'waiting',
      message: params.message,
      ask: {
        options: params.options,
        review: params.review === true,
        ...(params.destructive ? { destructive: params.destructive } : {}),
        ...(params.askedBecause ? { askedBecause: params.askedBecause } : {}),
        ...(params.command ? { command: params.command } : {}),
        ...(params.path ? { path: params.path } : {}),
        ...(params.host ? { host: params.host } : {}),
        hasDiff: params.diff !== undefined,
      },
      ...(step ? { step } : {}),
    });
    this.question(update, params.toolUseId, 'waiting');
    return update;
  }

  /** The question was answered here (or withdrawn: cancelled). */
  answered(toolUseId: string, status: Exclude<ApprovalStatus, 'waiting'>, reason?: string): CardUpdate {
    const update: CardUpdate = { upserts: [], removed: [] };
    const old = this.byId.get(`approval:${toolUseId}`);
    if (old?.kind === 'approval') {
      const rest: Card = { ...old, status, ...(reason ? { reason } : {}), ...(old.ask?.review ? { review: true as const } : {}) };
      delete rest.ask;
      this.put(update, rest);
    }
    this.question(update, toolUseId, status, reason);
    return update;
  }

  /** The call a question is about waits for the user, or was denied (until its result). */
  private question(update: CardUpdate, toolUseId: string, status: ApprovalStatus | 'withdrawn', reason?: string): void {
    this.answers.set(toolUseId, { status, ...(reason ? { reason } : {}) });
    const card = this.byId.get(toolUseId);
    if (!card || !('status' in card) || card.kind === 'approval' || card.kind === 'read' || card.status !== 'running') {
      return;
    }
    const next = { ...card } as Card & Asked;
    if (status === 'waiting') {
      next.waiting = true;
    } else {
      delete next.waiting;
    }
    this.put(update, next);
  }

  /** A running call waits (for another task on its folder), or goes on. */
  private waitsFor(update: CardUpdate, toolUseId: string, words: string | undefined): void {
    const card = this.byId.get(toolUseId);
    if (!card || !('status' in card) || card.kind === 'approval' || card.kind === 'read' || card.status !== 'running') {
      return;
    }
    const next = { ...card } as Card & Asked;
    if (words) {
      next.waitingFor = words;
    } else {
      delete next.waitingFor;
    }
    this.put(update, next);
  }

  /** The first card of a plan step (the Plan view's link), newest occurrence first. */
  firstCardOfStep(todoId: string): string | undefined {
    let found: string | undefined;
    for (let i = this.list.length - 1; i >= 0; i--) {
      const card = this.list[i];
      if (card && 'step' in card && card.step?.todoId === todoId) {
        found = card.id;
      } else if (found && card?.kind === 'prompt') {
        break; // the step's cards of the newest run that has them
      }
    }
    return found;
  }

  /** Live pieces join one card until something else comes; a history entry is whole. */
  private thinking(update: CardUpdate, piece: string, recordedSeconds: number | undefined): void {
    if (recordedSeconds !== undefined) {
      this.add(update, { kind: 'thought', id: this.nextId('th'), text: piece, streaming: false, seconds: recordedSeconds });
      return;
    }
    if (!this.openThought) {
      this.openThought = { id: this.nextId('th'), text: '', since: this.now() };
    }
    this.openThought.text += piece;
    this.put(update, { kind: 'thought', id: this.openThought.id, text: this.openThought.text, streaming: true });
  }

  private closeThought(update: CardUpdate): void {
    const open = this.openThought;
    this.openThought = undefined;
    if (open) {
      const seconds = Math.round((this.now() - open.since) / 100) / 10;
      this.put(update, { kind: 'thought', id: open.id, text: open.text, streaming: false, seconds });
    }
  }

  private text(update: CardUpdate, piece: string, streaming: boolean): void {
    if (!this.openText) {
      if (!piece.trim()) {
        return;
      }
      this.openText = { id: this.nextId('t'), text: '' };
    }
    this.openText.text += streaming || !this.openText.text ? piece : `\n\n${piece}`;
    this.put(update, { kind: 'text', id: this.openText.id, html: renderMarkdown(this.openText.text), streaming });
    if (!streaming) {
      this.openText = undefined; // a history entry is a whole message
    }
  }

  private closeText(update: CardUpdate): void {
    const open = this.openText;
    this.openText = undefined;
    const card = open ? this.byId.get(open.id) : undefined;
    if (card?.kind === 'text' && card.streaming) {
      this.put(update, { ...card, streaming: false });
    }
  }

  private dropStreamed(): string | undefined {
    const last = this.list[this.list.length - 1];
    if (last?.kind === 'text' && last.streaming && this.openText?.id === last.id) {
      this.list.pop();
      this.byId.delete(last.id);
      this.openText = undefined;
      return last.id;
    }
    return undefined;
  }

  /** A subagent's plan or end: its `task` card says how it goes (a card from it alone, its call on an earlier page). */
  private subagent(update: CardUpdate, event: Extract<ConversationEvent, { kind: 'subagent' }>): void {
    if (!this.byId.has(event.toolUseId)) {
      this.toolCall(update, { kind: 'toolCall', toolUseId: event.toolUseId, name: 'task', summary: `${event.agent}: ${event.description}`, todoId: event.todoId });
    }
    const card = this.byId.get(event.toolUseId);
    if (card?.kind !== 'tool') {
      return;
    }
    const summary: SubagentSummary = {
      agent: event.agent,
      description: event.description,
      words: subagentWords(event),
      running: event.stopReason === undefined,
    };
    this.put(update, { ...card, subagent: summary });
  }

  private toolCall(update: CardUpdate, event: Extract<ConversationEvent, { kind: 'toolCall' }>): void {
    const step = stepRef(event.todoId, this.lookup);
    const base = {
      id: event.toolUseId,
      toolUseId: event.toolUseId,
      status: 'running' as const,
      ...(step ? { step } : {}),
      ...(event.parentToolUseId ? { parent: event.parentToolUseId } : {}),
    };
    const old = this.byId.get(event.toolUseId);
    let card: Card;
    if (event.name === 'bash') {
      card = { ...base, kind: 'command', command: event.summary, truncated: false };
    } else if (event.name === 'read_file') {
      card = { ...base, kind: 'read', ...readRange(event.summary) };
    } else if (event.name === 'web_search' || event.name === 'web_fetch') {
      card = { ...base, kind: 'web', verb: event.name === 'web_search' ? 'search' : 'fetch', summary: event.summary, links: [] };
    } else if (event.name === 'write_file' || event.name === 'edit_file') {
      card = { ...base, kind: 'edit', verb: event.name === 'write_file' ? 'write' : 'edit', path: event.summary, files: [] };
    } else {
      const plan = event.name === 'todo';
      const name = plan ? 'Plan' : event.name === 'task' ? 'Subagent' : event.name;
      card = { ...base, kind: 'tool', name, summary: plan ? 'updated' : event.summary };
    }
    // A result seen first (a history page that starts between the two) keeps its outcome.
    this.put(update, old && 'status' in old && old.status !== 'running' ? { ...card, ...old, ...base, status: old.status } as Card : card);
  }

  private toolResult(update: CardUpdate, event: Extract<ConversationEvent, { kind: 'toolResult' }>): void {
    let card = this.byId.get(event.toolUseId);
    if (!card) {
      // Its call is on an earlier history page: a card from the result alone.
      this.toolCall(update, { kind: 'toolCall', toolUseId: event.toolUseId, name: event.name, summary: '', todoId: event.todoId });
      card = this.byId.get(event.toolUseId);
    }
    const status: ToolStatus = event.ok ? 'ok' : 'failed';
    const output = event.output.replace(/\s+$/, '');
    const answer = this.answers.get(event.toolUseId);
    // Denied and never run: no output, no exit status, the user's reason.
    const notRun = answer?.status === 'denied' && !event.ok && (card?.kind !== 'command' || event.sandboxed === undefined);
    if (card && 'status' in card && card.kind !== 'approval' && card.kind !== 'read' && (notRun || (card as Asked).waiting || (card as Asked).waitingFor)) {
      const rest = { ...card } as Card & Asked;
      delete rest.waiting;
      delete rest.waitingFor;
      if (notRun) {
        this.put(update, { ...rest, status: 'failed', denied: answer?.reason ?? '' } as Card);
        return;
      }
      card = rest;
    }
    switch (card?.kind) {
      case 'command': {
        const exitCode = exitCodeOf(event);
        const shown = output.replace(/\n?\[exit status -?\d+\]$/, '');
        this.put(update, {
          ...card,
          status,
          ...(exitCode !== undefined ? { exitCode } : {}),
          output: shown,
          truncated: (event.outputChars ?? 0) > event.output.length,
          ...(event.network?.length ? { network: event.network } : {}),
          ...(event.sandboxed !== undefined ? { sandboxed: event.sandboxed } : {}),
          ...(event.blocked?.length ? { blocked: event.blocked } : {}),
          ...(event.background ? { background: event.background } : {}),
        });
        break;
      }
      case 'read':
        this.put(update, {
          ...card,
          status,
          ...(event.ok ? {} : { error: output }),
          ...(event.images?.length ? { images: toolImageRefs(event.toolUseId, event.images) } : {}),
        });
        break;
      case 'edit':
        this.put(update, { ...card, status, files: event.changes ?? [], ...(event.ok ? {} : { error: output }) });
        break;
      case 'web':
        this.put(update, { ...card, status, ...(event.ok ? { links: webLinks(card.verb, output) } : { error: output }) });
        break;
      case 'tool':
        // The plan tool's result is the plan (the Plan view shows it); any other tool's
        // (an MCP tool's) is shown like a command's output.
        this.put(update, {
          ...card,
          status,
          ...(output && (!event.ok || card.name !== 'Plan') ? { output } : {}),
          ...((event.outputChars ?? 0) > event.output.length ? { truncated: true } : {}),
          ...(event.images?.length && card.name !== 'Plan' ? { images: toolImageRefs(event.toolUseId, event.images) } : {}),
        });
        break;
      default:
        break;
    }
  }

  /** Under its call's card when it ran for one (a card from an earlier page: a row of its own). */
  private hook(update: CardUpdate, event: Extract<ConversationEvent, { kind: 'hook' }>): void {
    const row = hookRow(event);
    const card = event.toolUseId ? this.byId.get(event.toolUseId) : undefined;
    if (card && (card.kind === 'command' || card.kind === 'read' || card.kind === 'edit' || card.kind === 'tool' || card.kind === 'web')) {
      this.put(update, { ...card, hooks: [...(card.hooks ?? []), row] });
      return;
    }
    const step = stepRef(event.todoId, this.lookup);
    this.add(update, { kind: 'hook', id: this.nextId('h'), row, ...(step ? { step } : {}) });
  }

  private add(update: CardUpdate, card: Card): void {
    this.put(update, card);
  }

  /**
   * Adds the card at the end, or replaces the one with its id in place. A question goes
   * just before the card of the call it asks about: asked, then answered, then the call.
   */
  private put(update: CardUpdate, card: Card): void {
    const old = this.byId.get(card.id);
    const asksAbout = card.kind === 'approval' && !old ? this.byId.get(card.toolUseId) : undefined;
    if (old) {
      const index = this.list.indexOf(old);
      this.list[index] = card;
    } else if (asksAbout) {
      this.list.splice(this.list.indexOf(asksAbout), 0, card);
      card.before = asksAbout.id;
    } else {
      this.list.push(card);
    }
    this.byId.set(card.id, card);
    const pending = update.upserts.findIndex((c) => c.id === card.id);
    if (pending >= 0) {
      update.upserts[pending] = card;
    } else {
      update.upserts.push(card);
    }
  }

  private nextId(prefix: string): string {
    return `${prefix}${++this.counter}`;
  }
}

/** The step text of a todo id in the current plan. */
export function planLookup(items: readonly TodoItem[]): StepLookup {
  return (todoId) => items.find((item) => item.id === todoId)?.text;
}

/** Checks a workspaceAgent/history result (entries of unknown kinds are left out). */
export function isHistoryResult(value: unknown): value is HistoryResult {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const result = value as Record<string, unknown>;
  if (
    typeof result.sessionId !== 'string' ||
    !Array.isArray(result.entries) ||
    !(result.before === null || typeof result.before === 'string') ||
    typeof result.total !== 'number'
  ) {
    return false;
  }
  result.entries = result.entries.filter(
    (entry: unknown) =>
      typeof entry === 'object' && entry !== null && EVENT_KINDS.some((kind) => kind === (entry as { kind?: unknown }).kind),
  );
  return true;
}

function attachedField(event: Parameters<typeof attachedLine>[0]): { attached?: string } {
  const line = attachedLine(event);
  return line ? { attached: line } : {};
}
