/**
 * Words for the status-bar item and for the message at the end of a run.
 *
 * Pure so the exact text the user reads is unit-tested; status.ts only copies it onto a
 * StatusBarItem and result messages onto a notification.
 */
import type { CostEstimate, RunResult, SandboxStatus, StopReason, TodoItem, Usage } from '../protocol';
import { planProgress } from './plan';
import type { LastRun, RunPhase } from './state';

export interface StatusView {
  /** With codicons, e.g. "$(loading~spin) Agent 2/5 · Write the tests"; an icon alone when idle. */
  text: string;
  tooltip: string;
  /** Read by screen readers; starts with "Workspace Agent". */
  accessibilityLabel: string;
  /** 'error' and 'warning' select the status bar's error/warning background. */
  tone: 'normal' | 'warning' | 'error';
}

const MAX_ITEM_CHARS = 40;

/** What the status bar and the progress say while a question waits for the user. */
export const WAITING_WORDS = 'Waiting for your approval';

export function shorten(text: string, limit = MAX_ITEM_CHARS): string {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? '';
  return line.length <= limit ? line : `${line.slice(0, limit - 1)}…`;
}

const FINISHED: Record<StopReason, { icon: string; word: string; tone: StatusView['tone'] }> = {
  end_turn: { icon: '$(pass)', word: 'done', tone: 'normal' },
  stop_sequence: { icon: '$(pass)', word: 'done (at a stop sequence)', tone: 'normal' },
  cancelled: { icon: '$(circle-slash)', word: 'cancelled', tone: 'normal' },
  max_turns: { icon: '$(warning)', word: 'turn limit reached', tone: 'warning' },
  budget: { icon: '$(warning)', word: 'token budget reached', tone: 'warning' },
  refusal: { icon: '$(warning)', word: 'the model declined', tone: 'warning' },
  error: { icon: '$(error)', word: 'error', tone: 'error' },
  planReady: { icon: '$(checklist)', word: 'plan ready', tone: 'normal' },
};

/** "48,210 tokens (40,100 in, 8,000 cache read, 110 out)". */
export function tokenWords(usage: Usage): string {
  const count = (n: number | undefined): string => (n ?? 0).toLocaleString('en-US');
  const total = usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) + usage.outputTokens;
  const parts = [`${count(usage.inputTokens)} in`];
  if (usage.cacheReadTokens) parts.push(`${count(usage.cacheReadTokens)} cache read`);
  if (usage.cacheWriteTokens) parts.push(`${count(usage.cacheWriteTokens)} cache write`);
  parts.push(`${count(usage.outputTokens)} out`);
  return `${count(total)} tokens (${parts.join(', ')})`;
}

/** "≈ $0.27", "≈ $0.0031" (cents below a dime keep 4 places); undefined without a usable estimate. */
export function costAmount(cost: CostEstimate | null | undefined): string | undefined {
  if (!cost || typeof cost.usd !== 'number' || !Number.isFinite(cost.usd) || cost.usd < 0) {
    return undefined;
  }
  if (cost.usd > 0 && cost.usd < 0.0001) {
    return '< $0.0001';
  }
  return `≈ $${cost.usd === 0 || cost.usd >= 0.1 ? cost.usd.toFixed(2) : cost.usd.toFixed(4)}`;
}

/** "≈ $0.27 (estimate at claude-sonnet-4-5 list prices)", or why there is none. */
export function costWords(cost: CostEstimate | null | undefined): string {
  const amount = costAmount(cost);
  if (!amount || !cost) {
    return 'no cost estimate (no list price known for the model)';
  }
  return `${amount} (estimate at ${typeof cost.model === 'string' ? cost.model : 'the model'} list prices)`;
}

/** The tooltip's line about the last run, or nothing before the first. */
function lastRunLine(lastRun: LastRun | undefined): string {
  return lastRun ? `\nLast run: ${tokenWords(lastRun.usage)} · ${costWords(lastRun.cost)}` : '';
}

