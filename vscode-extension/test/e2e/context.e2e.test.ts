/**
 * End to end, as a user: what the editor knows reaches the agent. code-server with the
 * packaged VSIX, driven in headless Chromium, against the project's scripted Messages API
 * server (a test double that replays a fixed script; no real model is called).
 *
 * - Ask About Selection… from the editor's context menu: the input box says what is
 *   attached, and the selected text reaches the model in the editor-context block.
 * - The agent breaks a JSON file: code-server's own JSON language features report it, and
 *   the agent is told of the new problem (the transcript shows "1 new problem in …").
 *
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up): WA_PYTHON, WA_CODE_SERVER,
 * and optionally WA_VSIX, WA_CHROMIUM, WA_E2E_ARTIFACTS.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, afterEach, before, describe, it } from 'node:test';
import { type Browser, type Page, chromium } from 'playwright-core';
import {
  type RecordedRequest,
  Service,
  activeEditor,
  answerInputBox,
  freePort,
  installExtension,
  notification,
  openFile,
  outputView,
  path,
  requireEnv,
  runCommand,
  scriptedRequests,
  showsText,
  waitFor,
} from './harness';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts'), 'context');
const API_KEY = 'sk-e2e-scripted-key';

const APP = [
  'import json',
  'def legacy_port_parser(value):',
  '    return int(value.split(":")[-1])',
  '',
  '',
  'def main():',
  '    print(legacy_port_parser("localhost:8080"))',
  '',
].join('\n');
/** Lines 2-3 of APP: what the test selects. */
const SELECTED = 'def legacy_port_parser(value):\n    return int(value.split(":")[-1])\n';
const QUESTION = 'What happens with an IPv6 address here?';
const ANSWER = 'It takes the last colon-separated part, so an IPv6 address without a port breaks it.';

const ACTION_QUESTION = 'Could main() take the address from the command line?';
const ACTION_ANSWER = 'Yes: read sys.argv[1] and pass it to legacy_port_parser.';

const CONFIG = '{\n  "name": "demo",\n  "port": 8080\n}\n';
const BROKEN_OLD = '  "port": 8080\n';
const BROKEN_NEW = '  "port": 8080\n  "debug": true\n';

const text = (value: string) => ({ type: 'text', text: value });
const tool = (name: string, input: unknown) => ({ type: 'tool_use', name, input });

const SCRIPT = {
  conversations: [
    // Picked only when the selected text is in the first message: the selection must arrive.
    {
      match: 'legacy_port_parser',
      replies: [{ content: [text(ANSWER)] }, { content: [text(ACTION_ANSWER)] }],
    },
    {
      match: 'debug flag',
      replies: [
        { content: [text('Adding the flag.'), tool('edit_file', { path: 'config.json', old_text: BROKEN_OLD, new_text: BROKEN_NEW })] },
        { content: [text('The editor reports a missing comma; I will leave it for you to look at.')] },
      ],
    },
  ],
  on_exhausted: 'text',
};

const BREAK_TASK = 'Add a debug flag to config.json';

/** The text blocks of the first user message of a recorded request. */
function firstUserTexts(request: RecordedRequest): string[] {
  const [first] = (request.body.messages ?? []) as { role: string; content: { type: string; text?: string }[] }[];
  assert.equal(first?.role, 'user');
  return first.content.filter((block) => block.type === 'text').map((block) => block.text ?? '');
}

