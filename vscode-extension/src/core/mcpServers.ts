/**
 * The MCP Servers view's rows: one per server of workspaceAgent/mcpServers, its state and
 * where it is configured, its tools as children once it is ready; which row actions apply
 * (Restart, Trust, Disable / Enable, as `contextValue` flags for package.json's menus);
 * and what an action's error offers as the next step (a button).
 *
 * Pure logic (no `vscode` import), unit-tested; mcpView.ts turns these rows into TreeItems.
 */
import { MCP_NEXT_STEPS, type McpNextStep, type McpServerState } from '../protocol';

/** Codicon ids that exist in VS Code; `loading~spin` is the animated spinner. */
export type McpIcon = 'loading~spin' | 'pass-filled' | 'error' | 'debug-stop' | 'workspace-untrusted' | 'circle-slash' | 'tools';

/** Theme colour ids for the icons. */
export type McpIconColor = 'testing.iconPassed' | 'testing.iconFailed' | 'list.warningForeground' | 'disabledForeground';

/** `contextValue` flags the menus test with `viewItem =~ /\bflag\b/`. */
export const MCP_ROW_FLAGS = ['restartable', 'trustable', 'disableable', 'enableable'] as const;
export type McpRowFlag = (typeof MCP_ROW_FLAGS)[number];

export interface McpToolRow {
  kind: 'tool';
  id: string;
  label: string;
  tooltip: string;
  accessibilityLabel: string;
}

export interface McpServerRow {
  kind: 'server';
  /** `server:NAME`: stable across updates, so the tree keeps what is expanded. */
  id: string;
  name: string;
  label: string;
  /** State first, then where it comes from: "2 tools · settings" (a failure: its reason alone). */
  description: string;
  tooltip: string;
  icon: McpIcon;
  iconColor?: McpIconColor;
  /** "mcpServer" and the actions that apply, e.g. "mcpServer restartable disableable". */
  contextValue: string;
  accessibilityLabel: string;
  /** The tools, when ready (else empty). */
  children: McpToolRow[];
  /** The state the row was made from (actions send its name and fingerprint). */
  state: McpServerState;
}

const SOURCE_WORDS: Record<McpServerState['source'], string> = {
  user: 'user mcp.json',
  editor: 'settings',
  workspace: 'workspace',
  acp: 'ACP client',
  'command line': 'command line',
};

/** Where a server is configured, in a word or two: "settings", "user mcp.json", ".mcp.json". */
export function sourceWords(server: McpServerState): string {
  if (server.source === 'workspace') {
    return server.origin;
  }
  return SOURCE_WORDS[server.source] ?? server.source;
}

/** The state in a few words: "starting…", "2 tools", "failed: it exited", "not trusted", "disabled". */
export function stateWords(server: McpServerState): string {
  switch (server.state) {
    case 'starting':
      return 'starting…';
    case 'ready':
      return server.tools === 1 ? '1 tool' : `${server.tools} tools`;
    case 'failed':
      return server.reason ? `failed: ${server.reason}` : 'failed';
    case 'not started':
      return server.source === 'workspace' ? 'not trusted' : `not started${server.reason ? `: ${server.reason}` : ''}`;
    case 'disabled':
      return 'disabled';
    case 'stopped':
      return 'stopped';
  }
}

function icon(server: McpServerState): Pick<McpServerRow, 'icon' | 'iconColor'> {
  switch (server.state) {
    case 'starting':
      return { icon: 'loading~spin' };
    case 'ready':
      return { icon: 'pass-filled', iconColor: 'testing.iconPassed' };
    case 'failed':
      return { icon: 'error', iconColor: 'testing.iconFailed' };
    case 'not started':
      return { icon: 'workspace-untrusted', iconColor: 'list.warningForeground' };
    case 'disabled':
      return { icon: 'circle-slash', iconColor: 'disabledForeground' };
    case 'stopped':
      return { icon: 'debug-stop' };
  }
}

