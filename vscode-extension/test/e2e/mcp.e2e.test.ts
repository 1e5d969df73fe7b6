/**
 * End to end, as a user: the MCP Servers view. code-server with the packaged VSIX, driven
 * in headless Chromium; two servers in the user setting workspaceAgent.mcp.servers: PyPI
 * mcp-server-time (installed by `make mcp-test-servers`, a real MCP server someone else
 * wrote) and one whose program does not exist yet; npm server-everything is added to the
 * setting for the last step, in settings.json as a user edits it.
 *
 * The workspace's `.mcp.json` names a third (mcp-server-time again): a candidate.
 *
 * - The view lists the ready one with its tools as children, the failed one with why, and
 *   the candidate as not trusted (the server's own question about it is denied).
 * - Restart on the ready one starts a new server process; after the missing program is put
 *   in place, Restart on the failed one brings it up.
 * - Trust… on the candidate shows what it runs; when its file changed meanwhile, nothing is
 *   trusted and the error's button asks again, with the new command line; then it runs.
 * - Disable (inline) stops it and keeps it off; Enable (context menu) starts it again.
 * - A task whose model calls the server's tools: the approval card offers "Allow this tool
 *   for this session"; the same tool then runs unasked, the server's other tool is asked
 *   about again (and denied: the model is told).
 * - A tool that returns an image (npm server-everything's get-tiny-image): a thumbnail on
 *   its card, fetched by the call's id (workspaceAgent/toolImage); a click opens it larger,
 *   and from there in an editor tab. An image file read_file reads: a thumbnail on its row.
 * - Screenshots in a light and a dark theme.
 *
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up): WA_PYTHON, WA_CODE_SERVER,
 * and optionally WA_VSIX, WA_CHROMIUM, WA_E2E_ARTIFACTS.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import {
  approvalCard,
  chooseMenuItem,
  clickNotificationButton,
  conversationView,
  editUserSettingsJson,
  notification,
  path,
  runCommand,
  scriptedRequests,
  showConversationView,
  visibleText,
  useDarkTheme,
  useLightTheme,
  waitFor,
} from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const REPO_DIR = path.resolve(EXTENSION_DIR, '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-mcp`);
const TIME = path.join(REPO_DIR, 'tests', 'mcp_servers', '.venv', 'bin', 'mcp-server-time');
const EVERYTHING = path.join(REPO_DIR, 'tests', 'mcp_servers', 'node_modules', '.bin', 'mcp-server-everything');
const IMAGE_TASK = 'Show me the tiny MCP logo';

const TASK = 'What time is it in UTC and in Tokyo, and noon UTC in Tokyo?';
const call = (name: string, input: unknown) => ({ type: 'tool_use', name: `mcp__time__${name}`, input });
const SCRIPT = {
  conversations: [
    {
      match: 'noon UTC in Tokyo',
      replies: [
        { content: [call('get_current_time', { timezone: 'UTC' })] },
        { content: [call('get_current_time', { timezone: 'Asia/Tokyo' })] },
        { content: [call('convert_time', { source_timezone: 'UTC', time: '12:00', target_timezone: 'Asia/Tokyo' })] },
        { content: [{ type: 'text', text: 'Done.' }] },
      ],
    },
    {
      match: IMAGE_TASK,
      replies: [
        { content: [{ type: 'tool_use', name: 'mcp__everything__get-tiny-image', input: {} }] },
        { content: [{ type: 'tool_use', name: 'read_file', input: { path: 'icon.png' } }] },
        { content: [{ type: 'text', text: 'That is the MCP logo.' }] },
      ],
    },
  ],
  on_exhausted: 'text',
};

function mcpView(page: Page): Locator {
  return page.locator('.pane').filter({ has: page.locator('.pane-header', { hasText: 'MCP Servers' }) });
}

/** A row of the MCP Servers view, by its accessible name. */
function row(page: Page, name: string | RegExp): Locator {
  return mcpView(page).getByRole('treeitem', { name, exact: typeof name === 'string' });
}

/**
 * Pids of the processes running `program` (a Python script: its interpreter runs it) in
 * `cwd`, with `arg` among their arguments or (without it) no other argument.
 */