describe('Workspace Agent with the editor\'s context (code-server + Chromium)', () => {
  const python = requireEnv('WA_PYTHON');
  const codeServer = requireEnv('WA_CODE_SERVER');
  const vsix = path.resolve(process.env.WA_VSIX ?? path.join(EXTENSION_DIR, 'dist', 'workspace-agent.vsix'));
  const root = mkdtempSync(path.join(tmpdir(), 'wa-e2e-context-'));
  const workspace = path.join(root, 'workspace');
  const userData = path.join(root, 'user-data');
  const extensions = path.join(root, 'extensions');
  const services: Service[] = [];
  let modelUrl = '';
  let browser: Browser | undefined;
  let page: Page;

  // No real key or endpoint from the environment: the scripted one, through the env.
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'MODEL_ID', 'VSCODE_IPC_HOOK_CLI']) {
    delete env[name];
  }

  before(async () => {
    rmSync(ARTIFACTS, { recursive: true, force: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    mkdirSync(path.join(workspace, 'src'), { recursive: true });
    writeFileSync(path.join(workspace, 'src', 'app.py'), APP);
    writeFileSync(path.join(workspace, 'config.json'), CONFIG);

    const scriptFile = path.join(root, 'script.json');
    writeFileSync(scriptFile, JSON.stringify(SCRIPT, null, 2));
    const model = new Service('scripted model', python, ['-m', 'workspace_agent.testing.scripted_model', '--script', scriptFile, '--port', '0'], {
      env,
      logFile: path.join(ARTIFACTS, 'scripted-model.log'),
    });
    services.push(model);
    modelUrl = (await model.waitForOutput(/scripted model listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';

    // The interpreter is a machine setting (code-server is a remote window).
    mkdirSync(path.join(userData, 'Machine'), { recursive: true });
    writeFileSync(path.join(userData, 'Machine', 'settings.json'), JSON.stringify({ 'workspaceAgent.python': python }, null, 2));
    mkdirSync(path.join(userData, 'User'), { recursive: true });
    writeFileSync(
      path.join(userData, 'User', 'settings.json'),
      JSON.stringify(
        {
          'workspaceAgent.baseUrl': modelUrl,
          'workspaceAgent.approvals': { bash: 'allow', write: 'allow' },
          'workbench.startupEditor': 'none',
          'files.autoSave': 'off',
          'workbench.tips.enabled': false,
          'workbench.enableExperiments': false,
          'workbench.secondarySideBar.defaultVisibility': 'hidden',
          'chat.disableAIFeatures': true,
          'security.workspace.trust.enabled': false,
          'telemetry.telemetryLevel': 'off',
          'extensions.autoCheckUpdates': false,
          'extensions.autoUpdate': false,
          'update.mode': 'none',
          'window.restoreWindows': 'none',
        },
        null,
        2,
      ),
    );
    installExtension(codeServer, vsix, { userData, extensions, config: path.join(root, 'code-server.yaml') }, env);

    const port = await freePort();
    const editor = new Service(
      'code-server',
      codeServer,
      [
        '--bind-addr', `127.0.0.1:${port}`,
        '--auth', 'none',
        '--config', path.join(root, 'code-server.yaml'),
        '--user-data-dir', userData,
        '--extensions-dir', extensions,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        workspace,
      ],
      // The key as a user's shell would have it: the extension hands it on to the server.
      { env: { ...env, ANTHROPIC_API_KEY: API_KEY }, logFile: path.join(ARTIFACTS, 'code-server.log') },
    );
    services.push(editor);
    await editor.waitForOutput(/HTTP server listening on/);

    browser = await chromium.launch({
      executablePath: process.env.WA_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(30_000);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  });

  after(async () => {
    if (browser) {
      if (page) {
        await page.screenshot({ path: path.join(ARTIFACTS, 'last.png') }).catch(() => undefined);
        await page.close().catch(() => undefined);
      }
      await browser.close().catch(() => undefined);
    }
    for (const service of services.reverse()) {
      await service.stop();
    }
    cpSync(path.join(userData, 'logs'), path.join(ARTIFACTS, 'code-server-logs'), { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  afterEach(async (t) => {
    if ('passed' in t && !t.passed && page) {
      await page.screenshot({ path: path.join(ARTIFACTS, `failed-${t.name.replace(/[^\w]+/g, '-').slice(0, 60)}.png`) }).catch(() => undefined);
    }
  });

  it('asks about the selection from the editor context menu; the selected text reaches the model', async () => {
    await openFile(page, 'app.py');
    // Select lines 2-3 the way a user does with the keyboard: go to line 2, extend down.
    await activeEditor(page).click();
    await page.keyboard.press('Control+g');
    await page.keyboard.type('2');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');

    // The keybinding opens the question too; close it and use the context menu.
    await page.keyboard.press('Control+Shift+Alt+q');
    const widget = page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: 'Workspace Agent: Ask About Selection' }).waitFor();
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden' });

    await activeEditor(page).locator('.view-line', { hasText: 'legacy_port_parser(value)' }).first().click({ button: 'right' });
    // Hovering an item of a VS Code menu focuses it; Enter runs it as a click does.
    const item = page.locator('.context-view .action-item', { hasText: 'Ask About Selection…' });
    await item.hover();
    await page.locator('.context-view .action-item.focused', { hasText: 'Ask About Selection…' }).waitFor();
    await page.keyboard.press('Enter');
    await widget.locator('.quick-input-title', { hasText: 'Workspace Agent: Ask About Selection' }).waitFor();
    // The input box says what goes along before anything is sent.
    await widget.locator('.quick-input-message', { hasText: 'About src/app.py (lines 2–3 selected)' }).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'ask-about-selection.png') });
    await widget.locator('input').first().fill(QUESTION);
    await page.keyboard.press('Enter');

    await notification(page, /Workspace Agent: done/).waitFor({ timeout: 90_000 });
    const [request] = (await scriptedRequests(modelUrl)).filter((r) => JSON.stringify(r.body).includes('legacy_port_parser'));
    assert.ok(request, 'the model got no request with the selection');
    const [block, prompt] = firstUserTexts(request);
    assert.equal(prompt, QUESTION);
    assert.ok(block?.startsWith('<editor-context>'), block);
    assert.ok(block.includes('Active file: src/app.py'), block);
    assert.ok(block.includes(`Selected in src/app.py, line 2, column 1 to line 4, column 1:\n\`\`\`\n${SELECTED}\n\`\`\``), block);

    await runCommand(page, 'Workspace Agent: Show Transcript');
    await waitFor('the transcript to say what was attached', () => showsText(outputView(page), 'attached: selection src/app.py:2-3'));
    await waitFor('the transcript to show the answer', () => showsText(outputView(page), ANSWER));
  });

  it('the light bulb\'s Ask… asks for the question first, then runs with the selection', async () => {
    await openFile(page, 'app.py');
    await activeEditor(page).click();
    await page.keyboard.press('Control+g');
    await page.keyboard.type('6');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Control+.');
    const menu = page.locator('.action-widget');
    await menu.locator('.monaco-list-row', { hasText: 'Ask Workspace Agent about this…' }).click();

    const widget = page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: 'Workspace Agent: Ask About This' }).waitFor();
    await widget.locator('.quick-input-message', { hasText: 'About src/app.py (lines 6–7 selected)' }).waitFor();
    // The server's own question is offered; the user writes theirs instead.
    assert.match(await widget.locator('input').first().inputValue(), /^Explain the selected code/);
    await widget.locator('input').first().fill(ACTION_QUESTION);
    await page.keyboard.press('Enter');

    await waitFor('the transcript to show the answer', () => showsText(outputView(page), ACTION_ANSWER), 90_000);
    const request = (await scriptedRequests(modelUrl)).at(-1);
    assert.ok(request);
    const messages = (request.body.messages ?? []) as { role: string; content: { type: string; text?: string }[] }[];
    const [block, prompt] = (messages.at(-1)?.content ?? []).map((b) => b.text ?? '');
    assert.equal(prompt, ACTION_QUESTION);
    assert.ok(block?.includes('def main():\n    print(legacy_port_parser("localhost:8080"))\n'), block);
  });

  it('tells the agent about the problem its edit made, as code-server\'s JSON support reports it', async () => {
    await openFile(page, 'config.json');
    await runCommand(page, 'Workspace Agent: New Session');
    await runCommand(page, 'Workspace Agent: Run Task…');
    await answerInputBox(page, 'Workspace Agent: Run Task', BREAK_TASK);

    // The transcript shows the count with the edit's result.
    await runCommand(page, 'Workspace Agent: Show Transcript');
    await waitFor('the transcript to show the new problem', () => showsText(outputView(page), '1 new problem in config.json'), 90_000);
    await page.screenshot({ path: path.join(ARTIFACTS, 'new-problem.png') });

    // And the model got it after the tool's own result: the missing comma, as the editor says it.
    const request = await waitFor<RecordedRequest | undefined>('the model to get the edit\'s result', async () => {
      const requests = await scriptedRequests(modelUrl);
      return requests.find((r) => JSON.stringify(r.body).includes('The editor reports'));
    }, 60_000);
    assert.ok(request);
    const messages = (request.body.messages ?? []) as { role: string; content: { type: string; content?: string }[] }[];
    const result = messages.at(-1)?.content.find((b) => b.type === 'tool_result')?.content ?? '';
    const [edited, headline, problem] = result.split('\n');
    assert.match(edited ?? '', /^Edited config\.json/);
    assert.equal(headline, 'The editor reports 1 new problem in config.json after this change:');
    assert.match(problem ?? '', /^- config\.json:4:\d+ error: .*[Cc]omma/);
  });
});