/** The row actions that apply to a server in this state. */
export function rowFlags(server: McpServerState): McpRowFlag[] {
  const flags: McpRowFlag[] = [];
  if (['starting', 'ready', 'failed', 'stopped'].includes(server.state)) {
    flags.push('restartable');
  }
  if (server.state === 'not started' && server.source === 'workspace' && server.fingerprint) {
    flags.push('trustable');
  }
  flags.push(server.state === 'disabled' ? 'enableable' : 'disableable');
  return flags;
}

function tooltip(server: McpServerState): string {
  const from = server.source === 'workspace' ? `the workspace's ${server.origin}` : `${sourceWords(server)} (${server.origin})`;
  const lines = [`MCP server ${server.name}: ${stateWords(server)}`, `From: ${from}`];
  if (server.detail) {
    lines.push(`Runs: ${server.detail}`);
  }
  if (server.state === 'not started' && server.source === 'workspace') {
    lines.push("A workspace's server starts only once you trust this exact config (Trust).");
  } else if (server.state === 'disabled') {
    lines.push('Turned off by you; Enable starts it again.');
  } else if (server.state === 'failed') {
    lines.push('Restart starts it again (with its config as it is now).');
  }
  return lines.join('\n');
}

/** One row per server, in the server's order; a ready server's tools as its children. */
export function mcpRows(servers: readonly McpServerState[]): McpServerRow[] {
  return servers.map((server) => {
    const names = server.state === 'ready' ? (server.toolNames ?? []) : [];
    const state = stateWords(server);
    return {
      kind: 'server',
      id: `server:${server.name}`,
      name: server.name,
      label: server.name,
      // A failure's reason is what matters (the source is in the tooltip): the row is narrow.
      description: server.state === 'failed' ? state : `${state} · ${sourceWords(server)}`,
      tooltip: tooltip(server),
      ...icon(server),
      contextValue: ['mcpServer', ...rowFlags(server)].join(' '),
      accessibilityLabel: `MCP server ${server.name}, ${state}, from ${sourceWords(server)}`,
      children: names.map((tool) => ({
        kind: 'tool',
        id: `tool:${server.name}:${tool}`,
        label: tool,
        tooltip: `${tool}, a tool of the MCP server ${server.name} (each call is asked about unless approvals.mcp allows it)`,
        accessibilityLabel: `tool ${tool} of ${server.name}`,
      })),
      state: server,
    };
  });
}

/** The view's description: what needs a look ("1 failed, 1 not trusted"), else how many run. */
export function mcpSummary(servers: readonly McpServerState[]): string {
  const count = (state: McpServerState['state']) => servers.filter((s) => s.state === state).length;
  const attention = [
    [count('failed'), 'failed'],
    [servers.filter((s) => s.state === 'not started' && s.source === 'workspace').length, 'not trusted'],
  ].filter(([n]) => Number(n) > 0);
  if (attention.length) {
    return attention.map(([n, word]) => `${n} ${word}`).join(', ');
  }
  const ready = count('ready');
  return servers.length ? `${ready}/${servers.length} ready` : '';
}

/** What an action's error says, and the next step it names (`data.nextStep`, docs/protocol.md). */
export function mcpError(error: unknown): { message: string; nextStep?: McpNextStep } {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : String(error);
  const data: unknown = typeof error === 'object' && error !== null ? (error as { data?: unknown }).data : undefined;
  const step = typeof data === 'object' && data !== null ? (data as { nextStep?: unknown }).nextStep : undefined;
  return (MCP_NEXT_STEPS as readonly unknown[]).includes(step) ? { message, nextStep: step as McpNextStep } : { message };
}

/** The button that takes the next step. */
export const NEXT_STEP_BUTTONS: Record<McpNextStep, string> = {
  trust: 'Trust…',
  enable: 'Enable',
  restart: 'Restart',
  openSettings: 'Open MCP Settings',
};

/** The question before trusting (a modal's message and detail): what will run, what trust means. */
export function trustQuestion(server: McpServerState): { message: string; detail: string } {
  return {
    message: `Trust the MCP server ${server.name} from the workspace's ${server.origin}?`,
    detail:
      `It runs ${server.detail ?? 'a program'} on your machine, with your permissions.\n\n` +
      'The trust is kept outside the repository, for this exact config: any change asks again.',
  };
}
