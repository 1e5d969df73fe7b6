/**
 * Processes and browser helpers for the end-to-end test: the scripted model server,
 * code-server with the packaged VSIX installed, and the VS Code UI as a user drives it
 * (command palette, input boxes, notifications). Everything waits on selectors or on
 * observable conditions, never on fixed sleeps.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set (see scripts/ci.sh)`);
  }
  return value;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls `condition` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(what: string, condition: () => T | Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A child process in its own process group, its output saved to a log file. */
export class Service {
  readonly proc: ChildProcess;
  private output = '';

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    options: { env: NodeJS.ProcessEnv; cwd?: string; logFile: string },
  ) {
    const log = createWriteStream(options.logFile);
    this.proc = spawn(command, args, { env: options.env, cwd: options.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [this.proc.stdout, this.proc.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        this.output += chunk.toString();
        log.write(chunk);
      });
    }
  }

  /** Waits until the output matches `pattern` (and fails early if the process exits). */
  async waitForOutput(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
    return waitFor<RegExpMatchArray | undefined>(`${this.name} to print ${pattern}`, () => {
      if (this.proc.exitCode !== null) {
        throw new Error(`${this.name} exited with ${this.proc.exitCode}:\n${this.output.slice(-2000)}`);
      }
      return pattern.exec(this.output) ?? undefined;
    }, timeoutMs) as Promise<RegExpMatchArray>;
  }

  /** Ends the whole process group (code-server starts helpers of its own). */
  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.pid === undefined) {
      return;
    }
    const exited = new Promise((resolve) => this.proc.once('exit', resolve));
    try {
      process.kill(-this.proc.pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-(this.proc.pid ?? 0), 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  }
}

export interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: { model?: string; messages?: unknown[]; system?: unknown };
}

export async function scriptedRequests(baseUrl: string): Promise<RecordedRequest[]> {
  const response = await fetch(`${baseUrl}/_scripted/requests`);
  return (await response.json()) as RecordedRequest[];
}

