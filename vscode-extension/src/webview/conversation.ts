/// <reference lib="dom" />
/**
 * The Conversation view's page script (bundled on its own for the webview, no Node, no
 * `vscode`): draws the cards the host posts, and sends back what the user does.
 *
 * Everything is drawn with textContent except a text card's `html`, which the host made
 * with markdown.ts (raw HTML off, only http(s)/mailto links); the page's CSP allows only
 * this script (by nonce), so an element slipped in could not run anyway. Links are opened
 * by the host, which checks them again. Every control is a real button, text box or
 * (an item's words on the plan card) a focusable element with the button role: keyboard
 * only works, and screen readers hear labels, the log's new cards, and status. The plan
 * card's edits are only posted: the host applies them to its one draft and sends the card
 * back.
 */
import { type ApprovalAsk, type Card, type HookRow, type ImageRef, type StepRef, imageKey } from '../core/conversation';
import type { ApprovalDecision, NetworkHost, PromptImage, RunMode } from '../protocol';
import type { FromWebview, QueuedRow, ToWebview } from '../core/conversationStore';
import { type Fix, errorParts } from '../core/errorFixes';
import { boxKept, boxKey, cardNeedsDrawing } from '../core/planCardRedraw';
import { CARD_TEXT_MAX, type DraftRow, type PlanCard, type PlanCardEdit, textProblem } from '../core/planDraft';
import { completionList } from './completionList';
import { type FoldCard, type GroupCard, type ShownCard, anchorAfterPrepend } from '../core/foldCards';
import { plural } from '../core/words';
import { blockLines, hostVerdict, sandboxMark } from '../core/sandboxCard';
import { type RunningRow, portLabel, shortCommand, shownRows, stateWords } from '../core/running';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post = (message: FromWebview): void => vscode.postMessage(message);

const byId = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) {
    throw new Error(`#${id} is missing`);
  }
  return found as T;
};

const cardsBox = byId<HTMLDivElement>('cards');
const earlier = byId<HTMLButtonElement>('earlier');
const empty = byId<HTMLDivElement>('empty');
const input = byId<HTMLTextAreaElement>('input');
const send = byId<HTMLButtonElement>('send');
const cancel = byId<HTMLButtonElement>('cancel');
const queuedBox = byId<HTMLUListElement>('queued');
const chip = byId<HTMLDivElement>('chip');
const meterBox = byId<HTMLDivElement>('meter');
const status = byId<HTMLSpanElement>('status');
const imagesBox = byId<HTMLUListElement>('images');
const log = byId<HTMLDivElement>('log');
const planBox = byId<HTMLElement>('plan');
const runningBox = byId<HTMLElement>('running');
const modeAct = byId<HTMLButtonElement>('mode-act');
const modePlan = byId<HTMLButtonElement>('mode-plan');
const completions = completionList(input, byId<HTMLUListElement>('completions'), byId<HTMLUListElement>('mentions'), post);

const drawn = new Map<string, HTMLElement>();
let running = false;
let hasSession = false;
/** workspaceAgent.maxTurns, as the host last said: what a Continue gets. */
let maxTurns = 50;

// -- Building elements -----------------------------------------------------------------

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; label?: string; title?: string } = {},
  ...children: (Node | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  if (props.label) node.setAttribute('aria-label', props.label);
  if (props.title) node.title = props.title;
  for (const child of children) {
    if (child) node.append(child);
  }
  return node;
}

function button(text: string, onClick: () => void, className = 'secondary', label?: string): HTMLButtonElement {
  const node = el('button', { className, text, ...(label ? { label } : {}) });
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}

/** The plan step of a card: a small tag on its header line ("#2"), the step's words in its tooltip. */
function stepChip(step: StepRef | undefined): HTMLButtonElement | null {
  if (!step) return null;
  const tag = button(`#${step.todoId}`, () => post({ type: 'showStep', todoId: step.todoId }), 'step', `${step.label}: show in the Plan view`);
  tag.title = `${step.label} (show in the Plan view)`;
  return tag;
}

const STATUS_TEXT = { running: 'running…', ok: 'done', failed: 'failed' } as const;

/** "not run (denied: too risky)": a call the user said no to. */
function deniedWords(reason: string): string {
  return reason ? `not run (denied: ${reason})` : 'not run (denied)';
}

function exitWords(card: Extract<Card, { kind: 'command' }>): { text: string; tone: string } {
  if (card.denied !== undefined) return { text: deniedWords(card.denied), tone: 'denied' };
  if (card.background && card.status === 'ok' && (card.exitCode === undefined || card.exitCode === null)) return { text: 'in the background', tone: 'background' };
  if (card.status === 'running') {
    return card.waiting || card.waitingFor ? { text: card.waiting ? 'waiting for you' : `${card.waitingFor}`, tone: 'waiting' } : { text: 'running…', tone: 'running' };
  }
  if (card.exitCode === null) return { text: 'stopped', tone: 'failed' };
  if (card.exitCode === undefined) return { text: card.status === 'ok' ? 'done' : 'failed', tone: card.status };
  return { text: `exit ${card.exitCode}`, tone: card.exitCode === 0 ? 'ok' : 'failed' };
}

function outputBlock(output: string, truncated: boolean, toolUseId: string): HTMLElement | null {
  if (!output) return null;
  const lines = output.split('\n');
  const details = el('details', { className: 'output' },
    el('summary', { text: `Output (${lines.length} line${lines.length === 1 ? '' : 's'}${truncated ? ', cut in the middle' : ''})` }),
    el('pre', { text: output }),
  );
  const full = button('Open full output', () => post({ type: 'openOutput', toolUseId }), 'link', 'Open the full output in an editor');
  return el('div', {}, details, full);
}

/**
 * A command or a path that wraps where a reader expects, at its spaces and after each `/`
 * (a <wbr>: the text copies and reads the same), never inside a word ("g / reet.py").
 */
function breakable(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  text.split('/').forEach((part, i, parts) => {
    fragment.append(document.createTextNode(i < parts.length - 1 ? `${part}/` : part));
    if (i < parts.length - 1) fragment.append(document.createElement('wbr'));
  });
  return fragment;
}

/**
 * Each code block of the model's text: scrolls sideways, with a Copy button (the host copies)
 * on a bar of its own above the code, so it never covers the end of a line.
 */
