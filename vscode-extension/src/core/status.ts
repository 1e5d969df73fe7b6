/**
 * Words for the status-bar item and for the message at the end of a run.
 *
 * Pure so the exact text the user reads is unit-tested; status.ts only copies it onto a
 * StatusBarItem and result messages onto a notification.
 */
import type { RunResult, StopReason, TodoItem } from '../protocol';
import { planProgress } from './plan';
import type { RunPhase } from './state';

export interface StatusView {
  /** With codicons, e.g. "$(loading~spin) Agent 2/5 · Write the tests". */
  text: string;
  tooltip: string;
  /** Read by screen readers; starts with "Workspace Agent". */
  accessibilityLabel: string;
  /** 'error' and 'warning' select the status bar's error/warning background. */
  tone: 'normal' | 'warning' | 'error';
}

const MAX_ITEM_CHARS = 40;

export function shorten(text: string, limit = MAX_ITEM_CHARS): string {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? '';
  return line.length <= limit ? line : `${line.slice(0, limit - 1)}…`;
}

const FINISHED: Record<StopReason, { icon: string; word: string; tone: StatusView['tone'] }> = {
  end_turn: { icon: '$(pass)', word: 'done', tone: 'normal' },
  cancelled: { icon: '$(circle-slash)', word: 'cancelled', tone: 'normal' },
  max_turns: { icon: '$(warning)', word: 'turn limit reached', tone: 'warning' },
  budget: { icon: '$(warning)', word: 'token budget reached', tone: 'warning' },
  error: { icon: '$(error)', word: 'error', tone: 'error' },
};

/** The status-bar item for a phase and a plan. */
export function statusView(phase: RunPhase, items: readonly TodoItem[]): StatusView {
  const { fraction, current } = planProgress(items);
  switch (phase.kind) {
    case 'idle':
      return {
        text: '$(hubot) Agent',
        tooltip: 'Workspace Agent: Run Task…',
        accessibilityLabel: 'Workspace Agent: idle',
        tone: 'normal',
      };
    case 'running': {
      const detail = fraction ? `${fraction}${current ? ` · ${shorten(current.text)}` : ''}` : 'working…';
      return {
        text: `$(loading~spin) Agent ${detail}`,
        tooltip: `Workspace Agent is running: ${shorten(phase.prompt, 80)}\nClick to show the transcript.`,
        accessibilityLabel: `Workspace Agent: running ${detail}`,
        tone: 'normal',
      };
    }
    case 'finished': {
      const how = FINISHED[phase.stopReason] ?? FINISHED.error;
      const detail = fraction ? ` ${fraction}` : '';
      return {
        text: `${how.icon} Agent: ${how.word}${detail}`,
        tooltip: `Workspace Agent: last run ${how.word}${phase.error ? `: ${phase.error}` : ''}\nClick to show the transcript.`,
        accessibilityLabel: `Workspace Agent: ${how.word}${detail}`,
        tone: how.tone,
      };
    }
    case 'failed':
      return {
        text: '$(error) Agent: failed',
        tooltip: `Workspace Agent: the run failed: ${phase.error}\nClick to show the transcript.`,
        accessibilityLabel: 'Workspace Agent: failed',
        tone: 'error',
      };
  }
}

export interface ResultMessage {
  severity: 'info' | 'warning' | 'error';
  text: string;
}

/** The short notification at the end of a run. */
export function resultMessage(result: RunResult): ResultMessage {
  const { fraction } = planProgress(result.todos);
  const plan = fraction ? ` (${fraction} plan items completed)` : '';
  switch (result.stopReason) {
    case 'end_turn':
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
    case 'error':
    default:
      return {
        severity: 'error',
        text: `Workspace Agent: error: ${result.error ?? 'the run stopped on an error'}`,
      };
  }
}
