/**
 * End to end, as a user: room to read in the Conversation view (issue 32, items 4 and 5).
 * code-server with the packaged VSIX, driven in headless Chromium, against the project's
 * scripted Messages API server (a test double that replays a fixed script; no real model
 * is called).
 *
 * A task whose model reads three files in a row and updates its plan twice in a row: the
 * reads show as one "Read 3 files" row that opens on them, the plan updates as one row; a
 * card's plan step is a small tag on its header line; the model's code block scrolls
 * sideways and its Copy button copies it. A long session's "Load earlier" keeps the card
 * the reader looked at where it was. Move Conversation to Secondary Side Bar moves the
 * view there (and back). Screenshots, light and dark, at 1280×800 and in a narrow side bar.
 *
 * Its own file (not conversation.e2e.test.ts): it needs none of that file's 30 s waits and
 * reloads, so it runs in a minute or two.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { conversationView, path, planView, resizeSideBar, runCommand, showConversationView, useDarkTheme, useLightTheme, waitFor } from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-conversationRoom`);
const API_KEY = 'sk-e2e-scripted-key';

const TASK = 'Look around the app and list its files';
const STEPS = ['Read the sources', 'List the files'];
const LONG_LINE = `print("${'a long line that does not fit in the side bar '.repeat(3).trim()}")`;
const CODE = ['def main():', `    ${LONG_LINE}`].join('\n');
const LONG_PATH = 'src/greeting/entry_points/greet_the_user_politely.py';
const ANSWER = [`The entry point, in \`${LONG_PATH}\`:`, '', '```python', CODE, '```', '', 'That is all.'].join('\n');
/** A command wider than a narrow side bar: it wraps at its spaces and slashes, never inside a word. */
const LONG_COMMAND = 'cat src/greeting/greet.py src/greeting/farewell.py';

/** A task whose command reaches a dev server on this machine: the sandbox asks about the host. */
const NET_TASK = 'Check that the dev server answers';

type Status = 'pending' | 'in_progress' | 'completed';
const plan = (...statuses: Status[]) => ({ items: STEPS.map((text, i) => ({ id: String(i + 1), text, status: statuses[i] })) });
const tool = (name: string, input: unknown) => ({ type: 'tool_use', name, input });
const text = (value: string) => ({ type: 'text', text: value });

const SCRIPT = {
  conversations: [
    {
      match: 'Look around the app',
      replies: [
        { content: [tool('todo', plan('in_progress', 'pending'))] },
        { content: [tool('read_file', { path: 'a.py' }), tool('read_file', { path: 'b.py' }), tool('read_file', { path: 'c.py' })] },
        { content: [tool('todo', plan('completed', 'in_progress'))] },
        { content: [tool('todo', plan('completed', 'in_progress'))] },
        { content: [tool('bash', { command: 'ls' }), tool('bash', { command: LONG_COMMAND })] },
        { content: [tool('todo', plan('completed', 'completed'))] },
        { content: [text(ANSWER)] },
      ],
    },
  ],
  on_exhausted: 'text',
};

/** A session saved before histories existed, of `messages` messages (its history is derived once). */
function bigOldSession(sessionId: string, messages: number): string {
  const batch: unknown[] = [{ role: 'user', content: [{ type: 'text', text: 'Go' }] }];
  for (let n = 0; n < (messages - 1) / 2; n++) {
    batch.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `## Step ${n}\n\nReading \`a.py\` again.` },
        { type: 'tool_use', id: `t${n}`, name: 'read_file', input: { path: 'a.py' } },
      ],
    });
    batch.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: 'x = 1\n' }] });
  }
  return [
    { type: 'session', id: sessionId, created: 1_700_000_000.0, format: 1 },
    { type: 'title', text: 'A long one' },
    { type: 'messages', messages: batch },
  ].map((line) => JSON.stringify(line)).join('\n') + '\n';
}