function withCopyButtons(body: HTMLElement): void {
  for (const pre of Array.from(body.querySelectorAll('pre'))) {
    const copy = button('Copy', () => {
      const code = pre.textContent ?? '';
      post({ type: 'copy', text: code }); // the host's clipboard (the page's may be refused)
      void navigator.clipboard?.writeText(code).catch(() => undefined);
      copy.textContent = 'Copied';
      copy.setAttribute('aria-label', 'Copied to the clipboard');
      setTimeout(() => {
        copy.textContent = 'Copy';
        copy.setAttribute('aria-label', 'Copy the code');
      }, 2000);
    }, 'secondary copy', 'Copy the code');
    copy.title = 'Copy the code';
    const language = /language-([\w+#-]+)/.exec(pre.querySelector('code')?.className ?? '')?.[1];
    const block = el('div', { className: 'code-block' });
    pre.replaceWith(block);
    block.append(el('div', { className: 'code-bar' }, el('span', { className: 'code-language', text: language ?? '' }), copy), pre);
  }
}

/** Consecutive plan updates as one row; consecutive reads as one row that opens on the files. */
function renderFold(card: FoldCard): HTMLElement {
  if (card.fold === 'plan') {
    return el('div', { className: 'row tool other fold plan-fold ok', label: card.label },
      el('span', { className: 'verb', text: card.label }),
    );
  }
  const details = el('details', { className: 'fold read-fold' });
  const summary = el('summary', { className: 'row tool read', label: `${card.label}: show the files` },
    el('span', { className: 'verb', text: card.label }),
    stepChip(card.step),
  );
  const members = el('div', { className: 'fold-body' });
  for (const member of card.members) {
    const node = render(member);
    node.dataset.cardId = member.id;
    node.tabIndex = -1;
    members.append(node);
  }
  details.append(summary, members);
  return details;
}

/** An MCP tool's result: shown open when short, folded when long. */
const SHORT_RESULT_LINES = 12;

function toolOutputBlock(output: string, truncated: boolean, toolUseId: string): HTMLElement {
  const lines = output.split('\n');
  const details = el('details', { className: 'output result' },
    el('summary', { text: `Result (${lines.length} line${lines.length === 1 ? '' : 's'}${truncated ? ', cut in the middle' : ''})` }),
    el('pre', { text: output }),
  );
  details.open = lines.length <= SHORT_RESULT_LINES && !truncated;
  const full = button('Open in editor', () => post({ type: 'openOutput', toolUseId }), 'link', 'Open the whole result in an editor');
  return el('div', {}, details, full);
}

/**
 * A `task` call's subagent: its row (the agent, the task, how far its plan is, then its
 * tokens and cost), its calls under it, and its final message at the end. Open while it
 * works, folded once it is done, unless the reader opened it by hand.
 */
function renderGroup(card: GroupCard): HTMLElement {
  const { task } = card;
  const sub = task.subagent;
  const working = task.status === 'running';
  const words = sub?.words ?? (working ? 'working…' : STATUS_TEXT[task.status]);
  const tone = working ? 'running' : task.status;
  const details = el('details', { className: `card subagent ${task.status}` });
  details.open = working;
  if (working) details.dataset.auto = 'open';
  const summary = el('summary', { className: 'subagent-head', label: `Subagent ${task.summary}, ${words}` },
    el('span', { className: 'verb', text: sub ? `Subagent ${sub.agent}` : 'Subagent' }),
    el('span', { className: 'subagent-task', text: sub?.description ?? task.summary }),
    el('span', { className: `badge ${tone}`, text: words }),
    stepChip(task.step),
  );
  summary.addEventListener('click', () => delete details.dataset.auto);
  const body = el('div', { className: 'fold-body group-body' });
  for (const member of card.members) {
    const node = render(member);
    node.dataset.cardId = member.id;
    node.tabIndex = -1;
    body.append(node);
  }
  if (!working && task.output) body.append(toolOutputBlock(task.output, task.truncated === true, task.toolUseId));
  details.append(summary, body);
  return details;
}

/** The hooks that ran for a call, folded under its card: one line each, its output on a click. */
function hookRows(rows: HookRow[] | undefined): HTMLElement | null {
  if (!rows?.length) {
    return null;
  }
  const warning = rows.some((row) => row.warning);
  const details = el('details', { className: `hook-rows${warning ? ' warning' : ''}` });
  const words = rows.length === 1 ? rows[0].text : `${rows.length} hooks ran${warning ? ' (one refused or failed)' : ''}`;
  details.append(el('summary', { text: words, label: `Hooks: ${rows.map((row) => row.text).join('; ')}` }));
  for (const row of rows) {
    details.append(hookRow(row));
  }
  return details;
}

function hookRow(row: HookRow): HTMLElement {
  const line = el('div', { className: `hook-row ${row.outcome}`, text: row.text, title: row.detail });
  return row.output ? el('div', {}, line, el('pre', { className: 'hook-output', text: row.output })) : line;
}

/** A tool card with the hooks that ran for its call under it. */
function withHooks(node: HTMLElement, rows: HookRow[] | undefined): HTMLElement {
  const hooks = hookRows(rows);
  if (!hooks) {
    return node;
  }
  if (node.tagName === 'ARTICLE') {
    node.append(hooks);
    return node;
  }
  return el('div', { className: 'tool-result' }, node, hooks);
}

function render(card: ShownCard): HTMLElement {
  const node = renderCard(card);
  if (card.kind === 'group') {
    return withHooks(node, card.task.hooks); // its task call's (PreToolUse, SubagentStop)
  }
  return 'hooks' in card ? withHooks(node, card.hooks) : node;
}

function renderCard(card: ShownCard): HTMLElement {
  switch (card.kind) {
    case 'fold':
      return renderFold(card);
    case 'group':
      return renderGroup(card);
    case 'prompt': {
      const node = el('article', { className: 'card prompt', label: `You asked: ${card.text}` },
        el('div', { className: 'who', text: 'You' }),
        el('div', { className: 'prompt-text', text: card.text }),
        card.attached ? el('div', { className: 'chip', text: `Attached: ${card.attached}` }) : null,
        card.images?.length ? thumbnails(card.images, 'sent with the task') : null,
      );
      return node;
    }
    case 'text': {
      const body = el('div', { className: 'markdown' });
      body.innerHTML = card.html; // made by markdown.ts: no raw HTML, safe links only
      withCopyButtons(body);
      return el('article', { className: `card answer${card.streaming ? ' streaming' : ''}`, label: 'Agent' }, body);
    }
    case 'command': {
      const exit = exitWords(card);
      const mark = sandboxMark(card.sandboxed);
      return el('article', { className: 'card tool command', label: `Command ${card.command}, ${exit.text}${mark ? `, ${mark}` : ''}` },
        el('div', { className: 'tool-head' },
          el('code', { className: 'cmd' }, breakable(`$ ${card.command}`)),
          el('span', { className: `badge ${exit.tone}`, text: exit.text }),
          mark ? el('span', { className: `sandbox-mark${card.sandboxed ? '' : ' outside'}`, text: mark, title: card.sandboxed ? 'It ran in the sandbox: it could write only the workspace and /tmp, and each host of the network was asked about' : 'It ran outside the sandbox, with your full access' }) : null,
          card.background ? backgroundLink(card.background) : null,
          stepChip(card.step),
        ),
        ...blockLines(card.blocked).map((line) =>
          el('div', { className: 'blocked-line', label: line.text },
            el('span', { text: line.text }),
            line.fix ? button(line.fix.label, () => post({ type: 'allowSandbox', toolUseId: card.toolUseId, setting: line.fix!.setting, ...(line.fix!.value ? { value: line.fix!.value } : {}) }), 'secondary', line.fix.confirm) : null,
          ),
        ),
        card.network?.length ? networkLine(card.network) : null,
        card.denied === undefined ? outputBlock(card.output ?? '', card.truncated, card.toolUseId) : null,
      );
    }
    case 'read': {
      const path = button(card.path, () => post({ type: 'openFile', path: card.path }), 'link path', `Open ${card.path}`);
      path.replaceChildren(breakable(card.path));
      const head = el('div', { className: `row tool read ${card.status}`, label: `Read ${card.path}${card.range ? ` ${card.range}` : ''}` },
        el('span', { className: 'verb', text: card.status === 'failed' ? 'Could not read' : 'Read' }),
        path,
        card.range ? el('span', { className: 'muted', text: card.range }) : null,
        card.error ? el('span', { className: 'error-text', text: card.error }) : null,
        stepChip(card.step),
      );
      // An image file it read: what the model saw, as a thumbnail (the MCP results' viewer).
      return card.images?.length && card.status === 'ok' ? el('div', { className: 'tool-result' }, head, thumbnails(card.images, 'the agent read')) : head;
    }
    case 'edit': {
      const files = card.files.length ? card.files : [];
      const counts = files.map((f) => `+${f.additions} −${f.deletions}`).join(', ');
      const verb = card.denied !== undefined ? `Not changed (denied${card.denied ? `: ${card.denied}` : ''})` : card.status === 'running' ? (card.waiting ? 'Waiting for you:' : card.waitingFor ? `Waiting (${card.waitingFor}):` : card.verb === 'write' ? 'Writing' : 'Editing') : card.status === 'failed' ? 'Could not change' : card.verb === 'write' ? 'Wrote' : 'Edited';
      return el('div', { className: `row tool edit ${card.status}`, label: `${verb} ${card.path}${counts ? ` ${counts}` : ''}` },
        el('span', { className: 'verb', text: verb }),
        el('span', { className: 'path' }, breakable(card.path)),
        counts ? el('span', { className: 'counts', text: counts }) : null,
        card.status === 'ok' ? button('Diff', () => post({ type: 'openDiff', toolUseId: card.toolUseId }), 'link', `Open the diff of ${card.path}`) : null,
        card.error ? el('span', { className: 'error-text', text: card.error }) : null,
        stepChip(card.step),
      );
    }
    case 'web':
      return webCard(card);
    case 'tool': {
      const state = card.denied !== undefined ? deniedWords(card.denied) : card.status === 'running' && card.waiting ? 'waiting for you' : card.status === 'running' && card.waitingFor ? card.waitingFor : STATUS_TEXT[card.status];
      const head = el('div', { className: `row tool other ${card.status}`, label: `${card.name} ${card.summary}, ${state}` },
        el('span', { className: 'verb', text: card.name }),
        el('span', { className: 'muted', text: card.summary }),
        card.denied !== undefined || card.waiting || (card.status === 'running' && card.waitingFor) ? el('span', { className: `badge ${card.denied !== undefined ? 'denied' : 'waiting'}`, text: state }) : null,
        card.output && card.status === 'failed' && card.denied === undefined ? el('span', { className: 'error-text', text: card.output }) : null,
        stepChip(card.step),
      );
      // A result (an MCP tool's) reads like a command's output: folded when long, whole in an
      // editor; its images as thumbnails that open larger (the prompt's own viewer).
      const pictures = card.images?.length && card.status === 'ok' ? thumbnails(card.images, 'the tool returned') : null;
      if ((card.output && card.status === 'ok') || pictures) {
        return el('div', { className: 'tool-result' }, head, card.output && card.status === 'ok' ? toolOutputBlock(card.output, card.truncated === true, card.toolUseId) : null, pictures);
      }
      return head;
    }
    case 'thought': {
      // Folded: the answer is what the user reads; the thinking opens on demand.
      const words = card.streaming ? 'Thinking…' : card.seconds !== undefined ? `Thought for ${thoughtTime(card.seconds)}` : 'Thought';
      const details = el('details', { className: `card thought${card.streaming ? ' streaming' : ''}`, label: words });
      details.append(el('summary', { text: words }), el('div', { className: 'thought-text', text: card.text }));
      return details;
    }
    case 'notice':
      if (card.fixes?.length) {
        // The last run's error: what went wrong, and the way out as buttons.
        const error = card.tone === 'error';
        const { headline, rest } = error ? errorParts(card.text) : { headline: card.text, rest: '' };
        const node = el('article', { className: `card ${error ? 'error-card' : 'fix-card'}`, label: `${error ? 'Error' : 'Notice'}: ${card.text}` },
          el('div', { className: error ? 'error-message' : 'fix-message' }, withCode(headline)),
          rest ? el('div', { className: 'error-detail' }, withCode(rest)) : null,
          fixButtons(card.id, card.fixes),
        );
        node.setAttribute('role', 'group');
        return node;
      }
      return el('div', { className: `row notice ${card.tone}`, text: card.text, label: `${card.tone === 'error' ? 'Error' : 'Notice'}: ${card.text}` });
    case 'retry':
      return el('div', { className: `row notice retry${card.live ? ' live' : ''}`, text: card.text, label: `Retry: ${card.text}` });
    case 'approval':
      return approvalCard(card);
    case 'end':
      if (card.fixes?.length) {
        // A limit ended the run: Continue goes on in the same session.
        const node = el('article', { className: `card limit ${card.stopReason}`, label: `Run ended: ${card.text}` },
          el('div', { className: 'limit-text', text: card.text }),
          fixButtons(card.id, card.fixes, card.stopReason),
        );
        node.setAttribute('role', 'group');
        return node;
      }
      return el('div', { className: `row end ${card.stopReason}`, text: card.text, label: `Run ended: ${card.text}` });
    case 'revert':
      return revertRow(card);
    case 'hook': {
      // A hook that ran for no call: a quiet row that opens on what it printed.
      const details = el('details', { className: `row hook-rows standalone${card.row.warning ? ' warning' : ''}` });
      details.append(el('summary', { text: card.row.text, title: card.row.detail, label: `Hook: ${card.row.text}` }, stepChip(card.step)));
      details.append(card.row.output ? el('pre', { className: 'hook-output', text: card.row.output }) : el('div', { className: 'muted', text: 'It printed nothing.' }));
      return details;
    }
  }
}

/**
 * A web search or fetch: what it looked for, then the pages as links (opened by the host,
 * which checks the address again, as links in the model's text are).
 */
function webCard(card: Extract<Card, { kind: 'web' }>): HTMLElement {
  const search = card.verb === 'search';
  const state = card.denied !== undefined ? deniedWords(card.denied) : card.status === 'running' && card.waiting ? 'waiting for you' : '';
  const verb = card.status === 'running' ? (search ? 'Searching the web' : 'Fetching') : card.status === 'failed' ? (search ? 'Web search failed' : 'Could not fetch') : search ? 'Searched the web' : 'Fetched';
  const head = el('div', { className: `row tool web ${card.status}`, label: `${verb} ${card.summary}${state ? `, ${state}` : ''}` },
    el('span', { className: 'verb', text: verb }),
    el('span', { className: 'muted', text: card.summary }),
    state ? el('span', { className: `badge ${card.denied !== undefined ? 'denied' : 'waiting'}`, text: state }) : null,
    card.error && card.denied === undefined ? el('span', { className: 'error-text', text: card.error }) : null,
    stepChip(card.step),
  );
  if (!card.links.length || (!search && card.links[0]?.url === card.summary)) {
    return head;
  }
  const list = el('ul', { className: 'web-links', label: search ? 'Results' : 'Page' });
  for (const link of card.links) {
    const anchor = el('a', { text: link.title, title: link.url });
    anchor.setAttribute('href', link.url); // http(s) only (webLinks); a click posts openLink
    list.append(el('li', {}, anchor));
  }
  return el('div', { className: 'tool-result' }, head, list);
}

/** A revert between runs: what it took back, its files in the tooltip, Undo while it stands. */
function revertRow(card: Extract<Card, { kind: 'revert' }>): HTMLElement {
  const words = `${card.text}${card.undone ? ' (undone)' : ''}`;
  const text = el('span', { className: 'revert-text', text: words, ...(card.detail ? { title: card.detail } : {}) });
  const undo =
    card.undoId && !card.undone
      ? button('Undo', () => post({ type: 'undoRevert', undoId: card.undoId ?? '' }), 'secondary', `Undo: ${card.text}`)
      : null;
  if (undo) undo.title = 'Put back what this revert took out';
  const tone = card.action === 'undo' ? ' undo' : card.warning ? ' warning' : '';
  return el('div', { className: `row revert${tone}${card.undone ? ' undone' : ''}`, label: words }, text, stepChip(card.step), undo);
}

/** A card's fixes as buttons, the first the primary one. */
function fixButtons(cardId: string, fixes: Fix[], stopReason?: string): HTMLElement {
  const row = el('div', { className: 'buttons' });
  fixes.forEach((fix, i) => {
    const { text, title } = fixWords(fix, stopReason);
    // Named by its words (what a screen reader says is what the eye reads); the tooltip says more.
    const node = button(text, () => post({ type: 'fix', cardId, action: fix.action }), i === 0 ? 'primary' : 'secondary');
    node.title = title;
    row.append(node);
  });
  return row;
}

function fixWords(fix: Fix, stopReason?: string): { text: string; title: string } {
  switch (fix.action) {
    case 'continue':
      return stopReason === 'max_turns'
        ? { text: `Continue (another ${maxTurns} turns)`, title: `Continue: the agent goes on where it stopped, in this session, for up to ${maxTurns} more turns (workspaceAgent.maxTurns)` }
        : { text: 'Continue', title: 'Continue: the agent goes on where it stopped, in this session, with a token budget of its own' };
    case 'retry':
      return { text: 'Retry', title: 'Retry: run the same task again' };
    case 'setApiKey':
      return { text: 'Set API Key', title: 'Set the Anthropic API key (kept in VS Code\'s secret storage)' };
    case 'openSettings':
      return { text: 'Open Settings', title: `Open the setting ${fix.setting}` };
    case 'restartServer':
      return { text: 'Restart Server', title: 'Restart the agent\'s server' };
    case 'showTranscript':
      return { text: 'Show Transcript', title: 'Show the run\'s transcript' };
  }
}

// -- A prompt's images: thumbnails fetched from the host as they come into sight, opened larger on click --

/** data: URLs (or why there is none) by imageKey, for the session shown. */
const imageUrls = new Map<string, string>();
const imageProblems = new Map<string, string>();
const imagesAsked = new Set<string>();
let imagesOf: string | undefined;

const thumbsInSight = new IntersectionObserver(
  (seen) => {
    for (const entry of seen) {
      if (!entry.isIntersecting) continue;
      thumbsInSight.unobserve(entry.target);
      const ref = thumbRefs.get(entry.target);
      if (ref && !imagesAsked.has(imageKey(ref))) {
        imagesAsked.add(imageKey(ref));
        post({ type: 'image', ref });
      }
    }
  },
  { root: log, rootMargin: '300px' },
);
const thumbRefs = new WeakMap<Element, ImageRef>();

/** `whose`: "sent with the task" (a prompt's), "the tool returned" (a result's). */
function thumbnails(refs: ImageRef[], whose: string): HTMLElement {
  const list = el('ul', { className: 'thumbs', label: refs.length === 1 ? `The image ${whose}` : `The ${refs.length} images ${whose}` });
  refs.forEach((ref, i) => {
    const words = `Image ${i + 1} of ${refs.length}: ${ref.label}`;
    const caption = refs.length > 1 ? `${i + 1} of ${refs.length} · ${ref.label}` : ref.label;
    const open = button('', () => openLightbox(ref, open, words, caption), 'thumb-button', `${words}. Open it larger`);
    open.title = `${ref.label}: click to open it larger`;
    open.dataset.imageKey = imageKey(ref);
    thumbRefs.set(open, ref);
    showThumb(open);
    list.append(el('li', {}, open));
  });
  return list;
}

/** The thumbnail as far as the host answered: the image, a placeholder while it comes, or why it cannot. */
function showThumb(node: HTMLButtonElement): void {
  const ref = thumbRefs.get(node);
  if (!ref) return;
  const key = imageKey(ref);
  const url = imageUrls.get(key);
  const problem = imageProblems.get(key);
  node.classList.toggle('missing', problem !== undefined);
  if (url) {
    const img = el('img', { className: 'thumb' });
    img.src = url;
    img.alt = ref.label;
    node.replaceChildren(img);
    node.dataset.loaded = 'true';
  } else {
    node.replaceChildren(el('span', { className: 'thumb-placeholder', text: ref.label }));
    if (problem) node.title = `${ref.label}: ${problem}`;
    if (!problem && !imagesAsked.has(key)) thumbsInSight.observe(node);
  }
}

function imageArrived(key: string, url: string | undefined, problem: string | undefined): void {
  if (url) imageUrls.set(key, url);
  else imageProblems.set(key, problem ?? 'not available');
  cardsBox.querySelectorAll<HTMLButtonElement>(`button.thumb-button[data-image-key="${CSS.escape(key)}"]`).forEach(showThumb);
  if (lightboxKey === key) showLightboxImage();
}

/** Another session is shown: its images are others. */
function forgetImages(sessionId: string | undefined): void {
  if (sessionId === imagesOf) return;
  imagesOf = sessionId;
  imageUrls.clear();
  imageProblems.clear();
  imagesAsked.clear();
  closeLightbox();
}

// The larger view: a dialog over the conversation; Escape, Close or a click beside the image closes it.
const lightbox = el('div', { className: 'lightbox' });
lightbox.id = 'lightbox';
lightbox.hidden = true;
lightbox.setAttribute('role', 'dialog');
lightbox.setAttribute('aria-modal', 'true');
const lightboxFigure = el('figure', { className: 'lightbox-frame' });
const lightboxCaption = el('figcaption', { className: 'lightbox-caption' });
const lightboxOpen = button('Open in Editor', () => {
  if (lightboxRef) post({ type: 'openImage', ref: lightboxRef });
}, 'secondary', 'Open the image in an editor tab');
const lightboxClose = button('Close', () => closeLightbox(), 'primary', 'Close the image (Escape)');
lightbox.append(lightboxFigure);
document.body.append(lightbox);
let lightboxRef: ImageRef | undefined;
let lightboxKey: string | undefined;
let lightboxOpener: HTMLElement | undefined;

function openLightbox(ref: ImageRef, opener: HTMLElement, words: string, caption: string): void {
  lightboxRef = ref;
  lightboxKey = imageKey(ref);
  lightboxOpener = opener;
  lightbox.setAttribute('aria-label', words);
  lightboxCaption.textContent = caption;
  if (!imageUrls.has(lightboxKey) && !imagesAsked.has(lightboxKey)) {
    imagesAsked.add(lightboxKey);
    post({ type: 'image', ref });
  }
  showLightboxImage();
  lightbox.hidden = false;
  lightboxClose.focus();
}

function showLightboxImage(): void {
  const key = lightboxKey;
  const url = key ? imageUrls.get(key) : undefined;
  const problem = key ? imageProblems.get(key) : undefined;
  const picture = url ? el('img', { className: 'lightbox-image' }) : el('div', { className: 'lightbox-missing', text: problem ? `Cannot show it: ${problem}` : 'Loading…' });
  if (url && picture instanceof HTMLImageElement) {
    // An icon-sized image (MCP's tiny logo is 20x20) is shown larger, its pixels kept sharp.
    picture.addEventListener('load', () => picture.classList.toggle('small', Math.max(picture.naturalWidth, picture.naturalHeight) < SMALL_IMAGE_PX));
    picture.src = url;
    picture.alt = lightboxRef?.label ?? 'image';
  }
  lightboxFigure.replaceChildren(picture, el('div', { className: 'lightbox-bar' }, lightboxCaption, url ? lightboxOpen : null, lightboxClose));
}

/** Below this size (px, the longer side) the lightbox scales an image up. */
const SMALL_IMAGE_PX = 128;

function closeLightbox(): void {
  if (lightbox.hidden) return;
  lightbox.hidden = true;
  lightboxRef = lightboxKey = undefined;
  lightboxOpener?.focus();
  lightboxOpener = undefined;
}

lightbox.addEventListener('click', (event) => {
  if (event.target === lightbox) closeLightbox();
});
lightbox.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') {
    event.preventDefault();
    event.stopPropagation();
    closeLightbox();
  } else if (event.key === 'Tab') {
    // The dialog keeps the focus: Tab goes round its buttons.
    const buttons = Array.from(lightbox.querySelectorAll<HTMLButtonElement>('button'));
    const at = buttons.findIndex((node) => node === document.activeElement);
    const next = buttons[(at + (event.shiftKey ? buttons.length - 1 : 1)) % buttons.length];
    if (next) {
      event.preventDefault();
      next.focus();
    }
  }
});

