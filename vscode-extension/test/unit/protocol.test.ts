import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import { COMMAND_IDS } from '../../src/commands';
import * as lsp from '../../src/lspExt';
import * as protocol from '../../src/protocol';
import { EXTENSION_DIR, REPO_DIR } from './paths';

const doc = readFileSync(path.join(REPO_DIR, 'docs', 'protocol.md'), 'utf8');
const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8'));

/** The contract's one source, which contract.ts (and the server's contract.py) come from. */
interface Named {
  constant: string;
}
const source = JSON.parse(readFileSync(path.join(REPO_DIR, 'contract', 'workspace-agent.json'), 'utf8')) as {
  requests: (Named & { method: string })[];
  notifications: (Named & { method: string })[];
  commands: (Named & { command: string })[];
  capabilities: (Named & { name: string })[];
  enumerations: (Partial<Named> & { values: (string | number)[] })[];
  events: { kinds: (Named & { kind: string })[] };
};
/** NAME -> value of every name the source declares. */
const sourceConstants = new Map<string, unknown>([
  ...source.requests.map((r) => [r.constant, r.method] as const),
  ...source.notifications.map((n) => [n.constant, n.method] as const),
  ...source.commands.map((c) => [c.constant, c.command] as const),
  ...source.capabilities.map((c) => [c.constant, c.name] as const),
  ...source.events.kinds.map((e) => [e.constant, e.kind] as const),
]);

describe('protocol.ts has the names of contract/workspace-agent.json (generated into contract.ts)', () => {
  it('has every name with the same value', () => {
    assert.ok(sourceConstants.size >= 10);
    const ts = protocol as unknown as Record<string, unknown>;
    for (const [name, value] of sourceConstants) {
      assert.equal(ts[name], value, `${name}`);
    }
  });

  it('lists the same commands, event kinds, stop reasons and statuses, in order', () => {
    const values = (constant: string) => source.enumerations.find((e) => e.constant === constant)?.values;
    assert.deepEqual([...protocol.COMMANDS], source.commands.map((c) => c.command));
    assert.deepEqual([...protocol.EVENT_KINDS], source.events.kinds.map((e) => e.kind));
    assert.deepEqual([...protocol.STOP_REASONS], values('STOP_REASONS'));
    assert.deepEqual([...protocol.TODO_STATUSES], values('TODO_STATUSES'));
  });

  it('names only what docs/protocol.md documents', () => {
    for (const name of [
      protocol.RUN_REQUEST,
      protocol.SESSIONS_REQUEST,
      ...protocol.COMMANDS,
      protocol.TODOS_NOTIFICATION,
      protocol.EVENT_NOTIFICATION,
      ...protocol.EVENT_KINDS,
      ...protocol.STOP_REASONS,
    ]) {
      assert.ok(doc.includes(`\`${name}\``) || doc.includes(`"${name}"`), `${name} is not in docs/protocol.md`);
    }
  });
});

describe('lspExt.ts declares every custom method once, typed', () => {
  const declared = Object.entries(lsp).flatMap(([name, value]): [string, string][] =>
    value instanceof RequestType || value instanceof RequestType0 || value instanceof NotificationType ? [[name, value.method]] : [],
  );
  /** The contract's requests and notifications (its *_REQUEST and *_NOTIFICATION names). */
  const methods = [...source.requests, ...source.notifications].map((m) => m.method);

  it('as requests and notifications, for exactly the methods of the contract', () => {
    assert.ok(methods.length >= 5, `contract methods: ${methods.join(', ')}`);
    assert.deepEqual([...new Set(declared.map(([, method]) => method))].sort(), [...new Set(methods)].sort());
  });

  it('each under a name and a method documented in docs/protocol.md', () => {
    for (const [name, method] of declared) {
      assert.ok(doc.includes(`### \`${method}\``), `${name}: ${method} has no section in docs/protocol.md`);
    }
  });

  it('with the kind the contract gives it (request or notification)', () => {
    for (const [name, value] of sourceConstants) {
      // workspaceAgent/changes is both a request and a notification: one of each.
      const typed = Object.values(lsp).filter((entry) => typeof entry === 'object' && 'method' in entry && entry.method === value);
      if (name.endsWith('_REQUEST')) {
        assert.ok(
          typed.some((entry) => entry instanceof RequestType || entry instanceof RequestType0),
          `${name} should be a request`,
        );
      } else if (name.endsWith('_NOTIFICATION')) {
        assert.ok(
          typed.some((entry) => entry instanceof NotificationType),
          `${name} should be a notification`,
        );
      }
    }
  });

  it('and the server commands it calls as typed workspace/executeCommand requests', () => {
    for (const command of [lsp.newSessionCommand, lsp.getTodosCommand, lsp.revertCommand, lsp.undoRevertCommand, lsp.runCommand]) {
      assert.ok((protocol.COMMANDS as readonly string[]).includes(command.command), command.command);
      assert.equal(command.request.method, 'workspace/executeCommand');
    }
  });

  it('built on the vscode-languageserver-protocol that vscode-languageclient uses (one copy)', () => {
    const client = JSON.parse(
      readFileSync(path.join(EXTENSION_DIR, 'node_modules', 'vscode-languageclient', 'package.json'), 'utf8'),
    );
    assert.equal(manifest.dependencies['vscode-languageserver-protocol'], client.dependencies['vscode-languageserver-protocol']);
  });
});

