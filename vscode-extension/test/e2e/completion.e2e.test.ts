/**
 * End to end, as a user: the Conversation input's completion lists and its image chips.
 * - `@src/a` lists src/a.py (not what `files.exclude` or `.gitignore` hide); Enter puts
 *   `@src/a.py ` in, Enter sends, and the model gets the file's text in the prompt's
 *   editor-context block.
 * - `/` lists the workspace's saved prompt with its description and argument hint; choosing
 *   it puts `/review ` in, and the model gets the saved text with the argument.
 * - An image pasted into the input shows as a thumbnail chip (screenshots, light and dark).
 * - Sent with a task, it reaches the model as an image block and its prompt card shows a
 *   thumbnail, which opens larger (a lightbox, and from there an editor tab); after Reload
 *   Window the card reads it back from the history and shows it again (light and dark).
 *
 * code-server with the packaged VSIX in headless Chromium, against the project's scripted
 * Messages API server (a test double that replays a fixed script; no real model is called).
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import {
  type RecordedRequest,
  conversationView,
  editorTab,
  path,
  reloadWindow,
  scriptedRequests,
  showConversationView,
  useDarkTheme,
  useLightTheme,
  waitFor,
} from './harness';
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

/** A PNG "screenshot" of `width` x `height`: a window-like frame with bands of colour (RGB). */
function picturePng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer): number => {
    let c = 0xffffffff;
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (kind: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(kind, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const bar = y < 24; // a title bar
      const band = Math.floor((x / width) * 4);
      const colour = bar ? [60, 60, 70] : [[230, 80, 60], [250, 190, 60], [80, 170, 110], [70, 130, 220]][band] ?? [0, 0, 0];
      const shade = bar ? 1 : 0.65 + 0.35 * (y / height);
      row.set(colour.map((v) => Math.round(v * shade)), 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function paste(input: Locator, name: string, png: Buffer): Promise<void> {
  await input.evaluate((node, [file, data]) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], file, { type: 'image/png' }));
    node.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
  }, [name, png.toString('base64')] as const);
}

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

  it('sends the pasted image with the task; its card shows a thumbnail that opens larger, and after Reload Window too', async () => {
    const input = view.locator('#input');
    await input.fill('');
    await view.getByRole('button', { name: 'Remove screenshot.png' }).click();
    await view.locator('#images').waitFor({ state: 'hidden' });
    const picture = picturePng(480, 300);
    await paste(input, 'window.png', picture);
    await view.locator('#images img.thumb[alt="window.png"]').waitFor();
    await input.pressSequentially('What is in this picture?');
    await input.press('Enter');
    await view.locator('#images').waitFor({ state: 'hidden' }); // the chip went with the task

    const card = view.locator('.card.prompt', { hasText: 'What is in this picture?' });
    const thumb = card.getByRole('button', { name: 'Image 1 of 1: PNG 480x300. Open it larger' });
    await thumb.locator('img.thumb').waitFor();
    await card.locator('.chip', { hasText: 'image PNG 480x300' }).waitFor();
    await waitFor('the model to get the image', async () => {
      const requests = await scriptedRequests(modelUrl);
      return requests.some((r) => JSON.stringify(r.body).includes(picture.toString('base64')));
    });
    await view.locator('.card.answer').last().waitFor();
    await waitFor('the run to end', async () => (await view.locator('#cancel').isHidden()));
    await shot('image-card-light');

    // A click opens it larger: a dialog over the conversation; Escape closes it, the focus goes back.
    await thumb.click();
    const lightbox = view.getByRole('dialog', { name: 'Image 1 of 1: PNG 480x300' });
    await lightbox.locator('img.lightbox-image').waitFor();
    const shown = await lightbox.locator('img.lightbox-image').evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
    assert.deepEqual(shown, [480, 300]);
    await shot('image-lightbox-light');
    await page.keyboard.press('Escape');
    await lightbox.waitFor({ state: 'hidden' });
    assert.equal(await thumb.evaluate((node) => node === document.activeElement), true);

    // From the dialog, the image opens in an editor tab (VS Code's image preview).
    await thumb.click();
    await lightbox.getByRole('button', { name: 'Open the image in an editor tab' }).click();
    const tab = editorTab(page, '.png').first();
    await tab.waitFor({ timeout: 30_000 });
    await page.locator('.tabs-container .tab.active', { hasText: '.png' }).waitFor();
    await view.getByRole('button', { name: 'Close the image (Escape)' }).click();
    await lightbox.waitFor({ state: 'hidden' });
    await tab.click({ button: 'middle' }); // closes it: the preview is a webview too, it would take the clicks below
    await tab.waitFor({ state: 'detached' });

    // After a reload the card reads the image back from the history (workspaceAgent/historyImage).
    await page.locator('.part.editor').click({ position: { x: 400, y: 400 } }); // the palette's keys go to the workbench
    await reloadWindow(page);
    view = conversationView(page);
    await showConversationView(page);
    const again = view.locator('.card.prompt', { hasText: 'What is in this picture?' });
    await again.locator('img.thumb').waitFor({ timeout: 60_000 });
    const src = await again.locator('img.thumb').getAttribute('src');
    assert.equal(src, `data:image/png;base64,${picture.toString('base64')}`);
    await again.scrollIntoViewIfNeeded();
    await shot('image-card-reloaded-light');
    await page.locator('.part.editor').click({ position: { x: 400, y: 400 } });
    await useDarkTheme(page);
    await again.locator('img.thumb').waitFor();
    await shot('image-card-reloaded-dark');
    await again.getByRole('button', { name: /^Image 1 of 1/ }).click();
    await view.getByRole('dialog').locator('img.lightbox-image').waitFor();
    await shot('image-lightbox-dark');
    await page.keyboard.press('Escape');
    await page.locator('.part.editor').click({ position: { x: 400, y: 400 } });
    await useLightTheme(page);
  });
});