/** "6 s", "1 min 5 s"; under a second, "less than a second". */
function thoughtTime(seconds: number): string {
  if (seconds < 1) return 'less than a second';
  const whole = Math.round(seconds);
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** "network: pypi.org allowed · 169.254.169.254 refused (metadata address)", under a sandboxed command. */
function networkLine(hosts: NetworkHost[]): HTMLElement {
  const line = el('div', { className: 'network-line', label: `Network: ${hosts.map((h) => `${h.host} ${hostVerdict(h)}`).join(', ')}` });
  line.append(el('span', { className: 'muted', text: 'network: ' }));
  hosts.forEach((host, i) => {
    if (i) line.append(el('span', { className: 'muted', text: ' · ' }));
    line.append(el('code', { text: host.host }), el('span', { className: host.allowed ? 'allowed' : 'blocked', text: ` ${hostVerdict(host)}` }));
  });
  return line;
}


const ANSWER_WORDS = { allowed: 'Allowed', denied: 'Denied', waiting: 'Waiting for your answer' } as const;
const REVIEW_WORDS = { allowed: 'Accepted', denied: 'Rejected' } as const;

function approvalCard(card: Extract<Card, { kind: 'approval' }>): HTMLElement {
  const ask = card.ask;
  const title = ask ? (ask.review ? 'Review this change' : ask.host ? 'Network access' : 'Approval needed') : card.review ? 'Review' : 'Approval';
  const state = card.unanswered ? 'unanswered' : card.status;
  const node = el('article', { className: `card approval ${state}${ask?.destructive ? ' destructive' : ''}`, label: `${title}: ${card.message}` },
    el('div', { className: 'card-head' }, el('div', { className: 'who', text: title }), stepChip(card.step)),
    el('div', { className: 'approval-message' }, withCode(card.message)),
  );
  node.setAttribute('role', 'group');
  if (!ask) {
    const words = card.unanswered
      ? 'Not answered: the run ended first'
      : card.status === 'denied' && card.reason
        ? `${card.review ? 'Rejected' : 'Denied'}: “${card.reason}”`
        : card.review && card.status !== 'waiting'
          ? REVIEW_WORDS[card.status]
          : ANSWER_WORDS[card.status];
    node.append(el('div', { className: `answer-line ${state}`, text: words }));
    return node;
  }
  if (ask.destructive) {
    node.append(el('div', { className: 'why', text: `Deny is the default: this ${ask.destructive}.` }));
  } else if (ask.askedBecause) {
    node.append(el('div', { className: 'why muted', text: `Asked because ${ask.askedBecause}.` }));
  }
  node.append(approvalButtons(card.toolUseId, ask));
  return node;
}

function approvalButtons(toolUseId: string, ask: ApprovalAsk): HTMLElement {
  const answer = (decision: ApprovalDecision, reason?: string): void =>
    post({ type: 'answer', toolUseId, decision, ...(reason ? { reason } : {}) });
  const allowWord = ask.review ? 'Accept' : 'Allow';
  const denyWord = ask.review ? 'Reject' : 'Deny';
  const denyFirst = Boolean(ask.destructive);
  const row = el('div', { className: 'buttons' });
  const reasonBox = el('div', { className: 'reason hidden' });
  const reasonInput = el('textarea', { label: `Why ${denyWord.toLowerCase()}? The agent is told.` });
  reasonInput.rows = 2;
  reasonInput.placeholder = 'Tell the agent why (it reads this)…';
  const sendReason = button(`${denyWord} with this reason`, () => answer('deny', reasonInput.value.trim() || undefined), 'primary');
  reasonInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      sendReason.click();
    }
  });
  reasonBox.append(reasonInput, sendReason);

  if (ask.hasDiff) {
    row.append(button('Show diff', () => post({ type: 'showProposed', toolUseId }), 'secondary', 'Show diff: the proposed change, in the diff editor'));
  }
  const allow = button(allowWord, () => answer('allow'), denyFirst ? 'secondary' : 'primary');
  const deny = button(denyWord, () => answer('deny'), denyFirst ? 'primary' : 'secondary');
  // An MCP tool's call: that tool alone for the session, or its whole server.
  const perTool = ask.options.includes('allowToolSession');
  const tool = perTool ? button('Allow this tool for this session', () => answer('allowToolSession')) : null;
  const sessionWord = perTool ? 'Allow this server for this session' : 'Allow for this session';
  const session = ask.options.includes('allowSession') ? button(sessionWord, () => answer('allowSession')) : null;
  // A network question: Always allow adds the host to the user's sandbox.allowedDomains.
  const always = ask.options.includes('allowAlways') ? button('Always allow', () => answer('allowAlways'), 'secondary', `Always allow ${ask.host ?? 'this host'}: adds it to your sandbox.allowedDomains setting`) : null;
  const withReason = button(`${denyWord} with a reason…`, () => {
    reasonBox.classList.remove('hidden');
    reasonInput.focus();
  });
  for (const node of denyFirst ? [deny, withReason, allow, tool, session, always] : [allow, tool, session, always, deny, withReason]) {
    if (node) row.append(node);
  }
  return el('div', {}, row, reasonBox);
}

