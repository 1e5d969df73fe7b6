/**
 * Subagents in the Plan view: each `task` call's subagent (the `subagent` events) under
 * the plan step it works for, its own plan as its rows, live while it works and with how
 * it ended after (its tokens and cost). Kept per session from the start of a run: a new
 * run's subagents replace the last one's. A subagent whose step is not in the plan (none
 * was in progress) gets a row of its own after the plan.
 *
 * Pure (no `vscode` import): planView.ts turns the nodes into TreeItems.
 */
import type { AgentEvent, StopReason, SubagentEvent, Usage } from '../protocol';
import type { GroupNode, StepNode, SubagentNode, SubtaskNode, TreeNode } from './changeRows';
import { planRows } from './plan';
import { costAmount } from './status';

/** What the Plan view keeps of a subagent: its latest `subagent` event. */
export type SubagentPlan = Omit<SubagentEvent, 'sessionId' | 'kind'>;

const ENDED: Partial<Record<StopReason, string>> = {
  end_turn: 'done',
  stop_sequence: 'done',
  max_turns: 'stopped at its turn limit',
  budget: 'stopped at the token budget',
  refusal: 'the model declined',
  error: 'stopped by an error',
  cancelled: 'cancelled',
};

export class SubagentPlans {
  private readonly sessions = new Map<string, Map<string, SubagentPlan>>();
  private readonly listeners = new Set<() => void>();

  /** A workspaceAgent/event: a run's start forgets the session's last subagents. */
  accept(event: AgentEvent): void {
    if (event.kind === 'runStart') {
      if (this.sessions.delete(event.sessionId)) {
        this.changed();
      }
      return;
    }
    if (event.kind !== 'subagent') {
      return;
    }
    const plan: SubagentPlan = {
      toolUseId: event.toolUseId,
      agent: event.agent,
      description: event.description,
      todoId: event.todoId,
      items: event.items,
      toolCalls: event.toolCalls,
      ...(event.stopReason !== undefined ? { stopReason: event.stopReason } : {}),
      ...(event.usage !== undefined ? { usage: event.usage } : {}),
      ...(event.cost !== undefined ? { cost: event.cost } : {}),
    };
    const plans = this.sessions.get(event.sessionId) ?? new Map<string, SubagentPlan>();
    plans.set(plan.toolUseId, plan);
    this.sessions.set(event.sessionId, plans);
    this.changed();
  }

  /** The session's subagents, in the order they started. */
  of(sessionId: string | undefined): SubagentPlan[] {
    return sessionId === undefined ? [] : [...(this.sessions.get(sessionId)?.values() ?? [])];
  }

  onChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      listener();
    }
  }
}

function tokens(usage: Usage | undefined): number {
  return usage ? usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) + usage.outputTokens : 0;
}

/** "2/3 · working", "done · 1,234 tokens · ≈ $0.0123", "cancelled". */
export function subagentWords(plan: Pick<SubagentPlan, 'items' | 'stopReason' | 'usage' | 'cost'>, stopped = false): string {
  const done = plan.items.filter((item) => item.status === 'completed').length;
  const progress = plan.items.length ? `${done}/${plan.items.length}` : '';
  if (plan.stopReason === undefined) {
    return [progress, stopped ? 'stopped' : 'working'].filter(Boolean).join(' · ');
  }
  const used = tokens(plan.usage);
  const cost = used ? costAmount(plan.cost) : undefined;
  return [ENDED[plan.stopReason] ?? plan.stopReason, used ? `${used.toLocaleString('en-US')} tokens` : '', cost ?? '']
    .filter(Boolean)
    .join(' · ');
}

/** A subagent's row, its plan's items its children (`parentId`: its step's row). */
export function subagentNode(parentId: string, plan: SubagentPlan, stopped = false): SubagentNode {
  const id = `${parentId}/subagent:${plan.toolUseId}`;
  const running = plan.stopReason === undefined && !stopped;
  const ended = plan.stopReason;
  const words = subagentWords(plan, stopped);
  const label = `${plan.agent}: ${plan.description}`;
  const rows = planRows(plan.items, !running);
  const children: SubtaskNode[] = plan.items.map((item, index) => {
    const row = rows[index];
    return {
      kind: 'subtask',
      id: `${id}/item:${item.id}`,
      label: row.label,
      description: row.description,
      tooltip: `${row.tooltip}\nIn the plan of the subagent ${plan.agent}`,
      accessibilityLabel: `${row.accessibilityLabel}, in the subagent's plan`,
      icon: row.icon,
      ...(row.iconColor ? { iconColor: row.iconColor } : {}),
    };
  });
  const failed = ended !== undefined && ended !== 'end_turn' && ended !== 'stop_sequence';
  return {
    kind: 'subagent',
    id,
    toolUseId: plan.toolUseId,
    label,
    description: words,
    tooltip: `Subagent ${plan.agent}: ${plan.description}\n${words}${plan.toolCalls ? `\n${plan.toolCalls} tool call${plan.toolCalls === 1 ? '' : 's'}` : ''}\nWhat it changes belongs to this step.`,
    accessibilityLabel: `Subagent ${label}, ${words}`,
    icon: running ? 'loading~spin' : ended === 'cancelled' || (ended === undefined && stopped) ? 'circle-slash' : failed ? 'error' : 'hubot',
    running,
    children,
  };
}

/**
 * The Plan view's tree with the subagents in: each under its step's row (before what the
 * step changed), those of no row shown after the plan.
 */
export function withSubagents(nodes: (StepNode | GroupNode)[], plans: readonly SubagentPlan[], stopped = false): TreeNode[] {
  if (!plans.length) {
    return nodes;
  }
  const placed = new Set<SubagentPlan>();
  const tree: TreeNode[] = nodes.map((node) => {
    if (node.kind !== 'step' || node.todoId === null || node.id !== `item:${node.todoId}`) {
      return node;
    }
    const mine = plans.filter((plan) => plan.todoId === node.todoId);
    mine.forEach((plan) => placed.add(plan));
    return mine.length ? { ...node, children: [...mine.map((plan) => subagentNode(node.id, plan, stopped)), ...node.children] } : node;
  });
  const rest = plans.filter((plan) => !placed.has(plan)).map((plan) => subagentNode('subagents', plan, stopped));
  return [...tree, ...rest];
}
