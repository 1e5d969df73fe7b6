/**
 * What a command card says about the sandbox: a small mark (where it ran) and, for a
 * command the sandbox blocked, one line per wall in the user's words, with the button that
 * writes the setting that lets it through when a setting does (toolResult `sandboxed`,
 * `blocked`). Vscode-free: the webview draws these, the extension writes the setting.
 */

import type { NetworkHost, SandboxBlock } from '../protocol';

/** "sandboxed" / "outside the sandbox"; undefined when the command never ran. */
export function sandboxMark(sandboxed: boolean | undefined): string | undefined {
  if (sandboxed === undefined) return undefined;
  return sandboxed ? 'sandboxed' : 'outside the sandbox';
}

/**
 * What became of a host the command reached for, in the card's words; a host refused with
 * no question says why ("refused (metadata address)").
 */
export function hostVerdict(host: NetworkHost): string {
  if (host.allowed) return 'allowed';
  if (host.refused === 'metadata') return 'refused (metadata address)';
  if (host.refused === 'unattended') return 'refused (--yes opens no host)';
  return 'blocked';
}

/** The settings a blocked command's button may write (user settings, all of them). */
export type SandboxSetting = 'sandbox.allowedDomains' | 'sandbox.realCaches' | 'sandbox.writablePaths';

/** A button that writes a setting: the host or folder to add, or the flag to turn on. */
export interface SandboxFix {
  label: string;
  setting: SandboxSetting;
  /** The host (allowedDomains) or the folder (writablePaths). */
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
  if (block.setting === 'sandbox.writablePaths' && block.folder && offerableFolder(block.folder)) {
    return {
      label: 'Allow this folder…',
      setting: 'sandbox.writablePaths',
      value: block.folder,
      confirm: `Let sandboxed commands write ${block.folder} and everything in it, from the next command on, in every workspace? This adds it to your sandbox.writablePaths setting (user settings: a workspace cannot widen the sandbox). The sandbox's other walls stay: credentials hidden, .git and editor configs read-only.`,
    };
  }
  return undefined;
}

/**
 * The server offers only folders its own check accepts; this second look keeps the button
 * off a folder that would open the sandbox whatever an older or odd server says: not a
 * relative path, `/`, the home folder or one above it, nor near a credential location.
 */
export function offerableFolder(folder: string): boolean {
  const path = folder.length > 1 ? folder.replace(/\/+$/, '') : folder;
  if (!(path.startsWith('/') || path.startsWith('~/')) || path === '/' || path.split('/').includes('..')) {
    return false;
  }
  if (/^\/(home|Users)(\/[^/]+)?$/.test(path) || path === '/root') {
    return false; // a home folder, or the folder of them
  }
  return !SECRET_FOLDERS.some((secret) => path === secret || path.startsWith(`${secret}/`) || secret.startsWith(`${path}/`));
}

/** As server/workspace_agent/config.py's SECRET_LOCATIONS, with the agent's own settings. */
const SECRET_FOLDERS = [
  '~/.ssh',
  '~/.aws',
  '~/.gnupg',
  '~/.config/gh',
  '~/.config/gcloud',
  '~/.config/workspace-agent',
  '~/.azure',
  '~/.docker',
  '~/.kube',
  '~/.netrc',
  '~/.git-credentials',
  '~/.npmrc',
  '~/.pypirc',
];

/** What the settings list becomes with the host or folder (unchanged when already there). */
export function withHost(kept: readonly string[], host: string): string[] {
  return kept.includes(host) ? [...kept] : [...kept, host];
}