// -- Drawing ---------------------------------------------------------------------------

function atBottom(): boolean {
  return log.scrollHeight - log.scrollTop - log.clientHeight < 40;
}

/** Where stickToBottom stopped for a waiting question: the reader still follows the run there. */
let questionScroll: number | undefined;

function following(): boolean {
  return atBottom() || (questionScroll !== undefined && Math.abs(log.scrollTop - questionScroll) < 2);
}

/**
 * Whether the reader followed the run when the log last scrolled: a log made shorter (a plan
 * card, the Running section, a taller input, a smaller window) keeps its last cards in sight.
 */
let followedAtLastScroll = true;
log.addEventListener('scroll', () => {
  followedAtLastScroll = following();
}, { passive: true });
new ResizeObserver(() => {
  if (followedAtLastScroll) stickToBottom(true);
}).observe(log);

/**
 * Follows the run, but a question that waits keeps its words in sight, not only its buttons
 * (the bottom shows the cards under it, and a tall question's top would scroll away).
 */
function stickToBottom(wasAtBottom: boolean): void {
  if (!wasAtBottom) return;
  log.scrollTop = log.scrollHeight;
  questionScroll = undefined;
  const questions = cardsBox.querySelectorAll<HTMLElement>('.card.approval.waiting');
  const question = Array.from(questions).reverse().find((node) => node.querySelector('.buttons'));
  if (!question) return;
  const above = question.getBoundingClientRect().top - log.getBoundingClientRect().top;
  if (above < 0) {
    log.scrollTop += above - 4;
    questionScroll = log.scrollTop;
  }
}



