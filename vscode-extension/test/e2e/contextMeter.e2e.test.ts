/**
 * End to end, as a user: the context meter (issue 50). After a task the Conversation
 * view's header and the status bar read "used / window" ("3 k / 200 k"), where used is the
 * last request's input tokens (uncached, cache writes and reads: what the run's status
 * tooltip counts for a one-request run), with the server's words as the tooltip; with the
 * window set so the next request fills 70-80% of it, the meter turns amber (before
 * compaction, which starts at 80%). Screenshots light and dark.
 *
 * code-server with the packaged VSIX in headless Chromium, against the project's scripted
 * Messages API server (a test double that replays a fixed script; no real model is called).
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import {
  conversationView,
  editUserSettingsJson,
  path,
  showConversationView,
  statusItem,
  useDarkTheme,
  useLightTheme,
  waitFor,
} from './harness';
import { QUIET_SETTINGS, Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-contextMeter`);
const SCRIPT = {
  conversations: [{ match: 'Say hello', replies: [{ content: [{ type: 'text', text: 'Hello!' }] }, { content: [{ type: 'text', text: 'Hello again!' }] }] }],
  on_exhausted: 'text',
};
const n = (value: string | undefined): number => Number((value ?? '0').replace(/,/g, ''));
const short = (tokens: number): string => (tokens < 1000 ? String(tokens) : `${Math.round(tokens / 1000)} k`);

describe('The context meter (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-context-meter-', ARTIFACTS);
  let page: Page;
  let view: FrameLocator;
  let settings: Record<string, unknown>;
  let used = 0;
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  const meterItem = () => page.locator('.statusbar-item[aria-label^="Context "]').first();

  before(async () => {
    const modelUrl = await workbench.startScriptedModel(SCRIPT);
    settings = { 'workspaceAgent.baseUrl': modelUrl, 'workbench.colorTheme': 'Default Light Modern' };
    page = await workbench.open({ userSettings: settings, codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key' } });
    view = conversationView(page);
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('shows the last request\'s input tokens over the window, in the header and the status bar', async () => {
    await showConversationView(page);
    const input = view.locator('#input');
    await input.click();
    await input.pressSequentially('Say hello');
    await input.press('Enter');
    await view.locator('.card.answer', { hasText: 'Hello!' }).waitFor({ timeout: 60_000 });
    await waitFor('the run to end', async () => (await statusItem(page).getAttribute('aria-label')) !== 'Workspace Agent: running');

    // The run made one request: its input is what the run's status tooltip counts as input.
    await statusItem(page).hover();
    const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'Last run:' }).first();
    await hover.waitFor();
    const tooltip = (await hover.innerText()).replace(/\s+/g, ' ');
    const match = /Last run: [\d,]+ tokens \(([\d,]+) in, (?:([\d,]+) cache read, )?(?:([\d,]+) cache write, )?[\d,]+ out\)/.exec(tooltip);
    assert.ok(match, tooltip);
    used = n(match[1]) + n(match[2]) + n(match[3]);
    await page.mouse.move(640, 300);

    const meter = view.locator('#meter');
    await meter.waitFor();
    const label = `${short(used)} / 200 k`;
    assert.equal(await meter.innerText(), `Context ${label}`);
    const words = (await meter.getAttribute('title')) ?? '';
    assert.ok(words?.startsWith(`Context: ${used.toLocaleString('en-US')} of 200,000 tokens`), words);
    assert.ok(words.includes('From 80% (160,000 tokens) the conversation is compacted') && words.includes('/compact does it now'), words);
    assert.equal(await meter.evaluate((node) => node.classList.contains('near')), false);
    await waitFor('the status bar meter', async () => (await meterItem().innerText()).includes(label));
    await shot('meter-light');
    await page.mouse.click(800, 400);
    await useDarkTheme(page);
    await shot('meter-dark');
    await useLightTheme(page);
  });

  it('turns amber when the last request filled 70% of the window, before compaction', async () => {
    const window = Math.floor(used / 0.75); // the first request at 75%: no compaction before the next
    settings = { ...QUIET_SETTINGS, ...settings, 'workspaceAgent.contextWindow': window };
    await editUserSettingsJson(page, settings, workbench.userSettingsFile);
    await showConversationView(page);
    const input = view.locator('#input');
    await input.click();
    await input.pressSequentially('Say hello again');
    await input.press('Enter');
    await view.locator('.card.answer', { hasText: 'Hello again!' }).waitFor({ timeout: 60_000 });
    const meter = view.locator('#meter');
    await waitFor('the meter to turn amber', () => meter.evaluate((node) => node.classList.contains('near')));
    assert.match(await meter.innerText(), new RegExp(`^Context \\d+ k / ${short(window)}$`));
    const colour = await meter.evaluate((node) => getComputedStyle(node).color);
    const quiet = await view.locator('#status').evaluate((node) => getComputedStyle(node).color);
    assert.notEqual(colour, quiet, 'amber, not the quiet description colour');
    assert.equal(await view.locator('.notice', { hasText: 'Compacted' }).count(), 0);
    const backgrounds = await meterItem().evaluate((node) => {
      const paint = (element: Element | null): string => (element ? getComputedStyle(element).backgroundColor : '');
      const item = node.closest('.statusbar-item') ?? node;
      return { item: paint(item), bar: paint(document.querySelector('.part.statusbar')) };
    });
    assert.notEqual(backgrounds.item, backgrounds.bar, 'the status bar item is amber');
    assert.notEqual(backgrounds.item, 'rgba(0, 0, 0, 0)');
    assert.equal(await page.locator('.pane-header', { hasText: 'Conversation' }).locator('.description').innerText(), (await meter.innerText()).replace('Context ', ''));
    await shot('meter-near-light');
    await page.mouse.click(800, 400); // out of the input: the theme's palette keys go to the workbench
    await useDarkTheme(page);
    await shot('meter-near-dark');
  });
});