function processesOf(program: string, cwd: string, arg?: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const tail = args.slice(args.indexOf(program) + 1);
      const fits = arg ? tail.includes(arg) : tail.length === 0;
      return /^\d+$/.test(pid) && args.includes(program) && fits && realpathSync(`/proc/${pid}/cwd`) === realpathSync(cwd);
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


/**
 * Hovers `from` and clicks its inline `action` until `until` shows. Clicked again while
 * `from` still shows: on a loaded machine the tree redraws its rows (another server's state
 * changed) between the hover and the click, which then hits nothing.
 */
async function rowAction(from: Locator, action: string, until: Locator): Promise<void> {
  await waitFor(`"${action}" to take effect`, async () => {
    if (await from.isVisible()) {
      await from.hover({ timeout: 5_000 }).catch(() => undefined);
      await from.getByRole('button', { name: action }).click({ timeout: 5_000 }).catch(() => undefined);
    }
    return until.waitFor({ timeout: 10_000 }).then(() => true, () => false);
  }, 90_000);
}

describe('Workspace Agent: the MCP Servers view (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-mcp-', ARTIFACTS);
  const { workspace, root } = workbench;
  const later = path.join(root, 'bin', 'later-mcp-server');
  const agentConfig = path.join(root, 'agent-config'); // the agent's user config folder: never the machine's
  const candidate = (zone: string): void =>
    writeFileSync(
      path.join(workspace, '.mcp.json'),
      JSON.stringify({ mcpServers: { clock: { command: TIME, args: ['--local-timezone', zone] } } }),
    );
  let page: Page;
  let modelUrl = '';

  const shot = (name: string): Promise<Buffer> => mcpView(page).screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  const timeServers = (): string[] => processesOf(TIME, workspace);

  before(async () => {
    assert.ok(existsSync(TIME), `${TIME} is missing: run \`make mcp-test-servers\``);
    assert.ok(existsSync(EVERYTHING), `${EVERYTHING} is missing: run \`make mcp-test-servers\``);
    mkdirSync(path.dirname(later), { recursive: true });
    candidate('UTC');
    copyFileSync(path.join(EXTENSION_DIR, 'media', 'icon.png'), path.join(workspace, 'icon.png')); // 128x128, for read_file
    modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workbench.colorTheme': 'Default Light Modern',
        'workspaceAgent.mcp.servers': {
          time: { command: TIME },
          later: { command: later },
        },
      },
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key', WORKSPACE_AGENT_CONFIG_DIR: agentConfig },
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
    // The server asks about the workspace's candidate on its own; the user says no for now.
    const asked = /wants to start the MCP server clock from the workspace's \.mcp\.json: .*mcp-server-time --local-timezone UTC/;
    await notification(page, asked).waitFor();
    await clickNotificationButton(page, asked, 'Deny');
    await row(page, 'MCP server clock, not trusted, from .mcp.json').waitFor();

    await row(page, 'MCP server time, 2 tools, from settings').click(); // expands it
    await row(page, 'tool get_current_time of time').waitFor();
    await row(page, 'tool convert_time of time').waitFor();
    const description = await mcpView(page).locator('.pane-header').innerText();
    assert.match(description, /1 failed, 1 not trusted/, 'the view says what needs a look');
    await failed.hover(); // its inline actions: Restart and Disable
    await failed.getByRole('button', { name: 'Restart MCP Server' }).waitFor();
    await failed.getByRole('button', { name: 'Disable MCP Server' }).waitFor();
    await shot('mcp-view-light');
  });

  it('reads well in a dark theme too', async () => {
    await useDarkTheme(page);
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
    await rowAction(row(page, /^MCP server later, failed: /), 'Restart MCP Server', row(page, 'MCP server later, 2 tools, from settings'));
    await waitFor('the view to say what is left', async () => /1 not trusted/.test(await mcpView(page).locator('.pane-header').innerText()));
  });

  it('trusts the candidate only as shown: changed since, the error\'s button asks again; then it runs', async () => {
    const untrusted = row(page, 'MCP server clock, not trusted, from .mcp.json');
    candidate('Asia/Tokyo'); // the repository changes while the row still shows the old config
    await untrusted.hover();
    await untrusted.getByRole('button', { name: 'Trust MCP Server…' }).click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    assert.match(await visibleText(dialog), /Trust the MCP server clock from the workspace's \.mcp\.json\?[\s\S]*It runs .*mcp-server-time --local-timezone UTC; cwd \(the workspace\) on your machine/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'mcp-trust-question.png') });
    await dialog.getByRole('button', { name: 'Trust and Start' }).click();

    const refused = /could not trust clock: the config of the MCP server clock changed since it was shown: it now runs .*Asia\/Tokyo/;
    await notification(page, refused).waitFor();
    assert.ok(!existsSync(path.join(agentConfig, 'mcp-trust.json')), 'nothing was trusted');
    await clickNotificationButton(page, refused, 'Trust…');
    await dialog.waitFor();
    assert.match(await visibleText(dialog), /It runs .*mcp-server-time --local-timezone Asia\/Tokyo; cwd/);
    await dialog.getByRole('button', { name: 'Trust and Start' }).click();
    await row(page, 'MCP server clock, 2 tools, from .mcp.json').waitFor({ timeout: 60_000 });
    await waitFor('the clock process', () => processesOf(TIME, workspace, 'Asia/Tokyo').length === 1);
    const trusted = JSON.parse(readFileSync(path.join(agentConfig, 'mcp-trust.json'), 'utf8'));
    assert.deepEqual(Object.values(trusted.approved).map((r) => (r as { name: string }).name), ['clock']);
  });

  it('disables a server (stopped, kept off) and enables it again from the context menu', async () => {
    const off = row(page, 'MCP server clock, disabled, from .mcp.json');
    await rowAction(row(page, 'MCP server clock, 2 tools, from .mcp.json'), 'Disable MCP Server', off);
    await waitFor('the clock process to stop', () => processesOf(TIME, workspace, 'Asia/Tokyo').length === 0);
    const disabled = JSON.parse(readFileSync(path.join(agentConfig, 'mcp-disabled.json'), 'utf8'));
    assert.deepEqual(Object.values(disabled.disabled).map((r) => (r as { name: string }).name), ['clock']);

    await off.click({ button: 'right' });
    await chooseMenuItem(page, 'Enable MCP Server');
    await row(page, 'MCP server clock, 2 tools, from .mcp.json').waitFor({ timeout: 60_000 });
    await waitFor('the view to say all run', async () => /3\/3 ready/.test(await mcpView(page).locator('.pane-header').innerText()));
  });

  it('offers "Allow this tool for this session" on an MCP call: that tool runs unasked, another tool is asked about', async () => {
    await showConversationView(page);
    const view = conversationView(page);
    const input = view.locator('#input');
    await input.click();
    await input.pressSequentially(TASK);
    await input.press('Enter');

    const first = approvalCard(page, 'call the tool get_current_time of the MCP server time');
    await first.waitFor({ timeout: 60_000 });
    const offered = await first.locator('.buttons button').allInnerTexts();
    assert.deepEqual(offered, ['Allow', 'Allow this tool for this session', 'Allow this server for this session', 'Deny', 'Deny with a reason…']);
    await first.getByRole('button', { name: 'Allow this tool for this session' }).click();

    const other = approvalCard(page, 'call the tool convert_time of the MCP server time');
    await other.waitFor({ timeout: 60_000 });
    assert.equal(await approvalCard(page, 'get_current_time').count(), 0, 'the same tool was not asked about again');
    await other.getByRole('button', { name: 'Deny', exact: true }).click();
    await view.locator('.card.answer', { hasText: 'Done.' }).waitFor({ timeout: 60_000 });

    const requests = (await scriptedRequests(modelUrl)).filter((r) => JSON.stringify(r.body.messages ?? []).includes('noon UTC in Tokyo'));
    const results = requests.map((r) => JSON.stringify(r.body.messages?.at(-1)));
    assert.equal(requests.length, 4);
    assert.match(results[2] ?? '', /Asia\/Tokyo/, 'the second call ran');
    assert.match(results[3] ?? '', /the user declined to let the agent call the tool convert_time/);

    // What the tool returned is on its card, like a command's output; the whole in an editor.
    const results_ = view.locator('.tool-result');
    await waitFor('the two results on their cards', async () => (await results_.count()) === 2);
    const tokyo = results_.filter({ hasText: 'Asia/Tokyo' }).last();
    await tokyo.locator('details.output.result[open] pre', { hasText: 'Asia/Tokyo' }).waitFor();
    const denied = view.locator('.row.tool.other', { hasText: 'convert_time' }).last();
    await denied.locator('.badge.denied', { hasText: 'not run (denied)' }).waitFor();
    assert.equal(await denied.locator('.error-text').count(), 0, 'no output under a denied call');
    // In an editor tab, where the whole conversation has room.
    await runCommand(page, 'Workspace Agent: Open Conversation in Editor');
    await page.locator('.tabs-container .tab.active', { hasText: 'Agent Conversation' }).waitFor();
    await waitFor('the tab to draw the results too', async () => {
      let drawn = 0;
      for (const frame of page.frames()) {
        drawn += (await frame.evaluate(() => document.querySelectorAll('.tool-result').length === 2).catch(() => false)) ? 1 : 0;
      }
      return drawn >= 2; // the view's page and the tab's
    });
    const viewShot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), clip: { x: 0, y: 0, width: 1280, height: 800 } });
    await useLightTheme(page);
    await viewShot('mcp-result-light');
    await useDarkTheme(page);
    await viewShot('mcp-result-dark');
    await useLightTheme(page);
    // (the tab stays open: a palette opened while a webview has the focus can lose its keys)
    await tokyo.getByRole('button', { name: 'Open the whole result in an editor' }).click();
    await page.locator('.tabs-container .tab.active', { hasText: '.log' }).waitFor();
    await runCommand(page, 'View: Close All Editors');
  });

  it('shows the images an MCP tool returned as thumbnails on its card, opened larger and in an editor', async () => {
    // The user adds server-everything in settings.json; saving it starts the server at once.
    // The view's header counts it: its row may be below the fold of this small view (a tree
    // draws only the rows in sight).
    const settings = JSON.parse(readFileSync(workbench.userSettingsFile, 'utf8')) as Record<string, Record<string, unknown>>;
    const servers = { ...settings['workspaceAgent.mcp.servers'], everything: { command: EVERYTHING } };
    await editUserSettingsJson(page, { ...settings, 'workspaceAgent.mcp.servers': servers }, workbench.userSettingsFile);
    await showMcpView(page);
    await waitFor('the view to count server-everything as ready', async () => /4\/4 ready/.test(await mcpView(page).locator('.pane-header').innerText()), 90_000);
    await runCommand(page, 'Workspace Agent: New Session');
    await showConversationView(page);
    const view = conversationView(page);
    const input = view.locator('#input');
    await input.click();
    await input.pressSequentially(IMAGE_TASK);
    await input.press('Enter');
    const asked = approvalCard(page, 'call the tool get-tiny-image of the MCP server everything');
    await asked.getByRole('button', { name: 'Allow', exact: true }).click({ timeout: 60_000 });
    await view.locator('.card.answer', { hasText: 'That is the MCP logo.' }).waitFor({ timeout: 60_000 });

    // The result's image (20x20 PNG) as a thumbnail beside its text, fetched by the call's id.
    const result = view.locator('.tool-result', { has: page.locator('.verb', { hasText: 'get-tiny-image' }) });
    const thumbs = result.getByRole('list', { name: 'The image the tool returned' });
    const thumb = thumbs.getByRole('button', { name: 'Image 1 of 1: PNG 20x20. Open it larger' });
    await thumb.locator('img.thumb').waitFor({ timeout: 30_000 });
    const natural = await thumb.locator('img.thumb').evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
    assert.deepEqual(natural, [20, 20], 'the bytes the server returned');
    const requests = await scriptedRequests(modelUrl);
    const sent = (back: number): string => JSON.stringify(requests.at(-1)?.body.messages?.at(back));
    assert.match(sent(-3), /"type":"image"/, "the model got the MCP tool's image too");
    assert.match(sent(-1), /"type":"image"/, 'and the image file read_file read');
    // An image file the agent read: on its read row, what the model saw (128x128).
    const read = view.locator('.tool-result', { has: page.locator('.row.tool.read', { hasText: 'icon.png' }) });
    const readThumb = read
      .getByRole('list', { name: 'The image the agent read' })
      .getByRole('button', { name: 'Image 1 of 1: PNG 128x128. Open it larger' });
    await readThumb.locator('img.thumb').waitFor({ timeout: 30_000 });
    assert.deepEqual(await readThumb.locator('img.thumb').evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]), [128, 128]);
    await read.evaluate((node) => node.scrollIntoView({ block: 'end' })); // both thumbnails in sight
    const viewShot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), clip: { x: 0, y: 0, width: 1280, height: 800 } });
    await useLightTheme(page);
    await viewShot('mcp-image-light');
    await useDarkTheme(page);
    await viewShot('mcp-image-dark');
    await useLightTheme(page);

    // A click opens it larger (the prompt images' dialog); from there, in an editor tab.
    await thumb.click();
    const lightbox = view.getByRole('dialog', { name: 'Image 1 of 1: PNG 20x20' });
    await lightbox.locator('img.lightbox-image').waitFor();
    await waitFor('the 20x20 image to be drawn larger than its thumbnail', async () =>
      (await lightbox.locator('img.lightbox-image').evaluate((img: HTMLImageElement) => img.getBoundingClientRect().width)) >= 200,
    );
    await viewShot('mcp-image-lightbox-light');
    await lightbox.getByRole('button', { name: 'Open the image in an editor tab' }).click();
    const tab = page.locator('.tabs-container .tab.active', { hasText: '.png' });
    await tab.waitFor({ timeout: 30_000 });
    await view.getByRole('button', { name: 'Close the image (Escape)' }).click();
    await lightbox.waitFor({ state: 'hidden' });
    await tab.click({ button: 'middle' }); // the image preview is a webview: the palette could lose its keys
    await tab.waitFor({ state: 'detached' });
  });
});