function upsert(card: ShownCard): void {
  const node = render(card);
  node.dataset.cardId = card.id;
  node.tabIndex = -1;
  const old = drawn.get(card.id);
  if (old) {
    // Keep an open output (or thinking the user is reading as it streams) open.
    const folded = (root: HTMLElement): HTMLDetailsElement | null => (root instanceof HTMLDetailsElement ? root : root.querySelector('details'));
    // A subagent's group that opened by itself while it worked folds once it is done.
    const wasOpen = folded(old)?.open && folded(old)?.dataset.auto !== 'open';
    old.replaceWith(node);
    const details = folded(node);
    if (wasOpen && details) details.open = true;
  } else {
    const next = card.before ? drawn.get(card.before) : undefined;
    if (next) next.before(node);
    else cardsBox.append(node);
  }
  drawn.set(card.id, node);
}

/** A sentence with `code` spans, as text and <code> elements (never as HTML). */
function withCode(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  text.split('`').forEach((part, i) => {
    fragment.append(i % 2 ? el('code', { text: part }) : document.createTextNode(part));
  });
  return fragment;
}

function reset(cards: ShownCard[], earlierToo: boolean): void {
  drawn.clear();
  cardsBox.replaceChildren();
  const fragment = document.createDocumentFragment();
  for (const card of cards) {
    const node = render(card);
    node.dataset.cardId = card.id;
    node.tabIndex = -1;
    drawn.set(card.id, node);
    fragment.append(node);
  }
  cardsBox.append(fragment);
  earlier.hidden = !earlierToo;
  earlier.disabled = false;
  showEmpty();
}

function showEmpty(): void {
  empty.hidden = drawn.size > 0;
  empty.textContent = hasSession
    ? 'Nothing said in this session yet.'
    : 'Give the agent a task below: its answers, the commands it runs and the files it changes appear here.';
}

function reveal(cardId: string): void {
  // A card folded with others (reads, a subagent's calls): its folds open on it.
  const node = drawn.get(cardId) ?? cardsBox.querySelector<HTMLElement>(`[data-card-id="${CSS.escape(cardId)}"]`);
  if (!node) return;
  for (let fold = node.parentElement?.closest('details.fold, details.subagent'); fold instanceof HTMLDetailsElement; fold = fold.parentElement?.closest('details.fold, details.subagent')) {
    fold.open = true;
  }
  const run = node.closest('.run-folded') ? node.closest<HTMLElement>('#cards > *') : null;
  if (run) {
    // In a folded run: the run unfolds on it.
    let prompt = run.previousElementSibling;
    while (prompt && !prompt.classList.contains('prompt')) prompt = prompt.previousElementSibling;
    if (prompt instanceof HTMLElement && prompt.dataset.cardId) foldedRuns.delete(prompt.dataset.cardId);
    showRunFolds();
  }
  node.scrollIntoView({ block: 'center' });
  node.classList.add('flash');
  node.focus({ preventScroll: true });
  setTimeout(() => node.classList.remove('flash'), 1500);
}

// -- "Load earlier" keeps the reading position --------------------------------------------

/** The first card in sight when "Load earlier" was clicked, how far below the top it was, and the cards then. */
interface ReadingPlace {
  cardId: string;
  offset: number;
  ids: string[];
}
let readingPlace: ReadingPlace | undefined;

function currentPlace(): ReadingPlace | undefined {
  const top = log.getBoundingClientRect().top;
  const nodes = Array.from(cardsBox.children) as HTMLElement[];
  const first = nodes.find((node) => node.getBoundingClientRect().bottom > top + 1);
  const cardId = first?.dataset.cardId;
  if (!first || !cardId) return undefined;
  return { cardId, offset: first.getBoundingClientRect().top - top, ids: nodes.map((node) => node.dataset.cardId ?? '') };
}

/** Scrolls so that the card of `place` is where it was; false when it is not drawn. */
function keepPlace(place: ReadingPlace, ids: string[]): boolean {
  const id = anchorAfterPrepend(place.ids, ids, place.cardId);
  const node = id ? drawn.get(id) : undefined;
  if (!node) return false;
  log.scrollTop += node.getBoundingClientRect().top - log.getBoundingClientRect().top - place.offset;
  return true;
}

// -- Folding a finished run ----------------------------------------------------------------

/**
 * The prompt cards whose run the reader folded: the run's cards (up to the next prompt) are
 * hidden under its prompt. Kept across updates and a redraw of the same session; "Load
 * earlier" renumbers cards, so its folds are found again counted from the end.
 */
let foldedRuns = new Set<string>();
let foldsSession: string | undefined;

/** The cards of the run `prompt` starts: its siblings up to the next prompt. */
function runMembers(prompt: HTMLElement): HTMLElement[] {
  const members: HTMLElement[] = [];
  for (let node = prompt.nextElementSibling; node && !node.classList.contains('prompt'); node = node.nextElementSibling) {
    if (node instanceof HTMLElement && node.dataset.cardId) members.push(node);
  }
  return members;
}

