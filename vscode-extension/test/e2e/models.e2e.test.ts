/**
 * End to end, as a user: the model · effort status-bar item. It shows what the settings
 * give; clicking it picks a model, then the thinking level that model takes; the next run
 * asks the model with them (the settings unchanged); "Save as Default" writes them to the
 * user settings. Light and dark.
 *
 * code-server with the packaged VSIX in headless Chromium, against the project's scripted
 * Messages API server (a test double that replays a fixed script; no real model is called).
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { notification, path, planView, runCommand, scriptedRequests, showPlanView, useDarkTheme } from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-models`);
const SCRIPT = {
  conversations: [{ match: 'Say hi', replies: [{ content: [{ type: 'text', text: 'Hi.' }] }] }],
  on_exhausted: 'text',
};

function modelItem(page: Page): Locator {
  return page.locator('.statusbar-item[aria-label$="(Workspace Agent)"]');
}

describe('The model · effort status-bar item picks them for the session (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-models-', ARTIFACTS);
  let page: Page;
  let modelUrl = '';
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  const picker = (): Locator => page.locator('.quick-input-widget');
  const row = (text: string | RegExp): Locator => picker().locator('.quick-input-list .monaco-list-row', { hasText: text }).first();

  before(async () => {
    modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workspaceAgent.approvals': { bash: 'allow', write: 'allow' },
        'workspaceAgent.model': 'claude-opus-4-6',
      },
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key' },
    });
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('shows the settings’ model and level, picks others, and the run asks the model with them', async () => {
    await showPlanView(page); // the server starts
    await planView(page).locator('.welcome-view-content').getByText('No plan yet').waitFor();
    const item = modelItem(page);
    await item.filter({ hasText: 'Opus 4.6 · high' }).waitFor({ timeout: 60_000 });

    await item.click();
    await picker().locator('.quick-input-title', { hasText: 'Workspace Agent: Model' }).waitFor();
    // it opens on the current model, the settings' one
    await picker().locator('.monaco-list-row.focused', { hasText: 'Opus 4.6' }).waitFor();
    await shot('model-pick-light');
    await picker().locator('input').first().fill('Other');
    await row('type a model id').waitFor(); // "Other…", at the end of the list
    await picker().locator('input').first().fill('Sonnet 4.5');
    await row('Sonnet 4.5').click();
    await picker().locator('.quick-input-title', { hasText: 'Workspace Agent: Thinking for Sonnet 4.5' }).waitFor();
    await row('the model’s default').waitFor(); // low, for this model
    await shot('thinking-pick-light');
    await row(/^medium/).click();
    await item.filter({ hasText: 'Sonnet 4.5 · medium' }).waitFor();
    await shot('model-item-light');

    await runCommand(page, 'Workspace Agent: Run Task…');
    await picker().locator('.quick-input-title', { hasText: 'Workspace Agent: Run Task' }).waitFor();
    await picker().locator('input').first().fill('Say hi');
    await page.keyboard.press('Enter');
    await notification(page, 'Workspace Agent: done').waitFor({ timeout: 60_000 });
    const request = (await scriptedRequests(modelUrl)).filter((r) => r.path === '/v1/messages').at(-1);
    assert.ok(request, 'the model got no request');
    const body = request.body as { model?: string; thinking?: unknown; max_tokens?: number };
    assert.equal(body.model, 'claude-sonnet-4-5');
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 10_000 });
    // the pick is for the session: the user's settings still name the other model
    assert.equal(JSON.parse(readFileSync(workbench.userSettingsFile, 'utf8'))['workspaceAgent.model'], 'claude-opus-4-6');
  });

  it('reads well in a dark theme, and Save as Default writes the pick to the user settings', async () => {
    await useDarkTheme(page);
    const item = modelItem(page);
    await item.click();
    await picker().locator('.monaco-list-row.focused', { hasText: 'Sonnet 4.5' }).waitFor();
    await shot('model-pick-dark');
    await picker().locator('input').first().fill('Save');
    await row('Save as Default').click();
    await notification(page, 'Workspace Agent: default set to Sonnet 4.5 · medium (user settings).').waitFor();
    const settings = JSON.parse(readFileSync(workbench.userSettingsFile, 'utf8'));
    assert.equal(settings['workspaceAgent.model'], 'claude-sonnet-4-5');
    assert.equal(settings['workspaceAgent.thinking'], 'medium');
    await item.filter({ hasText: 'Sonnet 4.5 · medium' }).waitFor();
    await item.hover();
    await page.locator('.monaco-hover', { hasText: 'From the settings' }).first().waitFor();
    await shot('model-item-dark');
  });
});
