/**
 * End to end, as a user: the Conversation input's completion lists and its image chips.
 * - `@src/a` lists src/a.py (not what `files.exclude` or `.gitignore` hide); Enter puts
 *   `@src/a.py ` in, Enter sends, and the model gets the file's text in the prompt's
 *   editor-context block.
 * - `/` lists the workspace's saved prompt with its description and argument hint; choosing
 *   it puts `/review ` in, and the model gets the saved text with the argument.
 * - An image pasted into the input shows as a thumbnail chip (screenshots, light and dark).
 *
 * code-server with the packaged VSIX in headless Chromium, against the project's scripted
 * Messages API server (a test double that replays a fixed script; no real model is called).
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { type RecordedRequest, conversationView, path, scriptedRequests, showConversationView, useDarkTheme, useLightTheme, waitFor } from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-completion`);
const REVIEW = '---\ndescription: Review a file for bugs\nargument-hint: FILE\n---\nReview $1 for bugs; change nothing.\n';
const A_PY = 'def answer():\n    return 42  # the mentioned file\n';
const ASK = 'Explain';
const SCRIPT = {
  // One session: the slash command's run follows the first one's, in the same conversation.
  conversations: [
    {
      match: ASK,
      replies: [{ content: [{ type: 'text', text: 'answer() returns 42.' }] }, { content: [{ type: 'text', text: 'src/a.py looks fine.' }] }],
    },
  ],
  on_exhausted: 'text',
};

function firstUserTexts(request: RecordedRequest): string[] {
  const [first] = (request.body.messages ?? []) as { role: string; content: { type: string; text?: string }[] }[];
  assert.equal(first?.role, 'user');
  return first.content.filter((block) => block.type === 'text').map((block) => block.text ?? '');
}

describe('The Conversation input: @ and / completion, pasted images (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-completion-', ARTIFACTS);
  const { workspace } = workbench;
  let page: Page;
  let view: FrameLocator;
  let modelUrl: string;
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  const options = () => view.locator('#completions [role="option"]');

  before(async () => {
    const write = (name: string, text: string): void => {
      mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
      writeFileSync(path.join(workspace, name), text);
    };
    write('.workspace-agent/commands/review.md', REVIEW);
    write('src/a.py', A_PY);
    write('src/app.ts', 'export {};\n');
    write('src/a_hidden.py', 'hidden by files.exclude\n');
    write('src/gen/a_built.py', 'ignored by .gitignore\n');
    write('.gitignore', 'src/gen/\n');
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workspaceAgent.context.attachActiveEditor': false, // the block comes from the mention alone
        'files.exclude': { '**/a_hidden.py': true },
        'workbench.colorTheme': 'Default Light Modern',
      },
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key' },
    });
    view = conversationView(page);
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('@src/a lists the file, Enter puts the mention in, and the model gets the file in the context block', async () => {
    await showConversationView(page);
    const input = view.locator('#input');
    await input.click();
    await input.pressSequentially(`${ASK} @`);
    const list = view.locator('#completions[role="listbox"]');
    await list.waitFor();
    assert.equal(await input.getAttribute('aria-expanded'), 'true');
    await options().filter({ hasText: '@problems' }).waitFor();
    await options().filter({ hasText: '@diff' }).waitFor();
    await input.pressSequentially('src/a');
    await waitFor('the list to narrow to src/a', async () => (await options().first().innerText()).startsWith('@src/a.py'));
    const labels = await options().allInnerTexts();
    assert.ok(!labels.some((l) => l.includes('a_hidden.py')), `files.exclude hides a_hidden.py: ${labels.join(' | ')}`);
    assert.ok(!labels.some((l) => l.includes('a_built.py') || l.includes('src/gen/')), `.gitignore hides src/gen/: ${labels.join(' | ')}`);
    assert.equal(await input.getAttribute('aria-activedescendant'), await options().first().getAttribute('id'));
    assert.equal(await options().first().getAttribute('aria-selected'), 'true');
    await shot('completion-mention');
    // Down moves the choice, Up brings it back; Enter takes it.
    await input.press('ArrowDown');
    assert.equal(await options().nth(1).getAttribute('aria-selected'), 'true');
    await input.press('ArrowUp');
    await input.press('Enter');
    assert.equal(await input.inputValue(), `${ASK} @src/a.py `);
    await list.waitFor({ state: 'hidden' });
    await view.locator('#mentions .mention-chip', { hasText: '@src/a.py' }).waitFor();
    await input.press('Enter');
    await view.locator('.card.prompt', { hasText: `${ASK} @src/a.py` }).waitFor();
    await view.locator('.card.answer', { hasText: 'answer() returns 42.' }).waitFor({ timeout: 60_000 });

    const [request] = (await scriptedRequests(modelUrl)).filter((r) => JSON.stringify(r.body).includes(ASK));
    assert.ok(request, 'the model got no request with the task');
    const [block, prompt] = firstUserTexts(request);
    assert.equal(prompt, `${ASK} @src/a.py`);
    assert.ok(block?.startsWith('<editor-context>'), block);
    assert.ok(block.includes('Mentioned file src/a.py:'), block);
    assert.ok(block.includes(A_PY), block);
  });

  it('Escape closes the list and leaves the text as typed', async () => {
    const input = view.locator('#input');
    await input.pressSequentially('@sr');
    await options().first().waitFor();
    await input.press('Escape');
    await view.locator('#completions').waitFor({ state: 'hidden' });
    assert.equal(await input.inputValue(), '@sr');
    await input.fill('');
  });

  it('/ lists the saved prompt with its description; choosing it puts /review in, and it runs', async () => {
    const input = view.locator('#input');
    await input.pressSequentially('/');
    const review = options().filter({ hasText: '/review' });
    await review.waitFor({ timeout: 30_000 });
    assert.match((await review.innerText()).replace(/\s+/g, ' '), /\/review FILE Review a file for bugs \(\.workspace-agent\/commands\)/);
    await options().filter({ hasText: '/cost' }).waitFor();
    await shot('completion-command');
    await input.pressSequentially('rev');
    await waitFor('/review to come first', async () => (await options().first().innerText()).startsWith('/review'));
    await input.press('Tab');
    assert.equal(await input.inputValue(), '/review ');
    await input.pressSequentially('src/a.py');
    await input.press('Enter');
    await view.locator('.card.answer', { hasText: 'src/a.py looks fine.' }).waitFor({ timeout: 60_000 });
    const requests = await scriptedRequests(modelUrl);
    const last = JSON.stringify(requests.at(-1)?.body.messages?.at(-1));
    assert.ok(last.includes('Review src/a.py for bugs; change nothing.'), `the model got the saved text: ${last}`);
  });

  it('shows an image pasted into the input as a thumbnail chip with a remove button', async () => {
    const input = view.locator('#input');
    const png = readFileSync(path.join(EXTENSION_DIR, 'media', 'icon.png')).toString('base64');
    await input.evaluate((node, data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], 'screenshot.png', { type: 'image/png' }));
      node.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    }, png);
    const chip = view.locator('#images .image-chip');
    await chip.locator('img.thumb[alt="screenshot.png"]').waitFor();
    await chip.getByRole('button', { name: 'Remove screenshot.png' }).waitFor();
    await input.pressSequentially('What is in @src/a');
    await options().first().waitFor();
    await input.press('Enter');
    assert.equal(await input.inputValue(), 'What is in @src/a.py ');
    await shot('image-chip-light');
    await page.locator('.part.editor').click({ position: { x: 400, y: 400 } }); // the palette's keys go to the workbench
    await useDarkTheme(page);
    await chip.locator('img.thumb').waitFor();
    await input.click();
    await input.press('End');
    await input.pressSequentially(' @');
    await options().first().waitFor();
    await shot('image-chip-dark');
    await input.press('Escape');
    await page.locator('.part.editor').click({ position: { x: 400, y: 400 } });
    await useLightTheme(page);
  });
});
