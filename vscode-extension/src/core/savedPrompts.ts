/**
 * Run Saved Prompt…: the server's slash commands (workspaceAgent/commands) as QuickPick
 * items, and the prompt a pick becomes. The server resolves `/NAME ARGUMENTS` itself
 * (skills, saved prompts from the workspace, `.claude/commands` and the user's folder,
 * and the built-ins), so the extension only lists and sends. Pure (no `vscode` import), for
 * unit tests; savedPrompts.ts does the I/O.
 */
import type { CommandsResult, SlashCommand } from '../protocol';

export interface CommandPick {
  name: string;
  label: string;
  description: string;
  detail: string;
  argumentHint?: string;
}

const SOURCES: Record<SlashCommand['source'], string> = {
  'built-in': 'built in',
  workspace: '.workspace-agent/commands',
  claude: '.claude/commands',
  user: 'your commands folder',
  skill: 'skill',
};

/**
 * Saved prompts first (what the user came for), then the built-ins. The palette's picker
 * leaves `/clear` out (New Session does it) and `/plan` too (Run Task… with `/plan ` does
 * it); the input's `/` list (`everyBuiltIn`) has them all, as README lists them.
 */
export function commandPicks(result: CommandsResult, everyBuiltIn = false): CommandPick[] {
  const shown = everyBuiltIn ? result.commands : result.commands.filter((c) => c.name !== 'clear' && c.name !== 'plan');
  const saved = shown.filter((c) => c.source !== 'built-in');
  const builtIn = shown.filter((c) => c.source === 'built-in');
  return [...saved, ...builtIn].map((command) => ({
    name: command.name,
    label: `/${command.name}`,
    description: command.argumentHint ?? '',
    detail: `${command.description} (${SOURCES[command.source] ?? command.source})`,
    ...(command.argumentHint ? { argumentHint: command.argumentHint } : {}),
  }));
}

/** The prompt the server resolves: `/NAME` and the arguments, if any. */
export function slashPrompt(name: string, args?: string): string {
  const rest = args?.trim();
  return rest ? `/${name} ${rest}` : `/${name}`;
}

/** The warning for command files the server could not use (each line names its file). */
export function problemsMessage(problems: readonly string[]): string {
  const shown = problems.slice(0, 3).join('; ');
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more, in the log)` : '';
  return `Workspace Agent: some saved prompts cannot be used: ${shown}${more}`;
}