describe('package.json commands', () => {
  const commands: { command: string; title: string; category: string }[] = manifest.contributes.commands;

  it('are exactly the extension\'s command ids, all in the "Workspace Agent" category', () => {
    assert.deepEqual(commands.map((c) => c.command).sort(), Object.values(COMMAND_IDS).sort());
    for (const command of commands) {
      assert.equal(command.category, 'Workspace Agent', command.command);
    }
  });

  it('never reuse an id the server advertises (vscode-languageclient registers those)', () => {
    for (const command of commands) {
      assert.ok(!(protocol.COMMANDS as readonly string[]).includes(command.command), command.command);
    }
  });

  it('offer the palette titles the user looks for', () => {
    assert.deepEqual(commands.map((c) => c.title).sort(), [
      'Accept Change',
      'Add Check…',
      'Add Plan Item…',
      'Ask About Selection…',
      'Cancel Run',
      'Comment on Plan Item…',
      'Delete Plan Item',
      'Disable MCP Server',
      'Discard Plan',
      'Enable MCP Server',
      'Install Server',
      'Keep Planning',
      'Move Conversation Back to the Workspace Agent Side Bar',
      'Move Conversation to Secondary Side Bar',
      'Move Plan Item Down',
      'Move Plan Item Up',
      'New Session',
      'Open Approval Settings',
      'Open Changes',
      'Open Conversation in Editor',
      'Open File',
      'Open MCP Server Settings',
      'Open Output',
      'Pick the Model and Thinking…',
      'Reject Change',
      'Restart MCP Server',
      'Restart Server',
      'Resume Session…',
      'Revert Last Run',
      'Revert to Before This Step',
      'Reword Plan Item…',
      'Run Saved Prompt…',
      'Run Task…',
      'Run This Plan',
      'Set API Key',
      'Show Background Commands…',
      'Show Conversation',
      'Show Transcript',
      'Show in Conversation',
      'Stop All Background Commands',
      'Switch to Act Mode',
      'Switch to Plan Mode',
      'Trust MCP Server…',
      'Undo Last Revert',
      'Undo Only This Step',
    ]);
  });

  it('declare untrusted workspaces unsupported', () => {
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, false);
  });

  it('put Ask About Selection in the editor context menu and on a key', () => {
    const menu = manifest.contributes.menus['editor/context'].map((m: { command: string }) => m.command);
    assert.deepEqual(menu, [COMMAND_IDS.askAboutSelection]);
    const ask = manifest.contributes.keybindings.find((k: { command: string }) => k.command === COMMAND_IDS.askAboutSelection);
    assert.deepEqual(ask, {
      command: COMMAND_IDS.askAboutSelection,
      key: 'ctrl+shift+alt+q',
      mac: 'cmd+shift+alt+q',
      when: 'editorTextFocus && !workspaceAgent.running',
    });
  });

  it('link the welcome view to Run Task and Resume Session', () => {
    const welcome = manifest.contributes.viewsWelcome.find((w: { view: string }) => w.view === 'workspaceAgent.plan');
    for (const id of [COMMAND_IDS.runTask, COMMAND_IDS.resumeSession]) {
      assert.ok(welcome.contents.includes(`(command:${id})`), id);
    }
  });
});
