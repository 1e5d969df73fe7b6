/**
 * End to end, as a new user of the released extension: code-server with the packaged
 * VSIX, driven in headless Chromium, against the project's scripted Messages API server (a
 * test double that replays a fixed script; no real model is called).
 *
 * Covers the release work (issue 13): a window that never uses the agent starts no
 * server, opening the Plan view starts it and shows the last session's plan; the Get
 * Started walkthrough's steps complete as the user does them; the keybindings of Run
 * Task… and Cancel Run (the latter only while a run goes) and their palette labels; the
 * quiet status bar with the last run's tokens and estimated cost in its tooltip; and a
 * server that speaks an older protocol gets a clear message and the bundled server offer.
 *
 * Needs the same environment as plan.e2e.test.ts (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import {
  apiKeyOf,
  notification,
  path,
  planRow,
  planView,
  processesIn,
  serverFolder,
  readLog,
  scriptedRequests,
  statusItem,
  waitFor,
} from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
// Next to plan.e2e's folder (which it empties when it starts), not inside it.
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-release`);
const OLD_SERVER = path.join(EXTENSION_DIR, 'test', 'e2e', 'fixtures', 'old-server');
const VERSION: string = JSON.parse(readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8')).version;
const API_KEY = 'sk-e2e-release-key';
const MODEL = 'claude-sonnet-4-5'; // a model with a list price: the status bar shows an estimate
const EXTENSION_ID = 'workspace-agent.workspace-agent';

const EARLIER_TASK = 'Tidy the README of this project';
const EXAMPLE_TASK = 'Explain what this project does and how it is organised, in at most ten bullet points. Only read files: change nothing and run no commands.';
const SLOW_TASK = 'Wait for the slow answer';

const tool = (name: string, input: unknown) => ({ type: 'tool_use', name, input });
const text = (value: string) => ({ type: 'text', text: value });
const plan = (...statuses: string[]) => ({
  items: ['Read the README', 'Fix the typos', 'Summarise the changes'].map((item, i) => ({ id: String(i + 1), text: item, status: statuses[i] })),
});

const SCRIPT = {
  conversations: [
    {
      // The session of an earlier window, run with the command line before the test.
      match: 'Tidy the README',
      replies: [
        { content: [text('Planning.'), tool('todo', plan('in_progress', 'pending', 'pending'))] },
        { content: [tool('todo', plan('completed', 'completed', 'pending'))] },
        { content: [text('The README is tidy; the summary is next.')] },
      ],
    },
    { match: 'Explain what this project does', replies: [{ content: [text('It is a small project with a README.')], delay: 0.5 }] },
    { match: 'slow answer', replies: [{ content: [text('Too late.')], delay: 60 }] },
  ],
  on_exhausted: 'text',
};

describe('Workspace Agent, released: lazy start, walkthrough, keybindings, versions (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-release-', ARTIFACTS);
  const { python, root, workspace, userData, env, machineSettingsFile: machineSettings } = workbench;
  const SERVER_COMMAND = `${python} -m workspace_agent`;
  let modelUrl = '';
  let page: Page;

  // The palette and input boxes, driven through their own input element (fill/press focus
  // it first): an open walkthrough redraws itself when a context key its steps use changes,
  // and may take the keyboard focus from a palette that has just opened, which then closes.
  const palette = (): Locator => page.locator('.quick-input-widget');
  const paletteInput = (): Locator => palette().locator('input').first();

  /** Runs a palette command by its full title, again if the palette lost focus and closed. */
  const command = async (title: string): Promise<void> => {
    await palette().waitFor({ state: 'hidden' });
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('F1');
      await palette().waitFor({ state: 'visible' });
      const row = palette().locator('.quick-input-list .monaco-list-row').first().filter({ hasText: title.replace(/…$/, '') });
      try {
        await paletteInput().fill(`>${title}`, { timeout: 5000 });
        await row.waitFor({ timeout: 5000 });
        await paletteInput().press('Enter', { timeout: 5000 });
        return;
      } catch (error) {
        if (attempt === 3) {
          throw error;
        }
        if (await palette().isVisible()) {
          await page.keyboard.press('Escape'); // (only then: Escape on a walkthrough leaves it)
          await palette().waitFor({ state: 'hidden' }).catch(() => undefined);
        }
      }
    }
  };

  /** Answers the input box titled `title`. */
  const answer = async (title: string, text: string): Promise<void> => {
    await palette().locator('.quick-input-title', { hasText: title }).waitFor({ state: 'visible' });
    await paletteInput().fill(text);
    await paletteInput().press('Enter');
    await palette().waitFor({ state: 'hidden' });
  };

  const clearToasts = async (): Promise<void> => {
    await command('Notifications: Clear All Notifications');
    await page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'hidden' });
  };

  const shot = async (name: string): Promise<void> => {
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  };

  /** The extension host's log: which extensions were activated, and by which event. */
  const extensionHostLog = (): string => {
    const logs = path.join(userData, 'logs');
    let text = '';
    for (const session of readdirSync(logs)) {
      for (const host of readdirSync(path.join(logs, session)).filter((name) => name.startsWith('exthost'))) {
        text += readLog(path.join(logs, session, host, 'remoteexthost.log'));
      }
    }
    return text;
  };
  const activations = (): string[] =>
    extensionHostLog()
      .split('\n')
      .filter((line) => line.includes(`_doActivateExtension ${EXTENSION_ID},`));

  before(async () => {
    writeFileSync(path.join(workspace, 'README.md'), '# A small project\n\nIt has a README.\n');

    modelUrl = await workbench.startScriptedModel(SCRIPT);

    // An earlier session in this workspace, made with the command line: its plan is what
    // the Plan view must show once it is opened.
    const earlier = spawnSync(python, ['-m', 'workspace_agent', 'run', EARLIER_TASK, '--workspace', workspace, '--yes'], {
      env: { ...env, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: modelUrl, MODEL_ID: MODEL },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(earlier.status, 0, `the earlier session's run failed:\n${earlier.stdout}\n${earlier.stderr}`);

    // The old server: a tiny LSP server that announces protocol version 0, behind an
    // "interpreter" that puts it first on the import path (then runs the real Python).
    const oldPython = path.join(root, 'old-python');
    writeFileSync(oldPython, `#!/bin/sh\nPYTHONPATH='${OLD_SERVER}' exec '${python}' "$@"\n`, { mode: 0o755 });

    page = await workbench.open({ userSettings: { 'workspaceAgent.baseUrl': modelUrl, 'workspaceAgent.model': MODEL } });
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('starts no server in a fresh window with the Plan view closed', async () => {
    // VS Code activates `onStartupFinished` extensions in one go once start-up is over:
    // after that, an extension that starts with the window would be running.
    await waitFor('start-up to finish (onStartupFinished activations)', () => extensionHostLog().includes("activationEvent: 'onStartupFinished'"), 90_000);
    const quietUntil = Date.now() + 5000;
    while (Date.now() < quietUntil) {
      assert.deepEqual(activations(), [], 'the extension must not be activated at start-up');
      assert.deepEqual(processesIn(serverFolder(userData), SERVER_COMMAND), [], 'no server may run before the agent is used');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(await statusItem(page).count(), 0, 'no status-bar item before the extension runs');
    await shot('fresh-window');
  });

  it('opening the Plan view starts the server and shows the last session\'s plan', async () => {
    await page.locator('.activitybar [aria-label^="Workspace Agent"]').first().click();
    // The container opens on the Conversation (the Plan view starts folded, and opens itself on the plan).
    await waitFor('the extension to be activated by a view', () =>
      activations().some((line) => /activationEvent: 'onView:workspaceAgent\.(plan|conversation)'/.test(line)),
    );
    await waitFor('the server to start', () => processesIn(serverFolder(userData), SERVER_COMMAND).length === 1, 60_000);
    await planRow(page, 'Read the README, completed').waitFor({ timeout: 60_000 });
    await planRow(page, 'Fix the typos, completed').waitFor();
    await planRow(page, 'Summarise the changes, pending').waitFor();
    await planView(page).locator('.pane-header .description', { hasText: '2/3' }).waitFor({ state: 'attached' });
    // Idle, the status bar holds a quiet icon: no words.
    await waitFor('the status bar to be idle', async () => (await statusItem(page).getAttribute('aria-label')) === 'Workspace Agent: idle');
    assert.equal((await statusItem(page).innerText()).trim(), '');
    await statusItem(page).locator('.codicon-hubot').waitFor();
    await shot('resumed-plan');
  });

  /** The walkthrough step whose id ends in `step`. */
  const step = (id: string) => page.locator(`.getting-started-step[data-step-id="${EXTENSION_ID}#getStarted#${id}"]`);
  const completed = (id: string) =>
    waitFor(`the walkthrough step "${id}" to be completed`, async () => (await step(id).getAttribute('aria-checked')) === 'true');
  const stepButton = async (id: string, name: string): Promise<void> => {
    if ((await step(id).getAttribute('aria-expanded')) !== 'true') {
      await step(id).click();
    }
    await step(id).getByRole('button', { name, exact: true }).click();
  };

  it('walks a new user through the key, a first task, the plan and the approvals; each step completes when done', async () => {
    // As for a user without an earlier session: the first task starts a new one.
    await command('Workspace Agent: New Session');
    await planView(page).locator('.welcome-view-content').getByText('No plan yet').waitFor();
    const keyHint = planView(page).locator('.welcome-view-content').getByText('The agent needs an Anthropic API key');
    await keyHint.waitFor();
    await clearToasts();
    await command('Welcome: Open Walkthrough...');
    await page.keyboard.type('Get Started with Workspace Agent');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get Started with Workspace Agent' }).first().waitFor();
    await page.keyboard.press('Enter');
    const ids = ['setApiKey', 'runFirstTask', 'reviewApprovals'];
    for (const id of ids) {
      assert.equal(await step(id).getAttribute('aria-checked'), 'false', `${id} starts unchecked`);
    }
    // "Watch the plan" is done already: the Plan view showed the earlier session's plan.
    await completed('watchPlan');
    // 0. The server: it runs already (the Plan view started it before the walkthrough was
    // first opened), so its step is ticked with no click; its button still says so.
    await completed('installServer');
    await shot('walkthrough');
    await stepButton('installServer', 'Install the Server');
    await notification(page, 'Workspace Agent: the server is ready.').waitFor();
    assert.equal(await step('installServer').getAttribute('aria-checked'), 'true');
    await clearToasts();

    // 1. The key: stored, and the running server restarted with it.
    await stepButton('setApiKey', 'Set API Key');
    await answer('Workspace Agent: Set API Key', API_KEY);
    await notification(page, 'API key saved; the server restarted with it').waitFor({ timeout: 60_000 });
    await completed('setApiKey');
    await keyHint.waitFor({ state: 'detached' }); // the Plan view's welcome stops asking for it
    assert.ok(!readFileSync(path.join(userData, 'User', 'settings.json'), 'utf8').includes(API_KEY), 'the key stays out of settings');

    // 2. A first task: the safe example is filled in; the user only presses Enter.
    await stepButton('runFirstTask', 'Run a First Task');
    const input = page.locator('.quick-input-widget input').first();
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Workspace Agent: Run Task' }).waitFor();
    assert.equal(await input.inputValue(), EXAMPLE_TASK);
    const before = (await scriptedRequests(modelUrl)).length;
    await input.press('Enter');
    // Ticked when the run did its task (a failed or cancelled one leaves it unticked).
    await notification(page, 'Workspace Agent: done.').waitFor({ timeout: 60_000 });
    await completed('runFirstTask');
    const [request] = (await scriptedRequests(modelUrl)).slice(before);
    assert.ok(request, 'the model was called');
    assert.ok(JSON.stringify(request.body.messages).includes(EXAMPLE_TASK));
    assert.equal(apiKeyOf(request), API_KEY);

    // 3. The plan: with the side bar closed, the step's button opens the Plan view. (Mouse
    // only while the walkthrough is open: keys would go to whatever it focused last.)
    await page.locator('.titlebar [aria-label^="Toggle Primary Side Bar"]').click();
    await planView(page).waitFor({ state: 'hidden' });
    await stepButton('watchPlan', 'Open the Plan View');
    await planView(page).locator('.pane-body').waitFor();
    await completed('watchPlan');

    // 4. The approvals: the settings editor opens on workspaceAgent.approvals.
    await stepButton('reviewApprovals', 'Open Approval Settings');
    const settings = page.locator('.settings-editor');
    await settings.locator('.setting-item-title', { hasText: 'Approvals' }).first().waitFor();
    await completed('reviewApprovals');
    await page.locator('[aria-label^="Close Modal Editor"]').click();
    await settings.waitFor({ state: 'hidden' });
    await shot('walkthrough-done');
    await page.locator('.tabs-container .tab', { hasText: 'Welcome' }).locator('[aria-label^="Close"]').click();
    await step('setApiKey').waitFor({ state: 'detached' });
    await clearToasts();
  });

  it('keeps the last run\'s tokens and estimated cost in the status bar\'s tooltip', async () => {
    await command('Workspace Agent: Restart Server');
    await notification(page, 'server restarted').waitFor({ timeout: 60_000 });
    await waitFor('the status bar to be idle', async () => (await statusItem(page).getAttribute('aria-label')) === 'Workspace Agent: idle');
    assert.equal((await statusItem(page).innerText()).trim(), '', 'idle: the icon only');
    await clearToasts();
    await statusItem(page).hover();
    const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'Last run:' }).first();
    await hover.waitFor();
    const tooltip = (await hover.innerText()).replace(/\s+/g, ' ');
    const match = /Last run: ([\d,]+) tokens \(([\d,]+) in, (?:([\d,]+) cache read, )?(?:([\d,]+) cache write, )?([\d,]+) out\) · ≈ \$(\d+\.\d+) \(estimate at claude-sonnet-4-5 list prices\)/.exec(tooltip);
    assert.ok(match, `the tooltip should name the tokens and the estimated cost:\n${tooltip}`);
    const n = (value: string | undefined): number => Number((value ?? '0').replace(/,/g, ''));
    const [input, cacheRead, cacheWrite, output] = [n(match[2]), n(match[3]), n(match[4]), n(match[5])];
    assert.equal(n(match[1]), input + cacheRead + cacheWrite + output);
    assert.ok(output > 0 && input + cacheRead + cacheWrite > 0);
    // Sonnet's list price: $3 input, $15 output per million; cache writes 1.25x, reads 0.1x.
    const expected = (input * 3 + cacheWrite * 3.75 + cacheRead * 0.3 + output * 15) / 1_000_000;
    assert.ok(Math.abs(Number(match[6]) - expected) < 0.0001, `${match[6]} ≈ ${expected}`);
    await shot('status-tooltip');
    await page.mouse.move(640, 300);
  });

  /**
   * The palette row of a command as the user sees it (its accessible label, with the
   * keybinding if it has one), or undefined when the palette does not offer the command
   * (only "similar commands" come up within 5 s).
   */
  const paletteRow = async (title: string): Promise<string | undefined> => {
    await palette().waitFor({ state: 'hidden' });
    await page.keyboard.press('F1');
    await palette().waitFor({ state: 'visible' });
    await paletteInput().fill(`>${title}`);
    const rows = page.locator('.quick-input-list .monaco-list-row');
    const find = async (): Promise<string | undefined> => {
      for (let i = 0; i < (await rows.count()); i++) {
        const label = (await rows.nth(i).getAttribute('aria-label')) ?? '';
        if (label.startsWith(title)) {
          return label;
        }
      }
      return undefined;
    };
    const found = await waitFor(`the palette to offer ${title}`, find, 5000).catch(() => undefined);
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    return found;
  };

  it('runs a task on Ctrl+Shift+Alt+A and cancels it on Ctrl+Shift+Alt+X, shown in the palette', async () => {
    assert.equal(await paletteRow('Workspace Agent: Run Task…'), 'Workspace Agent: Run Task…, Control+Shift+Alt+A');
    assert.equal(await paletteRow('Workspace Agent: Cancel Run'), undefined, 'Cancel Run is offered only while a run goes');

    await command('Workspace Agent: New Session'); // the slow answer is this session's script
    await clearToasts();
    await page.keyboard.press('Control+Shift+Alt+A');
    await answer('Workspace Agent: Run Task', SLOW_TASK);
    await waitFor('the run to go', async () => ((await statusItem(page).getAttribute('aria-label')) ?? '').startsWith('Workspace Agent: running'));
    assert.equal(await paletteRow('Workspace Agent: Cancel Run'), 'Workspace Agent: Cancel Run, Control+Shift+Alt+X');

    const cancelledAt = Date.now();
    await page.keyboard.press('Control+Shift+Alt+X');
    await notification(page, 'Workspace Agent: run cancelled').waitFor();
    assert.ok(Date.now() - cancelledAt < 15_000, 'the run stops at once, not after the model\'s 60 s');
    await waitFor('the status bar to say cancelled', async () => (await statusItem(page).getAttribute('aria-label')) === 'Workspace Agent: cancelled');
    await clearToasts();

    // Without a run, the key does nothing (its `when` is workspaceAgent.running).
    await page.keyboard.press('Control+Shift+Alt+X');
    await assert.rejects(notification(page, 'no run is going').waitFor({ timeout: 3000 }));
  });

  it('refuses a server of an older protocol with a message naming both versions, and offers the bundled server', async () => {
    await clearToasts();
    // The interpreter setting (a machine setting: the remote's settings.json, as edited by hand).
    writeFileSync(machineSettings, JSON.stringify({ 'workspaceAgent.python': path.join(root, 'old-python') }, null, 2));
    const expected =
      `Workspace Agent: the Workspace Agent server 0.0.9 is too old for this extension: it speaks protocol version 0, ` +
      `this extension (${VERSION}) speaks version 1. Install the server (${VERSION}, shipped with this extension) into a private environment?`;
    const offer = notification(page, expected);
    await offer.waitFor({ timeout: 60_000 });
    await offer.getByRole('button', { name: 'Install Server' }).waitFor();
    await offer.getByRole('button', { name: 'Set Interpreter…' }).waitFor();
    await shot('old-server');
    // The old server was stopped after its initialize answer: nothing of it runs on.
    await waitFor('no server to run', () => processesIn(serverFolder(userData), SERVER_COMMAND).length === 0, 30_000);

    if (process.env.WA_E2E_INSTALL === '0') {
      return; // installing needs the package index (pip fetches the server's dependencies)
    }
    await offer.getByRole('button', { name: 'Install Server' }).click();
    await notification(page, `Workspace Agent: server ${VERSION} installed in a private environment.`).waitFor({ timeout: 300_000 });
    const privateServer = `${path.join(serverFolder(userData), 'server-venv', 'bin', 'python')} -m workspace_agent`;
    await waitFor('the bundled server to run', () => processesIn(serverFolder(userData), privateServer).length === 1, 60_000);
    // And it works: a task runs to its end.
    await clearToasts();
    await command('Workspace Agent: New Session');
    await command('Workspace Agent: Run Task…');
    await answer('Workspace Agent: Run Task', 'Say hello from the bundled server');
    await notification(page, 'Workspace Agent: done.').waitFor({ timeout: 60_000 });
  });
});
