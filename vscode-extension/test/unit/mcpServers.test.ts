import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { isContract } from '../../src/contract';
import { COMMAND_IDS } from '../../src/commands';
import {
  mcpError,
  mcpRows,
  mcpSummary,
  NEXT_STEP_BUTTONS,
  rowFlags,
  trustQuestion,
} from '../../src/core/mcpServers';
import { MCP_NEXT_STEPS, type McpServerState } from '../../src/protocol';
import { EXTENSION_DIR } from './paths';

const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8'));

/** States as the server sends them (server/workspace_agent/mcp/connection.py state_wire). */
const time: McpServerState = {
  name: 'time',
  source: 'user',
  origin: '/home/u/.config/workspace-agent/mcp.json',
  state: 'ready',
  tools: 2,
  reason: null,
  toolNames: ['get_current_time', 'convert_time'],
  detail: '/usr/bin/mcp-server-time; cwd (the workspace)',
  fingerprint: 'a'.repeat(64),
};
const broken: McpServerState = {
  ...time,
  name: 'broken',
  source: 'editor',
  origin: 'setting workspaceAgent.mcp.servers',
  state: 'failed',
  tools: 0,
  reason: 'command not found: nope',
  toolNames: [],
  detail: 'nope; cwd (the workspace)',
};
const marker: McpServerState = {
  ...time,
  name: 'marker',
  source: 'workspace',
  origin: '.mcp.json',
  state: 'not started',
  tools: 0,
  reason: "from the workspace's .mcp.json: not trusted yet",
  toolNames: [],
  detail: "sh -c 'touch MARK'; cwd (the workspace)",
  fingerprint: 'b'.repeat(64),
};
const off: McpServerState = {
  ...time,
  state: 'disabled',
  tools: 0,
  toolNames: [],
  reason: "turned off by you: Enable (VS Code's MCP Servers view) starts it again",
};