describe('Room to read in the Conversation view (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-room-', ARTIFACTS);
  const { workspace } = workbench;
  let page: Page;
  let view: FrameLocator;
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  let devServer: Server;
  let devHost = '';

  before(async () => {
    devServer = createServer((_request, response) => response.end('dev server: ok\n'));
    await new Promise<void>((resolve) => devServer.listen(0, '127.0.0.1', resolve));
    devHost = `127.0.0.1:${(devServer.address() as AddressInfo).port}`;
    // NET_TASK, a later task of the same session (the script goes on where it stopped).
    SCRIPT.conversations[0]?.replies.push(
      { content: [tool('bash', { command: `curl -s -m 20 http://${devHost}/` })] },
      { content: [text('The dev server answers.')] },
    );
    for (const name of ['a.py', 'b.py', 'c.py']) writeFileSync(path.join(workspace, name), `# ${name}\n`);
    mkdirSync(path.join(workspace, 'src', 'greeting'), { recursive: true });
    for (const name of ['greet.py', 'farewell.py']) writeFileSync(path.join(workspace, 'src', 'greeting', name), `# ${name}\n`);
    const modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workspaceAgent.approvals': { bash: 'allow', write: 'allow' },
        'workspaceAgent.context.attachActiveEditor': false,
        'workbench.colorTheme': 'Default Light Modern',
      },
      codeServerEnv: { ANTHROPIC_API_KEY: API_KEY },
    });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    view = conversationView(page);
  });

  after(async () => {
    await workbench.close();
    devServer.close();
  });
  afterEach((t) => workbench.screenshotIfFailed(t));

  /** The side bar's pane whose header says `title`, and its box. */
  const pane = (title: string) => page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: title }) });
  let emptyPlanRoom = 0;

  it('leaves the side bar to the Conversation while there is no plan: the empty Plan view is one header line', async () => {
    await showConversationView(page);
    await view.locator('#empty').waitFor();
    const header = pane('Plan').locator('.pane-header');
    assert.equal(await header.getAttribute('aria-expanded'), 'false', 'the empty Plan view starts collapsed');
    const plan = await pane('Plan').boundingBox();
    const room = await pane('Conversation').boundingBox();
    const bar = await page.locator('.part.sidebar').boundingBox();
    assert.ok(plan && room && bar, 'all drawn');
    console.log(`No plan yet: the Plan pane ${plan.height} px, the Conversation pane ${room.height} px of the side bar's ${bar.height} px`);
    assert.ok(plan.height < 40, `the empty Plan is a header: ${plan.height} px`);
    // The title, the Plan's and MCP Servers' headers aside, the Conversation has the bar.
    assert.ok(room.height > bar.height - 140, `the Conversation has the side bar: ${room.height} of ${bar.height} px`);
    emptyPlanRoom = room.height;
    await shot('room-no-plan-light');
    await useDarkTheme(page);
    await shot('room-no-plan-dark');
    await useLightTheme(page);
  });

  it('folds three reads in a row into "Read 3 files", two plan updates into one row, and tags cards with their step', async () => {
    await showConversationView(page);
    const input = view.locator('#input');
    await input.click();
    await input.pressSequentially(TASK);
    await input.press('Enter');
    await view.locator('.card.answer', { hasText: 'That is all.' }).waitFor({ timeout: 60_000 });
    // How much room the view has at 1280×800 (the Plan view above it takes a fifth at first).
    const frame = await page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: 'Conversation' }) }).boundingBox();
    console.log(`The Conversation pane at 1280×800: ${JSON.stringify(frame)}`);
    assert.ok(frame && frame.height > 400, `room to read: ${JSON.stringify(frame)}`);
    // The plan came: the Plan view opened itself on its rows (the Conversation gave it room).
    await pane('Plan').locator('.pane-header[aria-expanded="true"]').waitFor();
    await planView(page).getByRole('treeitem', { name: /^Read the sources/ }).waitFor();
    const withPlan = (await pane('Conversation').boundingBox())?.height ?? 0;
    console.log(`With the plan: the Conversation pane ${withPlan} px (${emptyPlanRoom} px with no plan)`);
    assert.ok(emptyPlanRoom > withPlan + 60, `an empty Plan took less room: ${emptyPlanRoom} px vs ${withPlan} px`);
    await shot('room-with-plan-light');
    await useDarkTheme(page);
    await shot('room-with-plan-dark');
    await useLightTheme(page);

    const reads = view.locator('details.fold.read-fold');
    await reads.locator('summary', { hasText: 'Read 3 files' }).waitFor();
    assert.equal(await view.locator('.row.read:visible').count(), 1, 'only the fold\'s row shows');
    await reads.locator('summary').click();
    for (const name of ['a.py', 'b.py', 'c.py']) {
      await reads.locator('.fold-body .row.read', { hasText: name }).waitFor();
    }
    await view.locator('.plan-fold', { hasText: 'Plan updated 2 times' }).waitFor();

    // The step is a small tag at the end of the command's header line, not a row of its own.
    const command = view.locator('.card.command', { hasText: '$ ls' }).filter({ hasNotText: LONG_COMMAND });
    const tag = command.getByRole('button', { name: 'Plan item #2 · List the files: show in the Plan view' });
    assert.equal((await tag.innerText()).trim(), '#2');
    const tagBox = await tag.boundingBox();
    const cmdBox = await command.locator('.cmd').boundingBox();
    assert.ok(tagBox && cmdBox, 'both drawn');
    assert.ok(Math.abs(tagBox.y + tagBox.height / 2 - (cmdBox.y + cmdBox.height / 2)) < 8, `on one line: ${JSON.stringify({ tagBox, cmdBox })}`);
    assert.ok(tagBox.width < 40, `small: ${tagBox.width} px`);

    // The finished run folds under its prompt, and unfolds (issue 50 item 10).
    const prompt = view.locator('#cards > .card.prompt').first();
    const answer = view.locator('.card.answer', { hasText: 'That is all.' });
    await prompt.getByRole('button', { name: 'Fold this run' }).click();
    await answer.waitFor({ state: 'hidden' });
    assert.equal(await command.isVisible(), false, 'the run\'s commands fold too');
    const note = (await prompt.locator('.folded-note').innerText()).trim();
    assert.match(note, /^\d+ cards folded$/);
    await shot('room-run-folded-light');
    await useDarkTheme(page);
    await shot('room-run-folded-dark');
    await useLightTheme(page);
    await prompt.getByRole('button', { name: /^Unfold this run \(\d+ cards\)$/ }).click();
    await answer.waitFor();
    assert.equal(await prompt.locator('.folded-note').count(), 0);
    await prompt.getByRole('button', { name: 'Fold this run' }).waitFor();
  });

  it('gives the model\'s code block a sideways scroll and a Copy button that copies it', async () => {
    const block = view.locator('.card.answer .code-block');
    const pre = block.locator('pre');
    const sizes = await pre.evaluate((node) => ({ scroll: node.scrollWidth, client: node.clientWidth, right: node.getBoundingClientRect().right, page: document.documentElement.clientWidth }));
    assert.ok(sizes.scroll > sizes.client, `the long line scrolls: ${JSON.stringify(sizes)}`);
    assert.ok(sizes.right <= sizes.page, `the block fits in the view: ${JSON.stringify(sizes)}`);
    await pre.evaluate((node) => node.scrollIntoView({ block: 'center' }));
    await shot('room-code-block-light');
    const copy = block.getByRole('button', { name: 'Copy the code' });
    await copy.click();
    await block.getByRole('button', { name: 'Copied to the clipboard' }).waitFor();
    const copied = await waitFor('the code on the clipboard', async () => {
      const clip = await page.evaluate(() => navigator.clipboard.readText()).catch(() => '');
      return clip.includes(LONG_LINE) ? clip : undefined;
    });
    assert.equal(copied?.trim(), CODE);
  });

  /**
   * What a narrow side bar must not do (issue 50, item 8), measured as the user sees it:
   * inline code stays inside its card, a command wraps only between words, and the code
   * block's Copy button covers none of its lines.
   */
  const checkNarrow = async (width: number): Promise<void> => {
    const answer = view.locator('.card.answer', { hasText: 'That is all.' });
    const inline = answer.locator('p code', { hasText: LONG_PATH });
    await inline.evaluate((node) => node.scrollIntoView({ block: 'center' }));
    const cardBox = await answer.boundingBox();
    const codeBox = await inline.boundingBox();
    assert.ok(cardBox && codeBox, 'drawn');
    assert.ok(codeBox.x >= cardBox.x - 0.5 && codeBox.x + codeBox.width <= cardBox.x + cardBox.width + 0.5,
      `at ${width} px the inline code stays inside its card: code ${JSON.stringify(codeBox)}, card ${JSON.stringify(cardBox)}`);

    const command = view.locator('.card.command', { hasText: LONG_COMMAND });
    const cmd = command.locator('.cmd');
    await cmd.evaluate((node) => node.scrollIntoView({ block: 'center' }));
    // Each word of the command (between spaces and slashes) on one line: one top for its letters.
    const words = await cmd.evaluate((node) => {
      const split: { word: string; lines: number }[] = [];
      const all = new Set<number>();
      const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        for (const match of (text.textContent ?? '').matchAll(/[^\s/]+/g)) {
          const range = document.createRange();
          range.setStart(text, match.index);
          range.setEnd(text, match.index + match[0].length);
          const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          tops.forEach((top) => all.add(top));
          split.push({ word: match[0], lines: tops.size });
        }
      }
      return { split, lines: all.size };
    });
    assert.ok(words.lines > 1, `at ${width} px the command wraps: ${JSON.stringify(words)}`);
    assert.deepEqual(words.split.filter((w) => w.lines !== 1), [], `at ${width} px no word of the command is broken: ${JSON.stringify(words)}`);
    assert.equal(words.split.map((w) => w.word).join(' '), LONG_COMMAND.replace(/\//g, ' ').replace(/^/, '$ ').replace(/\s+/g, ' '), 'all its words');
    const cmdBox = await cmd.boundingBox();
    const commandBox = await command.boundingBox();
    assert.ok(cmdBox && commandBox && cmdBox.x + cmdBox.width <= commandBox.x + commandBox.width + 0.5, `at ${width} px the command stays inside its card`);

    const block = answer.locator('.code-block');
    const pre = block.locator('pre');
    await pre.evaluate((node) => node.scrollIntoView({ block: 'center' }));
    const copy = block.getByRole('button', { name: 'Copy the code' });
    const copyBox = await copy.boundingBox();
    const preBox = await pre.boundingBox();
    assert.ok(copyBox && preBox, 'drawn');
    assert.ok(copyBox.y + copyBox.height <= preBox.y + 0.5, `at ${width} px the Copy button is above the code, covering no line: copy ${JSON.stringify(copyBox)}, code ${JSON.stringify(preBox)}`);
    assert.ok(copyBox.x + copyBox.width <= preBox.x + preBox.width + 0.5, `at ${width} px the Copy button is in sight: ${JSON.stringify(copyBox)}`);
    // Its own colours: not the code block's background (it was hard to see in dark themes).
    const colours = await copy.evaluate((node) => ({ button: getComputedStyle(node).backgroundColor, bar: getComputedStyle(node.parentElement!).backgroundColor }));
    assert.notEqual(colours.button, colours.bar, `the Copy button stands out from its bar: ${JSON.stringify(colours)}`);
  };

  it('reads well at 1280×800 and in narrow side bars (300 and 210 px), light and dark: inline code, commands and Copy buttons fit', async () => {
    await view.locator('.card.prompt').evaluate((node) => node.scrollIntoView({ block: 'start' }));
    await shot('room-sidebar-light');
    await useDarkTheme(page);
    await shot('room-sidebar-dark');
    for (const width of [300, 210]) {
      // Narrow the side bar by its sash, as a user would.
      await resizeSideBar(page, width);
      await useDarkTheme(page);
      await checkNarrow(width);
      await shot(`room-narrow-${width}-dark`);
      await view.locator('.card.command', { hasText: LONG_COMMAND }).evaluate((node) => node.scrollIntoView({ block: 'center' }));
      await shot(`room-narrow-${width}-command-dark`);
      await useLightTheme(page);
      await checkNarrow(width);
      await shot(`room-narrow-${width}-light`);
      await view.locator('.card.command', { hasText: LONG_COMMAND }).evaluate((node) => node.scrollIntoView({ block: 'center' }));
      await shot(`room-narrow-${width}-command-light`);
    }
    const ls = view.locator('.card.command', { hasText: '$ ls' }).filter({ hasNotText: 'cat ' });
    const tag = ls.locator('button.step');
    const head = await ls.locator('.tool-head').boundingBox();
    const tagBox = await tag.boundingBox();
    assert.ok(head && tagBox && tagBox.y + tagBox.height <= head.y + head.height + 1, 'the tag stays in the header');
    await resizeSideBar(page, 300);
  });

  it('shows a network question compactly: its words and its buttons in sight together at 1280×800 (issue 50, item 3)', async () => {
    await showConversationView(page);
    const input = view.locator('#input');
    await input.click();
    await input.pressSequentially(NET_TASK);
    await input.press('Enter');
    const question = view.locator('.card.approval.waiting', { hasText: `Allow network access to ${devHost}` });
    await question.waitFor({ timeout: 60_000 });
    const allow = question.getByRole('button', { name: 'Allow', exact: true });
    await allow.waitFor();
    const boxes = async () => ({
      log: await view.locator('#log').boundingBox(),
      words: await question.locator('.approval-message').boundingBox(),
      buttons: await question.locator('.buttons').boundingBox(),
      card: await question.boundingBox(),
    });
    const seen = await boxes();
    console.log(`A network question at 1280×800: ${JSON.stringify(seen)}`);
    const { log, words, buttons, card } = seen;
    assert.ok(log && words && buttons && card, 'drawn');
    assert.ok(words.y >= log.y - 0.5 && buttons.y + buttons.height <= log.y + log.height + 0.5,
      `the question and its buttons in sight together: ${JSON.stringify(seen)}`);
    assert.ok(card.height < log.height, `the card is shorter than the view: ${card.height} of ${log.height} px`);
    await shot('network-question-light');
    await useDarkTheme(page);
    await shot('network-question-dark');
    await useLightTheme(page);
    await allow.click();
    await view.locator('.card.command', { hasText: `curl -s -m 20 http://${devHost}/` }).locator('.badge', { hasText: 'exit 0' }).waitFor({ timeout: 60_000 });
    await view.locator('.card.answer', { hasText: 'The dev server answers.' }).waitFor({ timeout: 60_000 });
  });

  it('moves the Conversation to the Secondary Side Bar and back', async () => {
    await runCommand(page, 'Workspace Agent: Move Conversation to Secondary Side Bar');
    const aux = page.locator('.part.auxiliarybar');
    await aux.waitFor({ state: 'visible', timeout: 30_000 });
    await waitFor('the view in the Secondary Side Bar', async () => (await aux.locator('.pane-header', { hasText: 'Conversation' }).count()) > 0 || (await aux.locator('.composite.title', { hasText: /Conversation|Workspace Agent/i }).count()) > 0);
    await showConversationView(page);
    await view.locator('.card.answer', { hasText: 'That is all.' }).waitFor();
    const box = await aux.boundingBox();
    assert.ok(box && box.x > 600, `on the right: ${JSON.stringify(box)}`);
    await shot('room-secondary-light');
    await runCommand(page, 'Workspace Agent: Move Conversation Back to the Workspace Agent Side Bar');
    await waitFor('the view back in the side bar', async () => (await page.locator('.part.sidebar .pane-header', { hasText: 'Conversation' }).count()) > 0);
  });

  // The setting as a workspace's .vscode/settings.json sets it (conversation.openIn may be
  // set there): code-server watches the workspace's files, and a change there reaches the
  // extension at once. (A rewrite of the user settings file on disk was not picked up: the
  // web workbench reads its user settings through its own store, not by watching the file.)
  it('opens the conversation as an editor tab when conversation.openIn says "editor"', async () => {
    const settingsFile = path.join(workspace, '.vscode', 'settings.json');
    mkdirSync(path.dirname(settingsFile), { recursive: true });
    writeFileSync(settingsFile, JSON.stringify({ 'workspaceAgent.conversation.openIn': 'editor' }, null, 2));
    const tab = page.locator('.tabs-container .tab.active', { hasText: 'Agent Conversation' });
    await waitFor('Show Conversation to open the editor tab', async () => {
      await runCommand(page, 'Workspace Agent: Show Conversation');
      return tab.waitFor({ timeout: 5_000 }).then(() => true, () => false);
    }, 60_000);
    // The tab is the conversation: its cards are there, over the editor area (VS Code lays
    // a tab's webview over the editor, outside the editor's own elements).
    const editorArea = await page.locator('.part.editor').boundingBox();
    assert.ok(editorArea);
    await waitFor('the conversation\'s cards in the tab', async () => {
      const frames = page.locator('iframe.webview.ready');
      for (let i = 0; i < (await frames.count()); i++) {
        const box = await frames.nth(i).boundingBox();
        if (!box || box.x < editorArea.x || box.width < 300) continue;
        const cards = frames.nth(i).contentFrame().locator('iframe#active-frame').contentFrame().locator('.card.answer', { hasText: 'That is all.' });
        if (await cards.count()) return true;
      }
      return false;
    });
    await shot('room-editor-tab-light');
    await useDarkTheme(page);
    await shot('room-editor-tab-dark');
    await useLightTheme(page);
    writeFileSync(settingsFile, '{}\n');
    // Closed with its tab's ✕ (the keyboard would go to the tab's page, which has the focus).
    const closeTab = async (): Promise<void> => {
      await page.locator('.tabs-container .tab', { hasText: 'Agent Conversation' }).locator('.tab-actions .action-label').click();
      await page.locator('.tabs-container .tab', { hasText: 'Agent Conversation' }).waitFor({ state: 'detached' });
    };
    await closeTab();
    // Back to the side bar: Show Conversation opens the view again, no tab.
    await waitFor('Show Conversation to show the view again, not the tab', async () => {
      await runCommand(page, 'Workspace Agent: Show Conversation');
      if (await tab.waitFor({ timeout: 3_000 }).then(() => true, () => false)) {
        await closeTab(); // the change had not reached it yet
        return false;
      }
      return (await page.locator('.part.sidebar .pane-header', { hasText: 'Conversation' }).count()) > 0;
    });
  });

  it('keeps the first card in sight where it was on "Load earlier"', async () => {
    writeFileSync(path.join(workspace, '.workspace-agent', 'sessions', 'big-old.jsonl'), bigOldSession('big-old', 2_001));
    await runCommand(page, 'Workspace Agent: Resume Session…');
    await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'A long one' }).first().click();
    await showConversationView(page);
    await view.locator('.card.answer h2', { hasText: 'Step 999' }).waitFor({ timeout: 60_000 });
    const log = view.locator('#log');
    await log.evaluate((node) => {
      node.scrollTop = 0;
    });
    const earlier = view.getByRole('button', { name: 'Load earlier' });
    await earlier.waitFor();
    // The newest page begins inside the session's one run: its prompt still heads it (issue 50 item 10).
    const prompts = view.locator('#cards > .card.prompt');
    assert.equal(await prompts.count(), 1, 'the run\'s prompt above the page');
    assert.equal((await prompts.first().locator('.prompt-text').innerText()).trim(), 'Go');
    assert.equal(await view.locator('#cards > [data-card-id]').first().evaluate((node) => node.classList.contains('prompt')), true, 'first');
    await shot('room-page-begins-mid-run-light');
    // The first card under the button: where it is before the click.
    const first = view.locator('#cards > .card.answer').first();
    const initial = await view.locator('#cards > [data-card-id]').count();
    const firstText = (await first.innerText()).trim();
    const beforeBox = await first.boundingBox();
    assert.ok(beforeBox);
    await earlier.click();
    const older = await waitFor('an older page', async () => {
      const count = await view.locator('#cards > [data-card-id]').count();
      return count > initial ? count : undefined;
    });
    const same = view.locator('#cards > .card.answer', { hasText: firstText }).first();
    const afterBox = await same.boundingBox();
    assert.ok(afterBox);
    assert.ok(Math.abs(afterBox.y - beforeBox.y) < 4, `stayed where it was (${older} cards): ${beforeBox.y} → ${afterBox.y}`);
    const scrollTop = await log.evaluate((node) => node.scrollTop);
    assert.ok(scrollTop > 0 && scrollTop < (await log.evaluate((node) => node.scrollHeight - node.clientHeight)) - 100, `not at the bottom: ${scrollTop}`);
    assert.equal(await prompts.count(), 1, 'still once after Load earlier');
    await shot('room-load-earlier-light');
  });
});
