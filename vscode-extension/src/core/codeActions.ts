/**
 * The server's code actions ("Fix with Workspace Agent: …", "Ask Workspace Agent about
 * this…") carry the `workspaceAgent.run` command with `RunParams`. In VS Code they are
 * pointed at the extension's own command instead, so the run gets the extension's
 * progress, Plan view and transcript in its current session, and Ask first asks the user
 * what to ask. Pure: which commands are ours and what they hold.
 */
import { runCommand } from '../lspExt';
import type { RunContext, RunParams } from '../protocol';

export interface CodeActionRun {
  /** 'ask': the user adds the instruction first; 'fix': run the prompt as it is. */
  kind: 'fix' | 'ask';
  prompt: string;
  context?: RunContext;
}

/**
 * The run a code action's command stands for; undefined for any other command (or
 * arguments that are not RunParams). `kind` is the action's kind: refactor* is Ask.
 */
export function codeActionRun(
  command: { command: string; arguments?: unknown[] } | undefined,
  kind: string | undefined,
): CodeActionRun | undefined {
  if (command?.command !== runCommand.command || command.arguments?.length !== 1) {
    return undefined;
  }
  const params = command.arguments[0] as Partial<RunParams> | null;
  if (typeof params !== 'object' || params === null || typeof params.prompt !== 'string') {
    return undefined;
  }
  const context = typeof params.context === 'object' && params.context !== null ? params.context : undefined;
  return {
    kind: kind === 'refactor' || kind?.startsWith('refactor.') ? 'ask' : 'fix',
    prompt: params.prompt,
    ...(context ? { context } : {}),
  };
}