/** A finished run's prompt gets a fold button; a folded run's cards are hidden. */
function showRunFolds(): void {
  const prompts = Array.from(cardsBox.querySelectorAll<HTMLElement>(':scope > .card.prompt'));
  prompts.forEach((prompt, index) => {
    const id = prompt.dataset.cardId ?? '';
    const members = runMembers(prompt);
    const finished = (index < prompts.length - 1 || !running) && members.length > 0;
    const folded = finished && foldedRuns.has(id);
    for (const member of members) member.classList.toggle('run-folded', folded);
    prompt.classList.toggle('folded', folded);
    let toggle = prompt.querySelector<HTMLButtonElement>(':scope > .fold-run');
    if (!finished) {
      toggle?.remove();
      prompt.querySelector(':scope > .folded-note')?.remove();
      return;
    }
    if (!toggle) {
      toggle = el('button', { className: 'icon fold-run' });
      toggle.type = 'button';
      toggle.addEventListener('click', () => {
        if (!foldedRuns.delete(id)) foldedRuns.add(id);
        showRunFolds();
      });
      prompt.prepend(toggle);
    }
    const words = folded ? `Unfold this run (${plural(members.length, 'card')})` : 'Fold this run';
    toggle.textContent = folded ? '▸' : '▾';
    toggle.title = words;
    toggle.setAttribute('aria-label', words);
    toggle.setAttribute('aria-expanded', String(!folded));
    let note = prompt.querySelector<HTMLElement>(':scope > .folded-note');
    if (folded && !note) {
      note = el('div', { className: 'folded-note' });
      prompt.append(note);
    }
    if (note) {
      if (folded) note.textContent = `${plural(members.length, 'card')} folded`;
      else note.remove();
    }
  });
}

/** Before a reset: the folds of another session go; after "Load earlier" they are found again. */
function carryRunFolds(sessionId: string | undefined, place: ReadingPlace | undefined, ids: string[]): void {
  if (sessionId !== foldsSession) {
    foldedRuns = new Set();
    foldsSession = sessionId;
  } else if (place) {
    foldedRuns = new Set(Array.from(foldedRuns, (id) => anchorAfterPrepend(place.ids, ids, id)).filter((id): id is string => id !== undefined));
  }
}

let queued: QueuedRow[] = [];
let history: string[] = [];
let historyIndex = -1;
let draft = '';

function showRun(waiting: number): void {
  cancel.hidden = !running;
  send.textContent = running ? 'Queue' : 'Send';
  send.title = running ? 'Queue this task: it starts when the current run ends' : 'Send (Enter)';
  status.textContent = waiting ? 'Waiting for your approval' : running ? 'Working…' : '';
  // "Working…" is for screen readers: Cancel, Queue and the status bar show it (a narrow side bar has no room for it).
  status.classList.toggle('for-screen-readers', running && !waiting);
  showMode(); // the placeholder says what Enter and Esc do while a run goes
  const held = queued.some((item) => item.held);
  const note = el('li', {
    className: 'queued-note',
    text: 'Kept from before the window reloaded, which ended the run they waited for: run them or remove them.',
  });
  queuedBox.replaceChildren(
    ...(held ? [note] : []),
    ...queued.map((item) =>
      el('li', { className: item.held ? 'queued-item held' : 'queued-item', label: `${item.held ? 'Held' : 'Queued'}: ${item.text}` },
        el('span', { className: item.held ? 'badge held' : 'badge queued', text: item.held ? 'held' : 'queued' }),
        el('span', { className: 'queued-text', text: item.text, title: item.text }),
        item.held
          ? button(running ? 'Queue' : 'Run', () => post({ type: 'runQueued', id: item.id }), 'link',
              running ? `Queue the task ${item.text} behind the current run` : `Run the task ${item.text}`)
          : null,
        button('Remove', () => post({ type: 'unqueue', id: item.id }), 'link', `Remove the queued task ${item.text}`),
      ),
    ),
  );
  queuedBox.hidden = queued.length === 0;
}

// -- Plan mode: the switch, and the plan that waits for the user ---------------------------

let mode: RunMode = 'act';

function showMode(): void {
  modeAct.setAttribute('aria-pressed', String(mode === 'act'));
  modePlan.setAttribute('aria-pressed', String(mode === 'plan'));
  input.placeholder = running
    ? 'Queue a follow-up… (Enter queues it; Esc in an empty box cancels the run)'
    : mode === 'plan'
      ? 'Plan a task… the agent looks, changes nothing, and proposes a plan (Enter sends)'
      : 'Ask the agent… (Enter sends, Shift+Enter adds a line)';
}

/** The card's open text box: rewording an item, commenting on one, or a new item. */
type PlanInput = { kind: 'reword' | 'comment' | 'add'; id: string; value: string };
let planShown: PlanCard | null = null;
let planInput: PlanInput | null = null;
/** The control to focus once the host's next card comes ("up", "down", "text", "comment", "add"). */
let planFocusControl: string | null = null;

/** The host applies the edit (planDraft.ts) to the one draft and sends the card back. */
function planEdit(edit: PlanCardEdit, focusControl: string): void {
  planFocusControl = focusControl;
  post({ type: 'planEdit', edit });
}

/** The open box's element while a redraw builds the new card: moved into it, never built again. */
let liveBox: HTMLInputElement | null = null;

function planTextBox(box: PlanInput, label: string, placeholder: string, save: (value: string) => void): HTMLInputElement {
  // The box being typed in stays the same element: its value, caret and listeners go on.
  if (liveBox?.dataset.key === boxKey(box)) return liveBox;
  const field = el('input', { className: `plan-input ${box.kind}`, label });
  field.type = 'text';
  field.maxLength = CARD_TEXT_MAX;
  field.value = box.value;
  field.placeholder = placeholder;
  field.dataset.key = boxKey(box);
  field.addEventListener('input', () => {
    box.value = field.value;
    field.setCustomValidity('');
  });
  field.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.isComposing) {
      event.preventDefault();
      // An item needs words (a comment may be empty: that takes it off).
      const problem = box.kind === 'comment' ? undefined : textProblem(field.value)?.replace('Delete Plan Item', 'Delete (✕)');
      if (problem) {
        field.setCustomValidity(problem);
        field.reportValidity();
        return;
      }
      planInput = null;
      save(field.value);
      redrawPlan(); // the box closes now; the host's card follows with the edit
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      planInput = null;
      planFocusControl = box.kind === 'add' ? 'add' : box.kind === 'comment' ? 'comment' : 'text';
      redrawPlan(box.kind === 'add' ? 'end' : box.id);
    }
  });
  return field;
}

function openPlanInput(box: PlanInput): void {
  planInput = box;
  redrawPlan();
  const field = planBox.querySelector<HTMLInputElement>('input.plan-input');
  field?.focus();
  field?.select();
}

/** One small icon button of an item's tools; `off` keeps it focusable (the focus stays on it at either end). */
function tool(glyph: string, label: string, key: string, onClick: () => void, off = false): HTMLButtonElement {
  const node = button(glyph, () => {
    if (node.getAttribute('aria-disabled') !== 'true') onClick();
  }, 'icon', label);
  node.title = label;
  node.dataset.key = key;
  if (off) node.setAttribute('aria-disabled', 'true');
  return node;
}

/**
 * The item's words, a button that rewords it. A span with the button role, not a
 * <button>: an inline-block's baseline is its last line, which would put the list's
 * number beside the last line of a long item and push its marks onto a line of their own.
 */
function wordsButton(row: DraftRow, onClick: () => void): HTMLElement {
  const node = el('span', { className: 'plan-text editable', text: row.label, label: `${row.accessibilityLabel}. Reword`, title: 'Click to reword' });
  node.setAttribute('role', 'button');
  node.tabIndex = 0;
  node.dataset.key = `text:${row.id}`;
  node.addEventListener('click', onClick);
  node.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onClick();
    }
  });
  return node;
}