/** Runs `code-server --install-extension` and fails with its output when it fails. */
export function installExtension(
  codeServer: string,
  vsix: string,
  dirs: { userData: string; extensions: string; config: string },
  env: NodeJS.ProcessEnv,
): void {
  const result = spawnSync(
    codeServer,
    ['--config', dirs.config, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix],
    { env, encoding: 'utf8', timeout: 120_000 },
  );
  if (result.status !== 0 || !/was successfully installed/.test(result.stdout)) {
    throw new Error(`installing ${vsix} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
}

/**
 * The folder the extension starts the server in: its own storage, never the workspace
 * (`python -m` imports from its current folder first).
 */
export function serverFolder(userData: string): string {
  return path.join(userData, 'User', 'globalStorage', 'workspace-agent.workspace-agent');
}

/** Running processes whose command line is `cmdline` and whose working folder is `cwd` (from /proc). */
export function processesIn(cwd: string, cmdline: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      if (args === cmdline && realpathSync(`/proc/${pid}/cwd`) === realpathSync(cwd)) {
        found.push(pid);
      }
    } catch {
      // the process ended while we looked, or is not ours to read
    }
  }
  return found;
}

/** The API key a recorded request carried (x-api-key, or a bearer token). */
export function apiKeyOf(request: RecordedRequest): string | undefined {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
  return request.headers['x-api-key'] ?? bearer?.[1];
}

export function fileExists(file: string): boolean {
  return existsSync(file);
}

// -- The VS Code UI ---------------------------------------------------------------------

/**
 * Switches the workbench to Dark Modern through the theme picker, as a user opens it (its
 * palette row, not the Marketplace one above it), and waits for the dark workbench.
 */
export async function useDarkTheme(page: Page): Promise<void> {
  if (await page.locator('.monaco-workbench.vs-dark').count()) {
    return; // dark already: the picker would only be opened and closed again
  }
  await page.keyboard.press('F1');
  // F1 from a webview (the input box had the keyboard) reaches the workbench a moment later:
  // typed at once, "Pre…" went into the input box.
  await page.locator('.quick-input-widget').waitFor({ state: 'visible' });
  await page.keyboard.type('Preferences: Color Theme');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: /^Preferences: Color Theme/ }).first().click();
  await page.keyboard.type('Dark Modern');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Dark Modern' }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.monaco-workbench.vs-dark').waitFor();
}

export async function useLightTheme(page: Page): Promise<void> {
  if (!(await page.locator('.monaco-workbench.vs-dark').count())) {
    return;
  }
  await page.keyboard.press('F1');
  // F1 from a webview (the input box had the keyboard) reaches the workbench a moment later:
  // typed at once, "Pre…" went into the input box.
  await page.locator('.quick-input-widget').waitFor({ state: 'visible' });
  await page.keyboard.type('Preferences: Color Theme');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: /^Preferences: Color Theme/ }).first().click();
  await page.keyboard.type('Light Modern');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Light Modern' }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.monaco-workbench.vs-dark').waitFor({ state: 'detached' });
}

/** Developer: Reload Window, then the new page's workbench (the extension host starts afresh). */
export async function reloadWindow(page: Page): Promise<void> {
  // Two editors and their servers fill both cores in CI: a reload can take longer than the
  // page's default 30 s to load again.
  const reloaded = page.waitForEvent('load', { timeout: 90_000 });
  await runCommand(page, 'Developer: Reload Window');
  // An Enter the palette did not take leaves it open on the command: press it once more.
  const palette = page.locator('.quick-input-widget');
  const stuck = await palette.waitFor({ state: 'hidden', timeout: 10_000 }).then(
    () => false,
    () => palette.isVisible().catch(() => false),
  );
  if (stuck) {
    await page.keyboard.press('Enter');
  }
  await reloaded;
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
}

/** Runs a palette command by its full title, e.g. "Workspace Agent: Run Task…". */
export async function runCommand(page: Page, title: string, timeoutMs?: number): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  await page.keyboard.press('F1');
  await widget.waitFor({ state: 'visible' });
  await page.keyboard.type(title);
  const row = widget.locator('.quick-input-list .monaco-list-row').first();
  await row.filter({ hasText: title.replace(/…$/, '') }).waitFor({ state: 'visible', timeout: timeoutMs });
  await page.keyboard.press('Enter');
}

/**
 * Picks an item of the open context menu. Hovering a VS Code menu item focuses it and
 * Enter runs it, as a click does; a plain click on an editor context-menu item was not
 * taken in code-server 4.139.
 */
export async function chooseMenuItem(page: Page, label: string): Promise<void> {
  await page.locator('.context-view .action-item', { hasText: label }).hover();
  await page.locator('.context-view .action-item.focused', { hasText: label }).waitFor();
  await page.keyboard.press('Enter');
}

/** Answers an input box that has the given title. */
export async function answerInputBox(page: Page, title: string, text: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  await widget.locator('.quick-input-title', { hasText: title }).waitFor({ state: 'visible' });
  await widget.locator('input').first().fill(text);
  await page.keyboard.press('Enter');
  await widget.waitFor({ state: 'hidden' });
}

/**
 * Replaces the user settings with `settings` the way a user edits them by hand: in
 * settings.json opened from the palette, saved, closed. (This code-server does not notice a
 * change written to the file behind its back.)
 */
export async function editUserSettingsJson(page: Page, settings: Record<string, unknown>, settingsFile: string): Promise<void> {
  // One line: the editor indents after a typed line break and closes brackets it opens
  // (on one line, a typed closing bracket types over the one it added).
  const text = JSON.stringify(settings);
  await runCommand(page, 'Preferences: Open User Settings (JSON)');
  // This VS Code opens it as a modal editor, as it does the Settings editor.
  const lines = page.locator('.monaco-editor .view-lines').filter({ hasText: '"workbench.startupEditor"' });
  await lines.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Control+S');
  await waitFor('settings.json to be saved', () => readLog(settingsFile) === text);
  await closeModalEditor(page, lines, 'settings.json');
}

/** Closes what this VS Code shows as a modal editor (Escape, until `shown` is gone). */
async function closeModalEditor(page: Page, shown: Locator, name: string): Promise<void> {
  await waitFor(`${name} to close`, async () => {
    if (await shown.isVisible()) {
      await page.keyboard.press('Escape');
      await shown.waitFor({ state: 'hidden', timeout: 1000 }).catch(() => undefined);
    }
    return !(await shown.isVisible());
  });
}

/**
 * Sets a string setting the way a user does: in the Settings editor (the User tab, or the
 * one `openCommand` opens, e.g. Remote for machine settings), then closes it.
 */
export async function setStringSetting(
  page: Page,
  id: string,
  value: string,
  settingsFile: string,
  openCommand = 'Preferences: Open User Settings',
): Promise<void> {
  await runCommand(page, openCommand);
  const editor = page.locator('.settings-editor');
  await editor.waitFor();
  await page.keyboard.type(`@id:${id}`);
  const input = editor.locator('.setting-item-contents').filter({ hasText: id.split('.').pop() ?? id }).locator('input').first();
  await input.waitFor();
  await input.fill(value);
  await input.press('Tab');
  await waitFor(`${id} to be saved`, () => readLog(settingsFile).includes(`"${id}": ${JSON.stringify(value)}`));
  // This VS Code shows the settings editor as a modal: Escape closes it.
  await closeModalEditor(page, editor, 'the settings editor');
}

/** Opens a workspace file with Quick Open, as a user does, and waits for its tab. */
export async function openFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget').waitFor({ state: 'visible' });
  await page.keyboard.press('Backspace'); // from commands (">") to files
  await page.keyboard.type(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor();
}

/** The text area of the active editor (not the panel's output view). */
export function activeEditor(page: Page): Locator {
  return page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();
}

/** The editor tab of `name`; with `dirty`, only while it has unsaved changes. */
export function editorTab(page: Page, name: string, dirty = false): Locator {
  return page.locator(`.tabs-container .tab${dirty ? '.dirty' : ''}`, { hasText: name });
}

/**
 * Shows the Plan view with its own palette command (it focuses the view, where clicking
 * the activity bar icon would toggle the side bar). After a reload the side bar may come
 * up before the extension's view container is registered, and a palette opened that early
 * lists commands without the view's: then it is closed and opened again.
 */
export async function showPlanView(page: Page): Promise<void> {
  const body = planView(page).locator('.pane-body');
  await waitFor('the Plan view to show', async () => {
    try {
      await runCommand(page, 'Workspace Agent: Focus on Plan View', 5_000);
    } catch {
      await page.keyboard.press('Escape');
      return false;
    }
    await body.waitFor();
    return true;
  }, 60_000);
}

/** The text of the panel's output view (the transcript or the log). */
export function outputView(page: Page): Locator {
  return page.locator('.part.panel .monaco-editor .view-lines').first();
}

/** Types `text` into the Output view's filter (its title bar's box): only matching lines show. */
export async function filterOutput(page: Page, text: string): Promise<void> {
  await page.locator('.part.panel .viewpane-filter input').first().fill(text);
}

/** A notification toast whose message contains `text`. */
export function notification(page: Page, text: string | RegExp): Locator {
  return page.locator('.notifications-toasts .notification-toast').filter({
    has: page.locator('.notification-list-item-message', { hasText: text }),
  });
}

/**
 * Clicks a button of a notification: on its toast, or in the notification center once the
 * toast is gone (VS Code hides a toast after 10-15 s, which a loaded machine can exceed
 * before the test gets to it; the notification itself stays until it is answered).
 */
export async function clickNotificationButton(page: Page, text: string | RegExp, button: string): Promise<void> {
  const onToast = notification(page, text).getByRole('button', { name: button, exact: true });
  try {
    await onToast.click({ timeout: 3000 });
    return;
  } catch {
    // the toast timed out: answer from the notification center
  }
  await runCommand(page, 'Notifications: Show Notifications');
  const center = page.locator('.notifications-center');
  await center
    .locator('.notification-list-item')
    .filter({ has: page.locator('.notification-list-item-message', { hasText: text }) })
    .getByRole('button', { name: button, exact: true })
    .click();
  await runCommand(page, 'Notifications: Hide Notifications');
  await center.waitFor({ state: 'hidden' });
}

export async function clearNotifications(page: Page): Promise<void> {
  await runCommand(page, 'Notifications: Clear All Notifications');
  await page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'hidden' });
}

/**
 * The hover `target` shows, once it holds `contains`, whitespace folded. Retried: a status
 * bar item that moves while the pointer travels (another item appears) leaves the pointer
 * over its neighbour.
 */
export async function hoverText(page: Page, target: Locator, contains: string): Promise<string> {
  const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: contains }).first();
  return waitFor(`a hover with "${contains}"`, async () => {
    await page.mouse.move(640, 300);
    await target.hover();
    const shown = await hover.waitFor({ timeout: 5_000 }).then(() => true, () => false);
    return shown ? (await hover.innerText()).replace(/\s+/g, ' ') : '';
  }, 60_000);
}

/** The status-bar item of the extension. */
export function statusItem(page: Page): Locator {
  return page.locator('.statusbar-item[aria-label^="Workspace Agent"]').first();
}

/** A row of the Plan view, by its accessible name ("<text>, <status>"). */
export function planRow(page: Page, name: string): Locator {
  return planView(page).getByRole('treeitem', { name, exact: true });
}

/**
 * Folds the Conversation view's pane, so the Plan view has the side bar's height: its tree
 * draws only the rows in sight, and the Conversation takes most of the bar by default.
 */
export async function roomForPlan(page: Page): Promise<void> {
  const header = page.locator('.part.sidebar .pane-header[aria-expanded="true"]', { hasText: 'Conversation' });
  if (await header.count()) {
    await header.first().click();
    await page.locator('.part.sidebar .pane-header[aria-expanded="false"]', { hasText: 'Conversation' }).waitFor();
  }
}

/**
 * Drags the sash between the side bar and the editor, as a user does, until the side bar is
 * about `width` px wide (VS Code keeps it at 170 px at least); returns its width then.
 */
export async function resizeSideBar(page: Page, width: number): Promise<number> {
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  if (!sidebar) {
    throw new Error('the side bar is not showing: open it first');
  }
  const edge = sidebar.x + sidebar.width;
  // The sash between the side bar and the editor: the tall vertical one nearest its right edge.
  const sashes = await page.locator('.monaco-sash.vertical').evaluateAll((nodes) =>
    nodes.map((node) => node.getBoundingClientRect()).filter((box) => box.height > 200).map((box) => box.x + box.width / 2));
  const sash = sashes.reduce((best, x) => (Math.abs(x - edge) < Math.abs(best - edge) ? x : best), edge + 2);
  const y = sidebar.y + sidebar.height / 2;
  await page.mouse.move(sash, y);
  await page.mouse.down();
  await page.mouse.move(sash + Math.sign(sidebar.x + width - sash) * 20, y, { steps: 3 });
  await page.mouse.move(sidebar.x + width, y, { steps: 5 });
  await page.mouse.up();
  return waitFor<number | undefined>(`the side bar to be about ${width} px wide`, async () => {
    const now = (await page.locator('.part.sidebar').boundingBox())?.width ?? 0;
    return Math.abs(now - width) < 12 ? now : undefined;
  }) as Promise<number>;
}

export function planView(page: Page): Locator {
  return page.locator('.pane').filter({ has: page.locator('.pane-header', { hasText: 'Plan' }) });
}

/** The visible text of an editor-like element, with Monaco's non-breaking spaces undone. */
export async function visibleText(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\u00a0/g, ' ');
}

/**
 * Whether the element shows `text`, whitespace aside: Monaco wraps long lines (the output
 * view wraps them) at spaces and after brackets, into separate line elements.
 */
export async function showsText(locator: Locator, text: string): Promise<boolean> {
  const squeeze = (value: string): string => value.replace(/\s+/g, '');
  return squeeze(await visibleText(locator)).includes(squeeze(text));
}

export function readLog(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

export { path };

/**
 * The Conversation view's page. VS Code draws a webview in an iframe (class `webview`)
 * that holds the page's own iframe (`#active-frame`); the view's is the one with the
 * conversation's cards (an editor tab's page would be a second one).
 */
export function conversationView(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').first().frameLocator('iframe#active-frame');
}

/** Shows the Conversation view with its palette command (retried as showPlanView is). */
export async function showConversationView(page: Page): Promise<void> {
  await waitFor('the Conversation view to show', async () => {
    try {
      await runCommand(page, 'Workspace Agent: Show Conversation', 5_000);
    } catch {
      await page.keyboard.press('Escape');
      return false;
    }
    return conversationView(page)
      .locator('#input')
      .waitFor({ timeout: 15_000 })
      .then(() => true)
      .catch(() => false);
  }, 90_000);
}

/**
 * A question waiting in the Conversation view, by its message ("Workspace Agent wants to
 * run `ls`."; the card shows the `code` spans as code, without the backticks).
 */
export function approvalCard(page: Page, message: string): Locator {
  return conversationView(page).locator('.card.approval.waiting', { hasText: message.replace(/`/g, '') });
}
