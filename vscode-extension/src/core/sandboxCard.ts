/**
 * What a command card says about the sandbox: a small mark (where it ran) and, for a
 * command the sandbox blocked, one line per wall in the user's words, with the button that
 * writes the setting that lets it through when a setting does (toolResult `sandboxed`,
 * `blocked`). Vscode-free: the webview draws these, the extension writes the setting.
 */

import type { SandboxBlock } from '../protocol';

/** "sandboxed" / "outside the sandbox"; undefined when the command never ran. */
export function sandboxMark(sandboxed: boolean | undefined): string | undefined {
  if (sandboxed === undefined) return undefined;
  return sandboxed ? 'sandboxed' : 'outside the sandbox';
}

/** A button that writes a setting: the host to add, or the flag to turn on. */
export interface SandboxFix {
  label: string;
  setting: 'sandbox.allowedDomains' | 'sandbox.realCaches';
  /** The host (allowedDomains). */
  value?: string;
  /** What the confirmation says before it writes the setting. */
  confirm: string;
}

export interface BlockLine {
  text: string;
  fix?: SandboxFix;
}

/** "Blocked by the sandbox: writing ~/.cache/pip" and its fix, one per wall. */
export function blockLines(blocked: readonly SandboxBlock[] | undefined): BlockLine[] {
  return (blocked ?? []).map((block) => {
    const line: BlockLine = { text: `Blocked by the sandbox: ${what(block)}` };
    const fix = fixOf(block);
    return fix ? { ...line, fix } : line;
  });
}

function what(block: SandboxBlock): string {
  switch (block.kind) {
    case 'write':
      return block.target ? `writing ${block.target}` : 'a write outside the workspace and /tmp';
    case 'network':
      return block.target ? `network to ${block.target}` : 'network access';
    case 'socket':
      return 'connecting to a Unix socket outside the sandbox';
    default:
      return block.target ? `${block.kind} ${block.target}` : block.kind;
  }
}

function fixOf(block: SandboxBlock): SandboxFix | undefined {
  if (block.setting === 'sandbox.allowedDomains' && block.target) {
    return {
      label: 'Allow host…',
      setting: 'sandbox.allowedDomains',
      value: block.target,
      confirm: `Let sandboxed commands reach ${block.target} from now on? This adds it to your sandbox.allowedDomains setting (user settings); the command stays in the sandbox.`,
    };
  }
  if (block.setting === 'sandbox.realCaches') {
    return {
      label: 'Allow this folder…',
      setting: 'sandbox.realCaches',
      confirm: `Let sandboxed commands write the real package caches in your home folder (~/.cache, ~/.npm, ~/.cargo, ~/go), ${block.target ?? 'this folder'} among them? This turns on your sandbox.realCaches setting (user settings).`,
    };
  }
  return undefined;
}

/** What the settings list becomes with the host (unchanged when already there). */
export function withHost(kept: readonly string[], host: string): string[] {
  return kept.includes(host) ? [...kept] : [...kept, host];
}
