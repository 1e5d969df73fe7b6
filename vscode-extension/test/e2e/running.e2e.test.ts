/**
 * End to end, as a user: a dev server the agent starts in the background (issue 46). The
 * model (the project's scripted Messages API server, no real model) asks `bash` to start
 * `python3 -m http.server` with `run_in_background`; the real server runs it in the
 * sandbox and forwards its port. The Conversation view's Running section lists it with its
 * port as a link, the command's card links to the row, the status bar counts it; the link
 * opens the page in the browser through code-server's own port forwarding
 * (`vscode.env.asExternalUri`); Show Output opens its output; Stop ends it. Light and dark
 * screenshots go to the artifacts and docs/images/.
 *
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up): WA_PYTHON, WA_CODE_SERVER,
 * and optionally WA_VSIX, WA_CHROMIUM, WA_E2E_ARTIFACTS.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { conversationView, freePort, path, showConversationView, useDarkTheme, waitFor } from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-running`);
const DOC_IMAGES = path.resolve(EXTENSION_DIR, '..', 'docs', 'images');
const TASK = 'Start the dev server';
const PAGE = '<!doctype html><title>Hello app</title><h1>Served from the sandbox</h1>\n';

describe('A dev server in the background (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-running-', ARTIFACTS);
  const { workspace } = workbench;
  let page: Page;
  let view: FrameLocator;
  let port = 0;
  let command = '';

  const shot = async (name: string): Promise<void> => {
    const target = path.join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path: target });
    mkdirSync(DOC_IMAGES, { recursive: true });
    copyFileSync(target, path.join(DOC_IMAGES, `${name}.png`));
  };
  const runningStatus = () => page.locator('.statusbar-item[aria-label*="background command"]');

  before(async () => {
    port = await freePort();
    command = `python3 -m http.server ${port} --bind 127.0.0.1`;
    writeFileSync(path.join(workspace, 'index.html'), PAGE);
    const modelUrl = await workbench.startScriptedModel({
      conversations: [
        {
          match: TASK,
          replies: [
            { content: [{ type: 'tool_use', name: 'bash', input: { command, run_in_background: true } }] },
            { content: [{ type: 'text', text: `The dev server runs: http://localhost:${port}` }] },
          ],
        },
      ],
      on_exhausted: 'text',
    });
    page = await workbench.open({
      userSettings: { 'workspaceAgent.baseUrl': modelUrl, 'workspaceAgent.approvals': { bash: 'allow' } },
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key' },
    });
    view = conversationView(page);
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('lists the running server with its port, links its card to it and counts it in the status bar', async () => {
    await showConversationView(page);
    const input = view.locator('#input');
    await input.click();
    await input.pressSequentially(TASK);
    await input.press('Enter');
    const row = view.locator('#running .running-row', { hasText: 'b1' });
    await row.locator('button.port', { hasText: `localhost:${port}` }).waitFor({ timeout: 90_000 });
    await row.locator('.running-state', { hasText: /^running for \d+ s$/ }).waitFor();
    await view.locator('#running h2', { hasText: 'Running (1)' }).waitFor();
    const card = view.locator('.card.command', { hasText: command });
    await card.locator('.badge', { hasText: 'in the background' }).waitFor();
    await card.locator('button.background-link', { hasText: 'b1' }).click();
    await row.and(view.locator(':focus')).waitFor(); // the card's link reveals the row
    await runningStatus().waitFor();
    assert.match((await runningStatus().textContent()) ?? '', /1/);
    await view.locator('.card.answer', { hasText: 'The dev server runs' }).waitFor();
    await shot('running-light');
  });

  it('opens the port in the browser through the editor\'s forwarding, and shows the output', async () => {
    const row = view.locator('#running .running-row', { hasText: 'b1' });
    const opened = page.context().waitForEvent('page', { timeout: 60_000 });
    await row.locator('button.port').click();
    // VS Code may ask before it opens a link outside the editor: the user says Open.
    const ask = page.locator('.monaco-dialog-box').getByRole('button', { name: 'Open' });
    await ask.click({ timeout: 5_000 }).catch(() => undefined);
    const browser = await opened;
    await browser.waitForLoadState();
    await browser.getByRole('heading', { name: 'Served from the sandbox' }).waitFor({ timeout: 30_000 });
    writeFileSync(path.join(ARTIFACTS, 'opened-url.txt'), browser.url());
    await browser.screenshot({ path: path.join(ARTIFACTS, 'browser.png') });
    await browser.close();

    await row.getByRole('button', { name: 'Show the output of b1' }).click();
    // The editor draws spaces as no-break spaces.
    const shown = async (): Promise<string> => ((await page.locator('.editor-instance .view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');
    await waitFor('the output to show the page request', async () => /"GET \/ HTTP\/1\.1" 200/.test(await shown()));
    assert.match(await shown(), /Serving HTTP on 127\.0\.0\.1/);
    // It follows the output: another request shows up in the open editor.
    await fetch(`http://127.0.0.1:${port}/hello`).catch(() => undefined);
    await waitFor('the open output to follow the next request', async () => /"GET \/hello HTTP\/1\.1" 404/.test(await shown()));
  });

  it('reads well in a dark theme, and Stop ends it', async () => {
    await useDarkTheme(page);
    await showConversationView(page);
    await shot('running-dark');
    const row = view.locator('#running .running-row', { hasText: 'b1' });
    await row.getByRole('button', { name: 'Stop b1' }).click();
    await row.locator('.running-state', { hasText: 'stopped by the user' }).waitFor({ timeout: 30_000 });
    await view.locator('#running h2', { hasText: 'Running (0)' }).waitFor();
    await runningStatus().waitFor({ state: 'hidden' });
    const answered = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
    assert.equal(answered, false, 'nothing serves the port once it is stopped');
  });
});
