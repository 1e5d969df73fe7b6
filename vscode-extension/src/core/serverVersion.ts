/**
 * Does the server speak this extension's protocol? Read from its `initialize` result:
 * `capabilities.experimental.workspaceAgent.protocolVersion` (docs/protocol.md, Versions)
 * and `serverInfo.version`.
 *
 * A server with another protocol version would misread requests or answer in shapes the
 * extension does not expect, so it is not used: the user gets one sentence naming both
 * sides' versions (python.ts adds the offer to install the server bundled in the VSIX).
 * Pure, for unit tests.
 */
import {
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_CAPABILITY,
  REVERT_DRY_RUN_CAPABILITY,
  REVERT_ONLY_CAPABILITY,
  SETTINGS_SECTION,
} from '../protocol';

export interface ServerAnnouncement {
  /** Undefined when the server announced none (it predates protocol versions). */
  protocolVersion?: number;
  /** `serverInfo.version`, the server package's version. */
  serverVersion?: string;
  /** True when workspaceAgent.revert takes `dryRun` (REVERT_DRY_RUN_CAPABILITY). */
  revertDryRun?: true;
  /** True when workspaceAgent.revert takes `only` (REVERT_ONLY_CAPABILITY). */
  revertOnly?: true;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** What an `initialize` result says about the server's versions. */
export function announcement(initializeResult: unknown): ServerAnnouncement {
  const experimental = field(field(initializeResult, 'capabilities'), 'experimental');
  const section = field(experimental, SETTINGS_SECTION);
  const protocolVersion = field(section, PROTOCOL_VERSION_CAPABILITY);
  const serverVersion = field(field(initializeResult, 'serverInfo'), 'version');
  return {
    ...(Number.isInteger(protocolVersion) ? { protocolVersion: protocolVersion as number } : {}),
    ...(typeof serverVersion === 'string' && serverVersion ? { serverVersion } : {}),
    ...(field(section, REVERT_DRY_RUN_CAPABILITY) === true ? { revertDryRun: true as const } : {}),
    ...(field(section, REVERT_ONLY_CAPABILITY) === true ? { revertOnly: true as const } : {}),
  };
}

/**
 * Why the server cannot be used, in words for the user; undefined when it speaks
 * `expected` (this extension's protocol version).
 */
export function protocolMismatch(
  server: ServerAnnouncement,
  extensionVersion: string,
  expected: number = PROTOCOL_VERSION,
): string | undefined {
  if (server.protocolVersion === expected) {
    return undefined;
  }
  const serverName = `the Workspace Agent server${server.serverVersion ? ` ${server.serverVersion}` : ''}`;
  const ours = `this extension (${extensionVersion}) speaks version ${expected}`;
  if (server.protocolVersion === undefined) {
    return `${serverName} announces no protocol version (it predates version 1); ${ours}`;
  }
  const age = server.protocolVersion < expected ? 'too old' : 'too new';
  return `${serverName} is ${age} for this extension: it speaks protocol version ${server.protocolVersion}, ${ours}`;
}