/** The status-bar item for a phase and a plan (and the last run's tokens and cost). */
export function statusView(phase: RunPhase, items: readonly TodoItem[], lastRun?: LastRun, waiting = 0): StatusView {
  const { fraction, current } = planProgress(items);
  const spent = lastRunLine(lastRun);
  if (phase.kind === 'running' && waiting > 0) {
    return {
      text: `$(bell-dot) ${WAITING_WORDS}`,
      tooltip: `Workspace Agent is waiting for your approval: ${shorten(phase.prompt, 80)}\nClick to answer in the Conversation view.`,
      accessibilityLabel: `Workspace Agent: ${WAITING_WORDS.toLowerCase()}`,
      tone: 'warning',
    };
  }
  switch (phase.kind) {
    case 'idle':
      // Quiet: an icon only; the words are in the tooltip and for screen readers.
      return {
        text: '$(hubot)',
        tooltip: `Workspace Agent: click to run a task${spent}`,
        accessibilityLabel: 'Workspace Agent: idle',
        tone: 'normal',
      };
    case 'running': {
      const detail = fraction ? `${fraction}${current ? ` · ${shorten(current.text)}` : ''}` : 'working…';
      return {
        text: `$(loading~spin) Agent ${detail}`,
        tooltip: `Workspace Agent is running: ${shorten(phase.prompt, 80)}${spent}\nClick to show the conversation.`,
        accessibilityLabel: `Workspace Agent: running ${detail}`,
        tone: 'normal',
      };
    }
    case 'finished': {
      const how = FINISHED[phase.stopReason] ?? FINISHED.error;
      const detail = fraction ? ` ${fraction}` : '';
      // Idle again: only the outcome's icon (the result message said the rest).
      return {
        text: how.icon,
        tooltip: `Workspace Agent: last run ${how.word}${detail}${phase.error ? `: ${phase.error}` : ''}${spent}\nClick to show the conversation.`,
        accessibilityLabel: `Workspace Agent: ${how.word}${detail}`,
        tone: how.tone,
      };
    }
    case 'failed':
      return {
        text: '$(error)',
        tooltip: `Workspace Agent: the run failed: ${phase.error}${spent}\nClick to show the conversation.`,
        accessibilityLabel: 'Workspace Agent: failed',
        tone: 'error',
      };
  }
}

export interface ResultMessage {
  severity: 'info' | 'warning' | 'error';
  text: string;
}

/**
 * The short notification at the end of a run. `planOfThisRun` false: the run left the plan
 * as an earlier run made it (a question after a finished plan), so it is not named.
 */
export function resultMessage(result: RunResult, planOfThisRun = true): ResultMessage {
  const { fraction } = planProgress(planOfThisRun ? result.todos : []);
  const plan = fraction ? ` (${fraction} plan items completed)` : '';
  switch (result.stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return { severity: 'info', text: `Workspace Agent: done${plan}.` };
    case 'cancelled':
      return { severity: 'info', text: `Workspace Agent: run cancelled${plan}.` };
    case 'max_turns':
      return {
        severity: 'warning',
        text: `Workspace Agent: stopped at the turn limit${plan}. Run again to continue, or raise workspaceAgent.maxTurns.`,
      };
    case 'budget':
      return {
        severity: 'warning',
        text: `Workspace Agent: stopped at the token budget${plan}. Run again to continue, or raise workspaceAgent.maxRunTokens.`,
      };
    case 'refusal':
      return {
        severity: 'warning',
        text: `Workspace Agent: the model declined to go on with this request${plan}. Rephrase the task, or start a new session.`,
      };
    case 'planReady':
      return {
        severity: 'info',
        text: `Workspace Agent: the plan is ready (${result.todos.length} items). Nothing was changed: shape it in the Plan view, then Run This Plan or Keep Planning.`,
      };
    case 'error':
    default:
      return {
        severity: 'error',
        text: `Workspace Agent: error: ${result.error ?? 'the run stopped on an error'}`,
      };
  }
}

/** The status bar's tooltip with the sandbox's line under it (once the server said it). */
export function withSandbox(tooltip: string, sandbox: SandboxStatus | undefined): string {
  return sandbox ? `${tooltip}\n${sandbox.message}` : tooltip;
}

/**
 * The sandbox's state in the status bar's text (not only its tooltip): "sandbox on", or
 * "sandbox off" (the user's setting), or "no sandbox" when it cannot start here (the
 * commands are then asked about); nothing before the server said it.
 */
export function sandboxText(sandbox: SandboxStatus | undefined): { text: string; label: string } | undefined {
  if (!sandbox) return undefined;
  if (sandbox.active) return { text: '$(shield) sandbox on', label: 'commands run in the sandbox' };
  if (sandbox.mode === 'off') return { text: '$(unlock) sandbox off', label: 'the sandbox is off (sandbox.mode)' };
  return { text: '$(warning) no sandbox', label: `no sandbox: ${sandbox.reason ?? 'it cannot start here'}` };
}
