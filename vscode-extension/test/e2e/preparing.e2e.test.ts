/**
 * End to end, as a user: the first task in a big folder that is not a git repository. The
 * checkpoint store must store every file before the first change (nothing to start from);
 * it does so in the background while the model is asked, and the run's progress
 * notification says how far it is, then that the first write waits for it. Light and dark.
 *
 * code-server with the packaged VSIX in headless Chromium, against the project's scripted
 * Messages API server (a test double that replays a fixed script; no real model is called).
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { clearNotifications, notification, path, planView, runCommand, showPlanView, useDarkTheme } from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-preparing`);
const FILES = 30_000;
const WRITE = { content: [{ type: 'tool_use', name: 'write_file', input: { path: 'src/pkg000/mod00.py', content: 'value = -1\n' } }] };
const CHANGED = { content: [{ type: 'text', text: 'Changed it.' }] };
/** What the scripted model answers: the first call changes a file, which waits for the store. */
const SCRIPT = {
  conversations: [
    {
      match: 'first module',
      // Twice: the light run, then the dark one.
      replies: [WRITE, CHANGED, WRITE, CHANGED],
    },
  ],
  on_exhausted: 'text',
};

describe('The first task in a big folder says how far its checkpoints are (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-preparing-', ARTIFACTS);
  const { workspace } = workbench;
  let page: Page;
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  const target = path.join(workspace, 'src', 'pkg000', 'mod00.py');

  before(async () => {
    for (let n = 0; n < FILES; n++) {
      const folder = path.join(workspace, 'src', `pkg${String(Math.floor(n / 100)).padStart(3, '0')}`);
      if (n % 100 === 0) {
        mkdirSync(folder, { recursive: true });
      }
      writeFileSync(path.join(folder, `mod${String(n % 100).padStart(2, '0')}.py`), `value = ${n}\n${'# padding\n'.repeat(20)}`);
    }
    const modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workspaceAgent.approvals': { bash: 'allow', write: 'allow' },
        // The editor's own indexers stay out of the way of what is measured here.
        'files.watcherExclude': { '**/src/**': true },
        'search.followSymlinks': false,
      },
      // The store's scan is held at its first report until the write waits for it: the
      // wait is on screen whatever this machine's speed (checkpoints/preparing.py).
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key', WORKSPACE_AGENT_HOLD_SCAN: '1' },
    });
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  /** Runs the task, and waits for the progress to say how far the store is and that the write waits. */
  const runAndWatch = async (theme: string): Promise<void> => {
    await runCommand(page, 'Workspace Agent: Run Task…');
    const input = page.locator('.quick-input-widget');
    await input.locator('.quick-input-title', { hasText: 'Workspace Agent: Run Task' }).waitFor();
    await input.locator('input').first().fill('Change the first module');
    await page.keyboard.press('Enter');
    const waits = notification(page, /Preparing checkpoints: [\d,]+ of [\d,]+ files \(write_file waits for it\)/);
    await waits.waitFor({ timeout: 60_000 });
    await shot(`preparing-${theme}`);
    await notification(page, 'Workspace Agent: done').waitFor({ timeout: 120_000 });
    assert.equal(readFileSync(target, 'utf8'), 'value = -1\n');
    await clearNotifications(page);
  };

  it('shows the store being prepared in the run notification, and that the first write waits for it', async () => {
    await showPlanView(page); // the extension is active: its commands are in the palette
    await planView(page).locator('.welcome-view-content').getByText('No plan yet').waitFor();
    await runAndWatch('light');
  });

  it('reads well in a dark theme (a fresh store prepares again)', async () => {
    // The checkpoint store alone (the session stays): the next run finds no store and makes one.
    rmSync(path.join(workspace, '.workspace-agent', 'checkpoints'), { recursive: true, force: true });
    writeFileSync(target, 'value = 0\n');
    await useDarkTheme(page);
    await runAndWatch('dark');
  });
});
