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
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  type RecordedRequest,
  activeEditor,
  answerInputBox,
  chooseMenuItem,
  notification,
  openFile,
  outputView,
  path,
  runCommand,
  scriptedRequests,
  showsText,
  waitFor,
} from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-context`);
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
  const workbench = new Workbench('wa-e2e-context-', ARTIFACTS);
  const { workspace } = workbench;
  let modelUrl = '';
  let page: Page;

  before(async () => {
    mkdirSync(path.join(workspace, 'src'), { recursive: true });
    writeFileSync(path.join(workspace, 'src', 'app.py'), APP);
    writeFileSync(path.join(workspace, 'config.json'), CONFIG);

    modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workspaceAgent.approvals': { bash: 'allow', write: 'allow' },
      },
      // The key as a user's shell would have it: the extension hands it on to the server.
      codeServerEnv: { ANTHROPIC_API_KEY: API_KEY },
    });
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

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
    await chooseMenuItem(page, 'Ask About Selection…');
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
