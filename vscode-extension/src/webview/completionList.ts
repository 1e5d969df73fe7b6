/// <reference lib="dom" />
/**
 * The Conversation input's completion popup (page side): `@` lists the special mentions
 * and the workspace's files and folders, `/` at the start the slash commands. The host is
 * asked once per opening of the list (a `complete` message); what the user types then
 * narrows the answer here, with core/completion.ts. A listbox the textarea controls
 * (aria-activedescendant), so screen readers follow Up and Down; the mentions chosen
 * from it show as chips above the input while the text still holds them.
 */
import { type CompletionItem, type Trigger, MAX_ROWS, applyChoice, mentionsIn, rank, triggerAt } from '../core/completion';
import type { FromWebview, ToWebview } from '../core/conversationStore';

type Completions = Extract<ToWebview, { type: 'completions' }>;

export interface CompletionList {
  /** True when the key was the list's (the input must not act on it too). */
  keydown(event: KeyboardEvent): boolean;
  answered(message: Completions): void;
  /** The input's text changed from outside (sent, prefilled, history). */
  refresh(): void;
}

export function completionList(input: HTMLTextAreaElement, list: HTMLUListElement, chips: HTMLUListElement, post: (message: FromWebview) => void): CompletionList {
  let trigger: Trigger | null = null;
  let candidates: CompletionItem[] | null = null; // the host's answer, for this opening
  let problem = '';
  let requestId = 0;
  let rows: CompletionItem[] = [];
  let active = 0;
  const chosen = new Set<string>(); // the mentions taken from the list: they show as chips

  const close = (): void => {
    trigger = null;
    candidates = null;
    rows = [];
    list.hidden = true;
    list.replaceChildren();
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  };

  const draw = (): void => {
    if (!trigger) return;
    rows = candidates ? rank(trigger.query, candidates, MAX_ROWS) : [];
    active = Math.min(active, Math.max(rows.length - 1, 0));
    const words = candidates === null ? 'Looking…' : problem || (trigger.kind === 'command' ? 'No slash command matches' : 'No file matches');
    list.replaceChildren(
      ...(rows.length
        ? rows.map((item, index) => {
            const row = document.createElement('li');
            row.id = `completion-${index}`;
            row.setAttribute('role', 'option');
            row.setAttribute('aria-selected', String(index === active));
            row.className = `completion ${item.kind}`;
            const label = document.createElement('span');
            label.className = 'label';
            label.textContent = item.label;
            row.append(label);
            if (item.hint) row.append(span('hint', item.hint));
            if (item.detail) row.append(span('detail', item.detail));
            row.setAttribute('aria-label', [item.label, item.hint, item.detail].filter(Boolean).join(', '));
            row.title = [item.label, item.hint, item.detail].filter(Boolean).join('  '); // a narrow view cuts the detail
            // mousedown, not click: the input keeps the focus (and its caret).
            row.addEventListener('mousedown', (event) => {
              event.preventDefault();
              choose(item);
            });
            return row;
          })
        : [Object.assign(document.createElement('li'), { className: 'empty', textContent: words })]),
    );
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    if (rows.length) {
      input.setAttribute('aria-activedescendant', `completion-${active}`);
      document.getElementById(`completion-${active}`)?.scrollIntoView({ block: 'nearest' });
    } else {
      input.removeAttribute('aria-activedescendant');
    }
  };

  const choose = (item: CompletionItem): void => {
    if (!trigger) return;
    const next = applyChoice(input.value, input.selectionStart, trigger, item);
    input.value = next.text;
    input.setSelectionRange(next.caret, next.caret);
    if (item.kind !== 'command') chosen.add(item.insert.trim());
    close();
    showChips();
    input.focus();
  };

  const showChips = (): void => {
    const mentions = mentionsIn(input.value).filter((mention) => chosen.has(mention));
    chips.hidden = mentions.length === 0;
    chips.replaceChildren(...mentions.map((mention) => {
      const chip = span('chip mention-chip', mention);
      chip.title = `The agent gets ${mention}'s content with the task`;
      const item = document.createElement('li');
      item.append(chip);
      return item;
    }));
  };

  const update = (): void => {
    showChips();
    const now = input.selectionStart === input.selectionEnd ? triggerAt(input.value, input.selectionStart) : null;
    if (!now) {
      close();
      return;
    }
    const reopened = !trigger || trigger.kind !== now.kind || trigger.start !== now.start;
    trigger = now;
    if (reopened) {
      candidates = null;
      problem = '';
      active = 0;
      post({ type: 'complete', kind: now.kind, requestId: ++requestId });
    }
    draw();
  };

  input.addEventListener('input', update);
  input.addEventListener('click', update);
  input.addEventListener('blur', close);

  return {
    keydown(event: KeyboardEvent): boolean {
      if (!trigger || event.isComposing) return false;
      const move = (by: number): void => {
        if (rows.length) active = (active + by + rows.length) % rows.length;
        draw();
      };
      switch (event.key) {
        case 'ArrowDown':
          move(1);
          break;
        case 'ArrowUp':
          move(-1);
          break;
        case 'Enter':
        case 'Tab': {
          if (event.shiftKey) return false;
          const item = rows[active];
          if (!item) {
            if (event.key === 'Tab') return false; // nothing to choose: Tab moves the focus
            close();
            return false; // Enter sends what is typed
          }
          choose(item);
          break;
        }
        case 'Escape':
          close();
          break;
        default:
          return false;
      }
      event.preventDefault();
      event.stopPropagation();
      return true;
    },
    answered(message: Completions): void {
      if (!trigger || message.requestId !== requestId) return;
      candidates = message.items;
      problem = message.problem ?? '';
      draw();
    },
    refresh(): void {
      close();
      showChips();
    },
  };
}

function span(className: string, text: string): HTMLSpanElement {
  const node = document.createElement('span');
  node.className = className;
  node.textContent = text;
  return node;
}