function planRow(row: DraftRow, index: number, count: number): HTMLElement {
  const rewording = planInput?.kind === 'reword' && planInput.id === row.id ? planInput : null;
  const commenting = planInput?.kind === 'comment' && planInput.id === row.id ? planInput : null;
  const short = row.label.length > 40 ? `${row.label.slice(0, 40)}…` : row.label;
  const text = rewording
    ? planTextBox(rewording, `Reword item ${index + 1}: Enter saves, Escape cancels`, 'The item in your words', (value) =>
        planEdit({ op: 'reword', id: row.id, text: value }, 'text'))
    : wordsButton(row, () => openPlanInput({ kind: 'reword', id: row.id, value: row.label }));
  const tools = el('span', { className: 'plan-tools' },
    tool('✎', `Reword "${short}"`, `reword:${row.id}`, () => openPlanInput({ kind: 'reword', id: row.id, value: row.label })),
    tool('↑', `Move Up "${short}"`, `up:${row.id}`, () => planEdit({ op: 'move', id: row.id, delta: -1 }, 'up'), index === 0),
    tool('↓', `Move Down "${short}"`, `down:${row.id}`, () => planEdit({ op: 'move', id: row.id, delta: 1 }, 'down'), index === count - 1),
    tool('❝', `Comment on "${short}"`, `comment:${row.id}`, () => openPlanInput({ kind: 'comment', id: row.id, value: row.comment ?? '' })),
    tool('✕', `Delete "${short}"`, `delete:${row.id}`, () => planEdit({ op: 'delete', id: row.id }, 'text')),
  );
  const item = el('li', { className: row.marks.length ? 'plan-item marked' : 'plan-item' },
    el('div', { className: 'plan-line' },
      el('span', { className: 'plan-words' },
        text,
        ...row.marks.map((mark, i) =>
          el('span', { className: `badge mark ${mark.includes('revision') ? 'revision' : 'user'}`, text: row.shortMarks[i] ?? mark, title: mark })),
      ),
      rewording ? null : tools,
    ),
    commenting
      ? planTextBox(commenting, `Comment on item ${index + 1} for the agent: Enter saves (empty removes it), Escape cancels`, 'Your comment for the agent', (value) =>
          planEdit({ op: 'comment', id: row.id, text: value }, 'comment'))
      : row.comment
        ? el('div', { className: 'plan-comment', text: `Your comment: ${row.comment}` })
        : null,
  );
  item.dataset.itemId = row.id;
  return item;
}