describe('MCP Servers view rows', () => {
  it('show each state and where the server comes from, the tools of a ready one as children', () => {
    const rows = mcpRows([time, broken, marker, off, { ...time, name: 'slow', state: 'starting', tools: 0, toolNames: [] }]);
    assert.deepEqual(
      rows.map((row) => [row.label, row.description, row.icon, row.iconColor]),
      [
        ['time', '2 tools · user mcp.json', 'pass-filled', 'testing.iconPassed'],
        ['broken', 'failed: command not found: nope', 'error', 'testing.iconFailed'],
        ['marker', 'not trusted · .mcp.json', 'workspace-untrusted', 'list.warningForeground'],
        ['time', 'disabled · user mcp.json', 'circle-slash', 'disabledForeground'],
        ['slow', 'starting… · user mcp.json', 'loading~spin', undefined],
      ],
    );
    assert.deepEqual(
      rows[0]?.children.map((tool) => [tool.id, tool.label]),
      [
        ['tool:time:get_current_time', 'get_current_time'],
        ['tool:time:convert_time', 'convert_time'],
      ],
    );
    assert.deepEqual(rows.slice(1).map((row) => row.children.length), [0, 0, 0, 0]);
    assert.equal(rows[0]?.accessibilityLabel, 'MCP server time, 2 tools, from user mcp.json');
    assert.equal(rows[1]?.accessibilityLabel, 'MCP server broken, failed: command not found: nope, from settings');
  });

  it('say in the tooltip what runs, from which file, and what the way out is', () => {
    const [ready, failed, untrusted, disabled] = mcpRows([time, broken, marker, off]);
    assert.equal(
      ready?.tooltip,
      'MCP server time: 2 tools\nFrom: user mcp.json (/home/u/.config/workspace-agent/mcp.json)\nRuns: /usr/bin/mcp-server-time; cwd (the workspace)',
    );
    assert.match(failed?.tooltip ?? '', /^MCP server broken: failed: command not found: nope\nFrom: settings \(setting workspaceAgent\.mcp\.servers\)\n.*\nRestart starts it again/s);
    assert.match(untrusted?.tooltip ?? '', /\nFrom: the workspace's \.mcp\.json\n/);
    assert.match(untrusted?.tooltip ?? '', /Runs: sh -c 'touch MARK'.*\nA workspace's server starts only once you trust this exact config/s);
    assert.match(disabled?.tooltip ?? '', /Enable starts it again/);
  });

  it('offer Restart while it runs or failed, Trust for a workspace candidate, Disable or Enable', () => {
    assert.deepEqual(rowFlags(time), ['restartable', 'disableable']);
    assert.deepEqual(rowFlags(broken), ['restartable', 'disableable']);
    assert.deepEqual(rowFlags(marker), ['trustable', 'disableable']);
    assert.deepEqual(rowFlags(off), ['enableable']);
    const older: McpServerState = { ...marker }; // a server without fingerprints: no Trust to send
    delete older.fingerprint;
    assert.deepEqual(rowFlags(older), ['disableable']);
    assert.equal(mcpRows([marker])[0]?.contextValue, 'mcpServer trustable disableable');
  });

  it('sum up what needs a look in the view description', () => {
    assert.equal(mcpSummary([]), '');
    assert.equal(mcpSummary([time]), '1/1 ready');
    assert.equal(mcpSummary([time, off]), '1/2 ready');
    assert.equal(mcpSummary([time, broken, marker]), '1 failed, 1 not trusted');
  });

  it('accept only payloads in the promised shape', () => {
    assert.ok(isContract('McpServersPayload', { servers: [time, broken, marker, off] }));
    assert.ok(isContract('McpServersPayload', { servers: [] }));
    const older: McpServerState = { ...time }; // older servers send no names
    delete older.toolNames;
    delete older.detail;
    delete older.fingerprint;
    assert.ok(isContract('McpServersPayload', { servers: [older] }));
    assert.ok(!isContract('McpServersPayload', { servers: [{ ...time, state: 'happy' }] }));
    assert.ok(!isContract('McpServersPayload', { servers: [{ ...time, toolNames: [1] }] }));
    assert.ok(!isContract('McpServersPayload', { servers: 'time' }));
    assert.ok(!isContract('McpServersPayload', null));
  });
});

describe('MCP action errors', () => {
  it('carry the next step the server names, as a button', () => {
    const error = Object.assign(new Error('the MCP server marker is not trusted yet (...): trust it first'), {
      code: -32803,
      data: { nextStep: 'trust' },
    });
    assert.deepEqual(mcpError(error), { message: error.message, nextStep: 'trust' });
    assert.deepEqual(mcpError(Object.assign(new Error('x'), { data: { nextStep: 'reboot' } })), { message: 'x' });
    assert.deepEqual(mcpError(Object.assign(new Error('y'), { data: { nextStep: null } })), { message: 'y' });
    assert.deepEqual(mcpError('z'), { message: 'z' });
    for (const step of MCP_NEXT_STEPS) {
      assert.ok(NEXT_STEP_BUTTONS[step], step);
    }
  });

  it('ask before trusting with the command line and what trust means', () => {
    assert.deepEqual(trustQuestion(marker), {
      message: "Trust the MCP server marker from the workspace's .mcp.json?",
      detail:
        "It runs sh -c 'touch MARK'; cwd (the workspace) on your machine, with your permissions.\n\n" +
        'The trust is kept outside the repository, for this exact config: any change asks again.',
    });
  });
});

describe('the MCP Servers view in package.json', () => {
  const items: { command: string; when: string; group: string }[] = manifest.contributes.menus['view/item/context'];
  const ACTIONS = [
    [COMMAND_IDS.mcpTrust, 'trustable'],
    [COMMAND_IDS.mcpEnable, 'enableable'],
    [COMMAND_IDS.mcpRestart, 'restartable'],
    [COMMAND_IDS.mcpDisable, 'disableable'],
  ] as const;

  it('puts each row action inline and in the context menu, on the rows whose flags allow it', () => {
    const rows = mcpRows([time, broken, marker, off]);
    for (const [command, flag] of ACTIONS) {
      const entries = items.filter((entry) => entry.command === command);
      assert.deepEqual(entries.map((entry) => entry.group.split('@')[0]).sort(), ['inline', 'mcp'], command);
      for (const entry of entries) {
        const pattern = /viewItem =~ \/(.+)\/$/.exec(entry.when)?.[1] ?? '';
        assert.ok(entry.when.startsWith('view == workspaceAgent.mcpServers && '), entry.when);
        const shown = rows.filter((row) => new RegExp(pattern).test(row.contextValue)).map((row) => row.state.state);
        assert.deepEqual(shown, rows.filter((row) => rowFlags(row.state).includes(flag)).map((row) => row.state.state), command);
      }
      const declared = manifest.contributes.commands.find((c: { command: string }) => c.command === command);
      assert.match(declared.icon, /^\$\([a-z-]+\)$/, `${command} has a codicon`);
    }
  });

  it('keeps the row actions out of the Command Palette, where "Restart MCP Server" came before "Restart Server"', () => {
    const palette: { command: string; when: string }[] = manifest.contributes.menus.commandPalette;
    for (const [command] of ACTIONS) {
      assert.deepEqual(palette.filter((entry) => entry.command === command), [{ command, when: 'false' }], command);
    }
    assert.equal(palette.filter((entry) => entry.command === COMMAND_IDS.mcpSettings).length, 0, 'Open MCP Server Settings stays');
  });

  it('sits in the Workspace Agent sidebar, its welcome text saying how to add a server', () => {
    const views: { id: string; name: string; visibility?: string }[] = manifest.contributes.views.workspaceAgent;
    assert.deepEqual(views.map((view) => view.name), ['Plan', 'Conversation', 'MCP Servers']);
    // Collapsed until opened (VS Code remembers): without servers it would take the Conversation's room.
    assert.equal(views.find((view) => view.name === 'MCP Servers')?.visibility, 'collapsed');
    const welcome = manifest.contributes.viewsWelcome.find((w: { view: string }) => w.view === 'workspaceAgent.mcpServers');
    assert.ok(welcome.contents.includes(`(command:${COMMAND_IDS.mcpSettings})`));
    assert.match(welcome.contents, /\.mcp\.json/);
    assert.ok(manifest.activationEvents.includes('onView:workspaceAgent.mcpServers'));
  });
});
