/**
 * End to end, as a user: Workspace Agent: Run Saved Prompt… lists the workspace's saved
 * prompts (and the built-ins) with their descriptions, asks for the arguments a prompt's
 * `argument-hint` names, and runs it: the model gets the saved text with the argument in.
 *
 * code-server with the packaged VSIX in headless Chromium, against the project's scripted
 * Messages API server (a test double that replays a fixed script; no real model is called).
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { answerInputBox, notification, path, runCommand, scriptedRequests, showPlanView } from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-saved-prompts`);
const REVIEW = '---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\nReview $1 for bugs; change nothing.\n';
const SCRIPT = {
  conversations: [{ match: 'Review app.py for bugs', replies: [{ content: [{ type: 'text', text: 'app.py looks fine.' }] }] }],
  on_exhausted: 'text',
};

describe('Run Saved Prompt… (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-saved-prompts-', ARTIFACTS);
  const { workspace } = workbench;
  let page: Page;
  let modelUrl: string;
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });

  before(async () => {
    mkdirSync(path.join(workspace, '.workspace-agent', 'commands'), { recursive: true });
    writeFileSync(path.join(workspace, '.workspace-agent', 'commands', 'review.md'), REVIEW);
    writeFileSync(path.join(workspace, 'app.py'), 'print("hi")\n');
    modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: { 'workspaceAgent.baseUrl': modelUrl },
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key' },
    });
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('lists the saved prompt with its description, asks for its argument and runs it', async () => {
    await showPlanView(page); // the extension is active: its commands are in the palette
    await runCommand(page, 'Workspace Agent: Run Saved Prompt…');
    const picker = page.locator('.quick-input-widget');
    await picker.locator('.quick-input-title', { hasText: 'Workspace Agent: Run Saved Prompt' }).waitFor();
    const review = picker.locator('.monaco-list-row', { hasText: '/review' });
    await review.waitFor();
    assert.match((await review.innerText()).replace(/\s+/g, ' '), /\/review\s*FILE\s*Review a file for bugs \(\.workspace-agent\/commands\)/);
    await picker.locator('.monaco-list-row', { hasText: '/cost' }).waitFor();
    await shot('saved-prompts');
    await review.click();
    await answerInputBox(page, 'Workspace Agent: /review', 'app.py');
    await notification(page, /^Workspace Agent: done/).waitFor({ timeout: 60_000 });

    const requests = await scriptedRequests(modelUrl);
    assert.equal(requests.length, 1, 'one model call');
    const last = JSON.stringify(requests[0]?.body.messages?.at(-1));
    assert.ok(last.includes('Review app.py for bugs; change nothing.'), `the model got the saved text: ${last}`);
    assert.ok(!last.includes('/review'), 'not the command itself');
  });
});