/** Draws the card again from what it last showed; `focusId` ("end": the add button) gets the pending control's focus. */
function redrawPlan(focusId?: string): void {
  const was = document.activeElement;
  const active = was instanceof HTMLElement ? was.dataset.key : undefined;
  // A text box being typed in keeps its caret through a redraw (an edit in the Plan view).
  const caret = was instanceof HTMLInputElement ? ([was.selectionStart ?? 0, was.selectionEnd ?? 0, was.selectionDirection ?? 'none'] as const) : undefined;
  showPlanCard(planShown);
  // A box being typed in keeps the keyboard, whatever focus the host's card asks for.
  const typing = planInput && active === boxKey(planInput) ? active : undefined;
  const key = typing ?? (focusId === 'end' ? 'add:end' : focusId && planFocusControl ? `${planFocusControl}:${focusId}` : active);
  if (focusId) planFocusControl = null;
  const target = key ? planBox.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`) : null;
  if (target && target !== document.activeElement) target.focus();
  if (target instanceof HTMLInputElement && key === active && caret) {
    target.setSelectionRange(caret[0], caret[1], caret[2]);
  }
}

function showPlanCard(plan: PlanCard | null): void {
  planShown = plan;
  planBox.hidden = plan === null;
  if (!plan) {
    planInput = null;
    planBox.replaceChildren();
    return;
  }
  planInput = boxKept(planInput, plan); // closed when its item is gone (deleted in the Plan view)
  const open = planInput ? planBox.querySelector<HTMLInputElement>(`input[data-key="${CSS.escape(boxKey(planInput))}"]`) : null;
  liveBox = open;
  const adding = planInput?.kind === 'add' ? planInput : null;
  const list = el('ol', { className: 'plan-items' },
    ...plan.rows.map((row, index) => planRow(row, index, plan.rows.length)),
    ...plan.removed.map((text) =>
      el('li', { className: 'plan-item removed', label: `${text}, removed in this revision` },
        el('span', { className: 'plan-text', text }),
        el('span', { className: 'badge mark removed', text: 'removed', title: 'removed in this revision' }),
      ),
    ),
  );
  const addRow = adding
    ? planTextBox(adding, 'New item at the end of the plan: Enter adds it, Escape cancels', 'A new item, in your words', (value) =>
        planEdit({ op: 'add', text: value }, 'text'))
    : (() => {
        const node = button('+ Add item', () => openPlanInput({ kind: 'add', id: 'end', value: '' }), 'link add-item', 'Add an item at the end of the plan');
        node.dataset.key = 'add:end';
        return node;
      })();
  // The buttons stay in sight under the items, which scroll when the plan is long.
  planBox.replaceChildren(
    el('h2', { text: plan.title }),
    el('div', { className: 'plan-body' },
      list,
      el('div', { className: 'plan-add' }, addRow),
      ...(plan.summaryHtml ? [summaryBox(plan.summaryHtml)] : []),
    ),
    el('div', { className: 'buttons' },
      button('Run This Plan', () => post({ type: 'plan', action: 'run' }), 'primary', 'Run this plan: the agent carries it out as you left it'),
      button('Keep Planning', () => post({ type: 'plan', action: 'revise' }), 'secondary', 'Keep planning: your edits and comments go back to the agent for a revised plan'),
      button('Discard', () => post({ type: 'plan', action: 'discard' }), 'secondary', 'Discard the plan: nothing is changed'),
      button('Edit in Plan View', () => post({ type: 'plan', action: 'edit' }), 'link', 'Edit the plan in the Plan view: reword, reorder, delete, add, comment'),
    ),
  );
  liveBox = null;
  const title = planBox.querySelector('h2');
  if (title) title.id = 'plan-title';
}

modeAct.addEventListener('click', () => {
  mode = 'act';
  showMode();
  post({ type: 'setMode', mode: 'act' });
});
modePlan.addEventListener('click', () => {
  mode = 'plan';
  showMode();
  post({ type: 'setMode', mode: 'plan' });
});

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  const wasAtBottom = following();
  switch (message.type) {
    case 'reset': {
      const started = performance.now();
      hasSession = message.session;
      const place = readingPlace;
      readingPlace = undefined;
      forgetImages(message.sessionId);
      carryRunFolds(message.sessionId, place, message.cards.map((card) => card.id));
      reset(message.cards, message.earlier);
      showRunFolds();
      if (!place || !keepPlace(place, message.cards.map((card) => card.id))) {
        log.scrollTop = log.scrollHeight; // reading scrollHeight lays the page out
      }
      // What a long session's first view costs, for the e2e test's measurement.
      document.body.dataset.renderMs = (performance.now() - started).toFixed(1);
      document.body.dataset.cards = String(message.cards.length);
      if (message.timing) {
        document.body.dataset.requestMs = message.timing.requestMs.toFixed(1);
        document.body.dataset.buildMs = message.timing.buildMs.toFixed(1);
      }
      return;
    }
    case 'update':
      timeFirstCards(message.upserts);
      for (const id of message.removed) {
        drawn.get(id)?.remove();
        drawn.delete(id);
      }
      for (const card of message.upserts) upsert(card);
      if (foldedRuns.size > 0 || message.upserts.some((card) => card.kind === 'prompt' || card.kind === 'end')) showRunFolds();
      showEmpty();
      stickToBottom(wasAtBottom);
      return;
    case 'run':
      running = message.running;
      maxTurns = message.maxTurns ?? maxTurns;
      queued = message.queued;
      history = message.history;
      mode = message.mode;
      showMode();
      showRun(message.waiting);
      showRunFolds(); // the last run's prompt folds once it is over
      stickToBottom(wasAtBottom);
      return;
    case 'context':
      chip.hidden = !message.attached;
      chip.textContent = message.attached ? `Attaches: ${message.attached}` : '';
      return;
    case 'meter':
      // The context meter, the page's header: "Context 62 k / 200 k", amber near compaction.
      meterBox.hidden = !message.meter;
      meterBox.textContent = message.meter ? `Context ${message.meter.label}` : '';
      meterBox.title = message.meter?.tooltip ?? '';
      meterBox.classList.toggle('near', message.meter?.near === true);
      meterBox.setAttribute('aria-label', message.meter?.accessibilityLabel ?? '');
      return;
    case 'reveal':
      reveal(message.cardId);
      return;
    case 'prefill':
      input.value = message.text;
      completions.refresh();
      input.focus();
      return;
    case 'completions':
      completions.answered(message);
      return;
    case 'plan':
      // The same card again (a mode or state push) draws nothing: a box being typed in is left alone.
      if (!cardNeedsDrawing(planShown, message.plan, message.focus)) return;
      planShown = message.plan;
      redrawPlan(message.focus);
      stickToBottom(wasAtBottom); // the card took room from the log: its last cards stay in sight
      return;
    case 'image':
      imageArrived(message.key, message.url, message.problem);
      return;
    case 'running':
      runningRows = message.rows;
      drawRunning();
      stickToBottom(wasAtBottom);
      return;
  }
});

/** The plan's summary, as markdown.ts rendered it (no raw HTML, safe links only). */
function summaryBox(html: string): HTMLElement {
  const box = el('div', { className: 'plan-summary' });
  box.innerHTML = html;
  return box;
}

// -- The Running section: the session's background commands ----------------------------

let runningRows: RunningRow[] = [];

/** A command card's link to the row of the background command it started. */
function backgroundLink(id: string): HTMLButtonElement {
  const link = button(`${id} ›`, () => revealRunning(id), 'link background-link', `Show ${id} in the Running section`);
  link.title = `It runs in the background as ${id}: show it in the Running section`;
  return link;
}

function revealRunning(id: string): void {
  const row = runningBox.querySelector<HTMLElement>(`li[data-background-id="${CSS.escape(id)}"]`);
  if (row) {
    row.scrollIntoView({ block: 'nearest' });
    row.focus();
  } else {
    post({ type: 'background', action: 'output', id }); // no longer listed: its output still opens
  }
}

function drawRunning(): void {
  const rows = shownRows(runningRows);
  runningBox.hidden = rows.length === 0;
  if (!rows.length) {
    runningBox.replaceChildren();
    return;
  }
  const now = new Date();
  const live = rows.filter((row) => row.state === 'running');
  const title = el('h2', { text: `Running (${live.length})` });
  title.id = 'running-title';
  const head = el('div', { className: 'running-head' }, title,
    live.length > 1 ? button('Stop All', () => post({ type: 'background', action: 'stopAll' }), 'secondary', `Stop all ${live.length} background commands`) : null,
  );
  const list = el('ul', { className: 'running-list' });
  for (const row of rows) {
    const state = stateWords(row, now);
    const item = el('li', { className: `running-row ${row.state}`, label: `${row.id}: ${row.command}, ${state}` },
      el('code', { className: 'cmd', title: row.command }, breakable(`${row.id} $ ${shortCommand(row.command)}`)),
      el('span', { className: 'muted running-state', text: state }),
      ...row.ports.map((port) => {
        const { text, title: where } = portLabel(port);
        const link = button(text, () => post({ type: 'background', action: 'open', id: row.id, url: port.url }), 'link port', where);
        link.title = where;
        return link;
      }),
      button('Show Output', () => post({ type: 'background', action: 'output', id: row.id }), 'link', `Show the output of ${row.id}`),
      row.state === 'running' ? button('Stop', () => post({ type: 'background', action: 'stop', id: row.id }), 'secondary', `Stop ${row.id}`) : null,
    );
    item.dataset.backgroundId = row.id;
    item.tabIndex = -1;
    list.append(item);
  }
  runningBox.replaceChildren(head, list);
}

/** How long each runs, said again every second (only the words change: the buttons keep focus). */
setInterval(() => {
  if (!runningRows.some((row) => row.state === 'running')) return;
  const now = new Date();
  for (const row of shownRows(runningRows)) {
    const item = runningBox.querySelector<HTMLElement>(`li[data-background-id="${CSS.escape(row.id)}"] .running-state`);
    if (item) item.textContent = stateWords(row, now);
  }
}, 1000);

// -- The input box -----------------------------------------------------------------------

/**
 * Enter → the task's card, and → the agent's first card after it (its text or a tool
 * call), in ms, on the page's body for the e2e test's measurement (data-first-card-ms,
 * data-first-answer-ms).
 */
let sentAt: number | undefined;
let promptDrawn = false;

function timeFirstCards(upserts: ShownCard[]): void {
  if (sentAt === undefined) return;
  for (const card of upserts) {
    if (drawn.has(card.id)) continue; // only cards new to the page
    const took = (performance.now() - sentAt).toFixed(1);
    if (card.kind === 'prompt' && !promptDrawn) {
      promptDrawn = true;
      document.body.dataset.firstCardMs = took;
    } else if (promptDrawn && card.kind !== 'prompt' && card.kind !== 'notice') {
      document.body.dataset.firstAnswerMs = took;
      sentAt = undefined;
      return;
    }
  }
}

function submit(): void {
  const text = input.value.trim();
  if (!text) return;
  if (images.length && running) {
    status.textContent = 'Images can be sent once the run ends';
    return;
  }
  sentAt = performance.now();
  promptDrawn = false;
  delete document.body.dataset.firstCardMs;
  delete document.body.dataset.firstAnswerMs;
  post(images.length ? { type: 'send', text, images: images.map(({ data, mediaType }) => ({ data, mediaType })) } : { type: 'send', text });
  stickToBottom(true); // the one who sends follows the run, wherever the log was scrolled
  history = [...history.filter((h) => h !== text), text].slice(-50);
  historyIndex = -1;
  input.value = '';
  completions.refresh();
  images = [];
  showImages();
}

// -- Images pasted or dropped into the input: thumbnail chips, sent with the task ------------

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const MAX_IMAGES = 20; // what the host takes (core/conversationStore.ts)
let images: (PromptImage & { url: string; name: string })[] = [];

function addImages(files: File[]): void {
  for (const file of files) {
    if (!IMAGE_TYPES.includes(file.type) || images.length >= MAX_IMAGES) continue;
    const reader = new FileReader();
    reader.onload = () => {
      const url = typeof reader.result === 'string' ? reader.result : '';
      const data = url.slice(url.indexOf(',') + 1);
      if (data) {
        images = [...images, { data, mediaType: file.type, url, name: file.name || 'pasted image' }];
        showImages();
      }
    };
    reader.readAsDataURL(file);
  }
}

function showImages(): void {
  imagesBox.hidden = images.length === 0;
  imagesBox.replaceChildren(
    ...images.map((image, index) => {
      const thumb = el('img', { className: 'thumb', label: image.name });
      thumb.src = image.url;
      thumb.alt = image.name;
      const remove = el('button', { className: 'secondary remove', text: '×', label: `Remove ${image.name}`, title: 'Remove' });
      remove.type = 'button';
      remove.addEventListener('click', () => {
        images = images.filter((_, i) => i !== index);
        showImages();
      });
      return el('li', { className: 'image-chip' }, thumb, remove);
    }),
  );
}

input.addEventListener('paste', (event) => {
  const files = Array.from(event.clipboardData?.files ?? []).filter((file) => IMAGE_TYPES.includes(file.type));
  if (files.length) {
    event.preventDefault();
    addImages(files);
  }
});
input.addEventListener('dragover', (event) => {
  if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
});
input.addEventListener('drop', (event) => {
  const files = Array.from(event.dataTransfer?.files ?? []).filter((file) => IMAGE_TYPES.includes(file.type));
  if (files.length) {
    event.preventDefault();
    addImages(files);
  }
});

input.addEventListener('keydown', (event) => {
  if (completions.keydown(event)) return;
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    submit();
    return;
  }
  // Escape in an empty box stops the run (with text in it, the text stays and so does the run).
  if (event.key === 'Escape' && !event.isComposing && running && !input.value.trim() && !images.length) {
    event.preventDefault();
    event.stopPropagation();
    status.textContent = 'Cancelling…';
    post({ type: 'cancel' });
    return;
  }
  const before = input.value.slice(0, input.selectionStart);
  const after = input.value.slice(input.selectionEnd);
  if (event.key === 'ArrowUp' && !before.includes('\n') && history.length) {
    event.preventDefault();
    if (historyIndex === -1) {
      draft = input.value;
      historyIndex = history.length;
    }
    historyIndex = Math.max(0, historyIndex - 1);
    input.value = history[historyIndex] ?? '';
    completions.refresh();
  } else if (event.key === 'ArrowDown' && !after.includes('\n') && historyIndex !== -1) {
    event.preventDefault();
    historyIndex += 1;
    if (historyIndex >= history.length) {
      historyIndex = -1;
      input.value = draft;
    } else {
      input.value = history[historyIndex] ?? '';
    }
    completions.refresh();
  }
});
send.addEventListener('click', submit);
cancel.addEventListener('click', () => post({ type: 'cancel' }));
earlier.addEventListener('click', () => {
  readingPlace = currentPlace();
  earlier.disabled = true;
  post({ type: 'loadEarlier' });
});

// Links in the model's text: opened by the host (which checks the address again).
document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('a') : null;
  if (target) {
    event.preventDefault();
    const href = target.getAttribute('href');
    if (href) post({ type: 'openLink', href });
  }
});

showEmpty();
showRun(0);
post({ type: 'ready' });
