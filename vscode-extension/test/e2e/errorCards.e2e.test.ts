/**
 * End to end, as a user: what the Conversation view offers when a run goes wrong or stops
 * short, on the card itself (issue 32, items 1, 9 and 11).
 *
 * - No API key: the error card offers Set API Key and Retry (no toast while the view is
 *   visible, no "0 tokens · $0.00" row); Set API Key restarts the server with the key, the
 *   Retry is still there, and runs the same task.
 * - The model overloaded (529, scripted): the retries of a call are one live row
 *   ("Overloaded (529): retrying 3/3 in 5 s"); when it gives up, the error card offers
 *   Retry; after a window reload the card, rebuilt from the history of a session that has
 *   nothing saved, still offers it (issue 50 item 6), and it runs the task again and it
 *   goes through.
 * - Escape in the empty input cancels the run; no progress toast while the view shows it.
 * - The turn limit (workspaceAgent.maxTurns 2 here): the card offers Continue (another 2
 *   turns), which goes on in the same session; hidden meanwhile, the view's run gets its
 *   progress toast back, and its "done" toast.
 * Screenshots of the error card and the Continue card, light and dark.
 *
 * code-server with the packaged VSIX in headless Chromium, against the project's scripted
 * Messages API server (a test double that replays a fixed script; no real model is called).
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import {
  answerInputBox,
  clearNotifications,
  conversationView,
  notification,
  path,
  reloadWindow,
  runCommand,
  scriptedRequests,
  showConversationView,
  statusItem,
  useDarkTheme,
  useLightTheme,
  waitFor,
} from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-errorCards`);
const API_KEY = 'sk-e2e-scripted-key';

const HELLO = 'Say hello';
const FLAKY = 'Summarize the flaky model notes';
const SLOW = 'Think about it for a long while';
const LONG = 'Count the files twice';
const CUT = 'Wait for the slow build';
const AFTER_CUT = 'Now write the summary';
const overloaded = (retryAfter: string) => ({ error: { status: 529, message: 'Overloaded', headers: { 'retry-after': retryAfter } } });
const tool = (name: string, input: unknown) => ({ type: 'tool_use', name, input });
const text = (value: string) => ({ type: 'text', text: value });

const SCRIPT = {
  conversations: [
    { match: HELLO, replies: [{ content: [text('Hello!')] }] },
    {
      match: FLAKY,
      // maxRetries 3: four attempts, all overloaded; then Retry gets the answer.
      replies: [overloaded('1'), overloaded('1'), overloaded('6'), overloaded('1'), { content: [text('The notes say the model was flaky.')] }],
    },
    { match: SLOW, replies: [{ content: [text('Too late.')], delay: 120 }] },
    {
      match: LONG,
      replies: [
        { content: [tool('bash', { command: 'ls' })] },
        { content: [tool('bash', { command: 'ls -a' })] },
        // After Continue: a little slow, so the view can be hidden while it runs.
        { content: [text('Both counts agree.')], delay: 6 },
      ],
    },
    {
      match: CUT,
      replies: [
        // Step 1 of a plan, in progress, runs a long command: a window reload cuts it off.
        { content: [tool('todo', { items: [{ id: '1', text: 'Wait for the build', status: 'in_progress' }] }), tool('bash', { command: 'sleep 300' })] },
        // The next task, in the same session after the reload: no plan of its own yet.
        { content: [tool('write_file', { path: 'summary.txt', content: 'The build was cut short.\n' })] },
        { content: [text('The summary is written.')] },
      ],
    },
  ],
  on_exhausted: 'text',
};

describe('Fixes on the Conversation view’s cards (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-errorcards-', ARTIFACTS);
  let page: Page;
  let view: FrameLocator;
  let modelUrl = '';
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  const toasts = () => page.locator('.notifications-toasts .notification-toast');

  /** Sends a task from the view's input box. */
  const send = async (task: string): Promise<void> => {
    const input = view.locator('#input');
    await input.click();
    await input.fill(task);
    await input.press('Enter');
    await view.locator('.card.prompt', { hasText: task }).last().waitFor();
  };

  /** A fresh session (each scripted conversation is picked by its session's first prompt). */
  const newSession = async (): Promise<void> => {
    await runCommand(page, 'Workspace Agent: New Session');
    await view.locator('#empty', { hasText: 'Give the agent a task below' }).waitFor();
    await clearNotifications(page);
  };

  /**
   * Light and dark shots of the view as it is: the keys of the theme picker must not land in
   * the view's input box, so the workbench gets the focus first.
   */
  const themedShots = async (name: string): Promise<void> => {
    await shot(`${name}-light`);
    await page.locator('.part.editor').click({ position: { x: 600, y: 600 } });
    await useDarkTheme(page);
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    await shot(`${name}-dark`);
    await page.locator('.part.editor').click({ position: { x: 600, y: 600 } });
    await useLightTheme(page);
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    assert.equal(await view.locator('#input').inputValue(), '', 'nothing typed into the view');
  };

  /** The run is over, as the view's input box says (Send again, no Cancel). */
  const idle = async (): Promise<void> => {
    await view.locator('#cancel').waitFor({ state: 'hidden', timeout: 60_000 });
    await view.locator('#send', { hasText: 'Send' }).waitFor();
  };

  before(async () => {
    modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workspaceAgent.approvals': { bash: 'allow', write: 'allow' },
        'workspaceAgent.context.attachActiveEditor': false,
        'workspaceAgent.maxTurns': 2,
        'workspaceAgent.maxRetries': 3,
        'workbench.colorTheme': 'Default Light Modern',
      },
      // No API key: the first run fails for want of one.
    });
    view = conversationView(page);
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('a missing API key: the error card offers Set API Key and Retry, with no toast and no "0 tokens" row', async () => {
    await showConversationView(page);
    await send(HELLO);
    const error = view.locator('.card.error-card', { hasText: 'ANTHROPIC_API_KEY is not set' });
    await error.waitFor({ timeout: 60_000 });
    const buttons = error.locator('.buttons button');
    assert.deepEqual(await buttons.allInnerTexts(), ['Set API Key', 'Retry']);
    assert.match((await buttons.first().getAttribute('class')) ?? '', /\bprimary\b/);
    await idle();
    await waitFor('the status bar to show the error', async () => /error/.test((await statusItem(page).getAttribute('aria-label')) ?? ''));
    assert.equal(await view.locator('.row.end').count(), 0, 'no "0 tokens · $0.00" row for a run that used none');
    assert.equal(await notification(page, /Workspace Agent: error/).count(), 0, 'no error toast while the view shows the card');
    await error.evaluate((node) => node.scrollIntoView({ block: 'start' }));
    await shot('error-card-key-light');

    await error.getByRole('button', { name: /Set API Key/ }).click();
    await answerInputBox(page, 'Workspace Agent: Set API Key', API_KEY);
    await notification(page, 'API key saved; the server restarted with it').waitFor({ timeout: 60_000 });
    // The server restarted: the Retry is still offered, and runs the same task.
    const retry = view.locator('.card:is(.error-card, .fix-card)', { has: view.getByRole('button', { name: /^Retry/ }) }).last();
    await retry.waitFor({ timeout: 60_000 });
    await retry.getByRole('button', { name: /^Retry/ }).click();
    await view.locator('.card.answer', { hasText: 'Hello!' }).waitFor({ timeout: 60_000 });
    await view.locator('.row.end', { hasText: 'Done' }).waitFor();
    await idle();
    assert.equal(await view.locator('.card.prompt', { hasText: HELLO }).count() >= 1, true);
    assert.equal(await view.getByRole('button', { name: /^Retry/ }).count(), 0, 'a run that went through takes the Retry away');
    assert.equal(await notification(page, 'Workspace Agent: done').count(), 0, 'no "done" toast while the user looks at the view');
  });

  it('folds a call’s retries into one live row; when it gives up, the error card’s Retry runs the task again', async () => {
    await newSession();
    await send(FLAKY);
    const live = view.locator('.row.retry.live', { hasText: 'Overloaded (529): retrying 3/3 in 6 s' });
    await live.waitFor({ timeout: 60_000 });
    assert.equal(await view.locator('.row.retry').count(), 1, 'three retries, one row');
    await shot('retry-row-light');
    const error = view.locator('.card.error-card', { hasText: /is overloaded \(529\); this is not your setup.*\(gave up after 4 attempts\)/ });
    await error.waitFor({ timeout: 60_000 });
    assert.equal(await view.locator('.row.retry').count(), 0, 'the error card says it all');
    assert.deepEqual(await error.locator('.buttons button').allInnerTexts(), ['Retry']);
    await idle();
    assert.equal(await notification(page, /Workspace Agent: error/).count(), 0, 'no toast while the view shows the card');
    await themedShots('error-card');

    // A window reload rebuilds the view from the session's history: the card keeps its words and its Retry.
    await reloadWindow(page);
    view = conversationView(page);
    await showConversationView(page);
    const rebuilt = view.locator('.card.error-card', { hasText: /is overloaded \(529\); this is not your setup/ });
    await rebuilt.waitFor({ timeout: 60_000 });
    assert.deepEqual(await rebuilt.locator('.buttons button').allInnerTexts(), ['Retry'], 'the same buttons as before the reload');
    await view.locator('.card.prompt', { hasText: FLAKY }).waitFor();
    await themedShots('error-card-reloaded');

    await rebuilt.getByRole('button', { name: /^Retry/ }).click();
    await view.locator('.card.answer', { hasText: 'The notes say the model was flaky.' }).waitFor({ timeout: 60_000 });
    const prompts = (await scriptedRequests(modelUrl)).filter((r) => r.path === '/v1/messages').at(-1);
    assert.match(JSON.stringify(prompts?.body.messages), new RegExp(FLAKY), 'the same task');
    await idle();
  });

  it('cancels the run with Escape in the empty input, with no progress toast while the view shows the run', async () => {
    await newSession();
    await send(SLOW);
    await view.locator('#cancel').waitFor({ timeout: 60_000 });
    assert.equal(await view.locator('#status').textContent(), 'Working…', 'said to screen readers');
    const input = view.locator('#input');
    assert.match((await input.getAttribute('placeholder')) ?? '', /Esc in an empty box cancels the run/);
    await waitFor('the model to be asked', async () => (await scriptedRequests(modelUrl)).some((r) => JSON.stringify(r.body.messages ?? '').includes(SLOW)), 60_000);
    assert.equal(await toasts().count(), 0, 'no progress toast while the view is visible');
    await input.click();
    assert.equal(await input.inputValue(), '');
    await input.press('Escape');
    await view.locator('.row.end', { hasText: 'Stopped: you cancelled the run' }).waitFor({ timeout: 30_000 });
    await idle();
    assert.equal(await view.locator('.card.answer', { hasText: 'Too late.' }).count(), 0);
  });

  it('says a run was stopped by a window reload, and the next task\'s card carries no step of the cut-off plan', async () => {
    await newSession();
    await send(CUT);
    const command = () => view.locator('.card.command', { hasText: 'sleep 300' });
    await command().waitFor({ timeout: 60_000 });
    await command().locator('button.step', { hasText: '#1' }).waitFor(); // the plan's step 1
    await waitFor('the command to run', async () => /running/.test(await command().innerText()), 30_000);

    await reloadWindow(page);
    view = conversationView(page);
    await showConversationView(page);
    const end = view.locator('.row.end.cancelled', { hasText: 'Stopped: the window was reloaded (or closed)' });
    await end.waitFor({ timeout: 60_000 });
    assert.equal(await view.locator('.row.notice.warning', { hasText: 'This run did not finish' }).count(), 0, 'the run ended, and says why');
    await end.scrollIntoViewIfNeeded();
    await themedShots('stopped-by-reload');

    await send(AFTER_CUT);
    const edit = view.locator('.row.tool.edit', { hasText: 'summary.txt' });
    await edit.waitFor({ timeout: 60_000 });
    await view.locator('.card.answer', { hasText: 'The summary is written.' }).waitFor({ timeout: 60_000 });
    assert.equal(await edit.locator('button.step').count(), 0, 'not tagged #1: that plan was cut off');
    await command().locator('button.step', { hasText: '#1' }).waitFor(); // the cut-off run keeps its tag
    await idle();
  });

  it('offers Continue at the turn limit, which goes on in the same session; hidden, the view gets its toasts back', async () => {
    await newSession();
    await send(LONG);
    const limit = view.locator('.card.limit', { hasText: 'Stopped at the turn limit' });
    await limit.waitFor({ timeout: 60_000 });
    assert.deepEqual(await limit.locator('.buttons button').allInnerTexts(), ['Continue (another 2 turns)', 'Open Settings']);
    await idle();
    assert.equal(await notification(page, /turn limit/).count(), 0, 'no toast while the view shows the card');
    await themedShots('continue-card');

    const before = (await scriptedRequests(modelUrl)).length;
    await limit.getByRole('button', { name: /^Continue/ }).click();
    await view.locator('.card.prompt', { hasText: 'Continue where you stopped.' }).waitFor();
    // The view hidden while the run goes: its progress toast comes back, then "done".
    await runCommand(page, 'View: Show Explorer');
    await notification(page, 'Continue where you stopped.').waitFor({ timeout: 30_000 });
    await notification(page, 'Workspace Agent: done').waitFor({ timeout: 60_000 });
    const request = (await scriptedRequests(modelUrl)).slice(before).find((r) => r.path === '/v1/messages');
    const messages = JSON.stringify(request?.body.messages);
    assert.match(messages, new RegExp(LONG), 'the same session: the task is in the conversation');
    assert.match(messages, /ls -a/, 'with what the run did so far');
    await showConversationView(page);
    await view.locator('.card.answer', { hasText: 'Both counts agree.' }).waitFor();
    assert.equal(await view.getByRole('button', { name: /^Continue/ }).count(), 0, 'the run went on: no Continue left');
  });
});
