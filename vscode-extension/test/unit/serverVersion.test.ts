import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { announcement, protocolMismatch } from '../../src/core/serverVersion';
import { PROTOCOL_VERSION } from '../../src/protocol';
import { REPO_DIR } from './paths';

/** An initialize result as the server sends it (capabilities trimmed to what matters). */
const initializeResult = (protocolVersion: unknown, version = '0.1.0'): unknown => ({
  capabilities: { executeCommandProvider: { commands: [] }, experimental: { workspaceAgent: { protocolVersion } } },
  serverInfo: { name: 'workspace-agent', version },
});

describe('announcement', () => {
  it('reads the protocol version and the server version', () => {
    assert.deepEqual(announcement(initializeResult(1, '0.1.0')), { protocolVersion: 1, serverVersion: '0.1.0' });
    assert.deepEqual(announcement(initializeResult(0, '0.0.9')), { protocolVersion: 0, serverVersion: '0.0.9' });
  });

  it('reads revertDryRun only when the server says true (a client must not send dryRun otherwise)', () => {
    const withDryRun = (value: unknown): unknown => ({
      capabilities: { experimental: { workspaceAgent: { protocolVersion: 1, revertDryRun: value } } },
      serverInfo: { name: 'workspace-agent', version: '0.1.0' },
    });
    assert.deepEqual(announcement(withDryRun(true)), { protocolVersion: 1, serverVersion: '0.1.0', revertDryRun: true });
    for (const value of [false, 'true', 1, null, undefined]) {
      assert.equal(announcement(withDryRun(value)).revertDryRun, undefined, String(value));
    }
    assert.equal(announcement(initializeResult(1)).revertDryRun, undefined, 'a server before dry runs');
  });

  it('reads revertOnly only when the server says true (Undo Only This Step is offered then)', () => {
    const withOnly = (value: unknown): unknown => ({
      capabilities: { experimental: { workspaceAgent: { protocolVersion: 1, revertDryRun: true, revertOnly: value } } },
    });
    assert.equal(announcement(withOnly(true)).revertOnly, true);
    for (const value of [false, 'true', 1, null, undefined]) {
      assert.equal(announcement(withOnly(value)).revertOnly, undefined, String(value));
    }
  });

  it('finds none where a server predates versions or sends something else', () => {
    assert.deepEqual(announcement({ capabilities: {}, serverInfo: { name: 'x' } }), {});
    assert.deepEqual(announcement({ capabilities: { experimental: null } }), {});
    assert.deepEqual(announcement({ capabilities: { experimental: { workspaceAgent: true } } }), {});
    assert.deepEqual(announcement(initializeResult('1')).protocolVersion, undefined);
    assert.deepEqual(announcement(initializeResult(1.5)).protocolVersion, undefined);
    assert.deepEqual(announcement(undefined), {});
    assert.deepEqual(announcement(null), {});
  });
});

describe('protocolMismatch', () => {
  it('accepts a server of the same protocol version, whatever its package version', () => {
    assert.equal(protocolMismatch({ protocolVersion: PROTOCOL_VERSION, serverVersion: '9.9.9' }, '0.1.0'), undefined);
  });

  it('names both versions when the server is too old', () => {
    assert.equal(
      protocolMismatch({ protocolVersion: 0, serverVersion: '0.0.9' }, '0.1.0', 1),
      'the Workspace Agent server 0.0.9 is too old for this extension: it speaks protocol version 0, this extension (0.1.0) speaks version 1',
    );
  });

  it('names both versions when the server is too new', () => {
    assert.equal(
      protocolMismatch({ protocolVersion: 3, serverVersion: '2.0.0' }, '0.1.0', 1),
      'the Workspace Agent server 2.0.0 is too new for this extension: it speaks protocol version 3, this extension (0.1.0) speaks version 1',
    );
  });

  it('says when the server announces no version at all', () => {
    assert.equal(
      protocolMismatch({}, '0.1.0', 1),
      'the Workspace Agent server announces no protocol version (it predates version 1); this extension (0.1.0) speaks version 1',
    );
  });

  it('end to end from an initialize result', () => {
    assert.equal(protocolMismatch(announcement(initializeResult(PROTOCOL_VERSION)), '0.1.0'), undefined);
    assert.match(protocolMismatch(announcement(initializeResult(PROTOCOL_VERSION + 1)), '0.1.0') ?? '', /too new/);
  });
});

describe('the protocol version', () => {
  it('is the contract\'s (contract/workspace-agent.json), which the server announces too', () => {
    const source = JSON.parse(readFileSync(path.join(REPO_DIR, 'contract', 'workspace-agent.json'), 'utf8')) as {
      protocolVersion: { value: number };
    };
    assert.equal(source.protocolVersion.value, PROTOCOL_VERSION);
  });

  it('is documented in docs/protocol.md with its capability path', () => {
    const doc = readFileSync(path.join(REPO_DIR, 'docs', 'protocol.md'), 'utf8');
    assert.ok(doc.includes('capabilities.experimental.workspaceAgent.protocolVersion'));
    assert.ok(doc.includes(`protocolVersion\`: ${PROTOCOL_VERSION} is the version this document describes`));
  });
});
