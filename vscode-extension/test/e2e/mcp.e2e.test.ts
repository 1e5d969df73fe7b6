/**
 * End to end, as a user: the MCP Servers view. code-server with the packaged VSIX, driven
 * in headless Chromium; two servers in the user setting workspaceAgent.mcp.servers: PyPI
 * mcp-server-time (installed by `make mcp-test-servers`, a real MCP server someone else
 * wrote) and one whose program does not exist yet.
 *
 * - The view lists the ready one with its tools as children and the failed one with why.
 * - Restart on the ready one starts a new server process; after the missing program is put
 *   in place, Restart on the failed one brings it up.
 * - Screenshots in a light and a dark theme.
 *
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up): WA_PYTHON, WA_CODE_SERVER,
 * and optionally WA_VSIX, WA_CHROMIUM, WA_E2E_ARTIFACTS.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { path, runCommand, waitFor } from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const REPO_DIR = path.resolve(EXTENSION_DIR, '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-mcp`);
const TIME = path.join(REPO_DIR, 'tests', 'mcp_servers', '.venv', 'bin', 'mcp-server-time');

function mcpView(page: Page): Locator {
  return page.locator('.pane').filter({ has: page.locator('.pane-header', { hasText: 'MCP Servers' }) });
}

/** A row of the MCP Servers view, by its accessible name. */
function row(page: Page, name: string | RegExp): Locator {
  return mcpView(page).getByRole('treeitem', { name, exact: typeof name === 'string' });
}

/** Pids of the processes running `program` (a Python script: its interpreter runs it) in `cwd`. */
function processesOf(program: string, cwd: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return /^\d+$/.test(pid) && args.includes(program) && realpathSync(`/proc/${pid}/cwd`) === realpathSync(cwd);
    } catch {
      return false; // gone meanwhile, or not ours to read
    }
  });
}

/** Shows the view with the palette command VS Code makes for it (retried, as showPlanView is). */
async function showMcpView(page: Page): Promise<void> {
  await waitFor('the MCP Servers view to show', async () => {
    try {
      await runCommand(page, 'Workspace Agent: Focus on MCP Servers View', 5_000);
    } catch {
      await page.keyboard.press('Escape');
      return false;
    }
    return mcpView(page).locator('.pane-body').waitFor({ timeout: 5_000 }).then(() => true, () => false);
  }, 90_000);
}

describe('Workspace Agent: the MCP Servers view (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-mcp-', ARTIFACTS);
  const { workspace, root } = workbench;
  const later = path.join(root, 'bin', 'later-mcp-server');
  let page: Page;

  const shot = (name: string): Promise<Buffer> => mcpView(page).screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  const timeServers = (): string[] => processesOf(TIME, workspace);

  before(async () => {
    assert.ok(existsSync(TIME), `${TIME} is missing: run \`make mcp-test-servers\``);
    mkdirSync(path.dirname(later), { recursive: true });
    const modelUrl = await workbench.startScriptedModel({ conversations: [], on_exhausted: 'text' });
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workbench.colorTheme': 'Default Light Modern',
        'workspaceAgent.mcp.servers': {
          time: { command: TIME },
          later: { command: later },
        },
      },
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key' },
    });
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('lists a ready server with its tools and a failed one with the reason', async () => {
    await showMcpView(page); // showing it starts the agent's server, which starts the MCP servers
    await row(page, 'MCP server time, 2 tools, from settings').waitFor({ timeout: 60_000 });
    const failed = row(page, /^MCP server later, failed: command not found: \/.*later-mcp-server, from settings$/);
    await failed.waitFor({ timeout: 30_000 });
    assert.equal(timeServers().length, 1);

    await row(page, 'MCP server time, 2 tools, from settings').click(); // expands it
    await row(page, 'tool get_current_time of time').waitFor();
    await row(page, 'tool convert_time of time').waitFor();
    const description = await mcpView(page).locator('.pane-header').innerText();
    assert.match(description, /1 failed/, 'the view says what needs a look');
    await failed.hover(); // its inline actions: Restart and Disable
    await failed.getByRole('button', { name: 'Restart MCP Server' }).waitFor();
    await failed.getByRole('button', { name: 'Disable MCP Server' }).waitFor();
    await shot('mcp-view-light');
  });

  it('reads well in a dark theme too', async () => {
    await page.keyboard.press('F1');
    await page.keyboard.type('Preferences: Color Theme');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: /^Preferences: Color Theme/ }).first().click();
    await page.keyboard.type('Dark Modern');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Dark Modern' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.monaco-workbench.vs-dark').waitFor();
    await showMcpView(page);
    await row(page, /^MCP server later, failed: /).hover();
    await shot('mcp-view-dark');
  });

  it('restarts the ready server in a new process, and the failed one once its program exists', async () => {
    const [before] = timeServers();
    const ready = row(page, 'MCP server time, 2 tools, from settings');
    await ready.hover();
    await ready.getByRole('button', { name: 'Restart MCP Server' }).click();
    await waitFor('a new time server process', () => {
      const now = timeServers();
      return now.length === 1 && now[0] !== before;
    }, 30_000);
    await ready.waitFor({ timeout: 30_000 });

    symlinkSync(TIME, later); // the program the failed server names now exists
    const failed = row(page, /^MCP server later, failed: /);
    await failed.hover();
    await failed.getByRole('button', { name: 'Restart MCP Server' }).click();
    await row(page, 'MCP server later, 2 tools, from settings').waitFor({ timeout: 60_000 });
    await waitFor('the view to say all run', async () => /2\/2 ready/.test(await mcpView(page).locator('.pane-header').innerText()));
  });
});
