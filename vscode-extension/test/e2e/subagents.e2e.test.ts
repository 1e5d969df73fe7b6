/**
 * End to end, as a user: the agent hands a search to an `explore` subagent. While it works,
 * the Plan view shows the subagent under the step that started it, with its own plan as
 * rows; the Conversation view shows its calls as one group under the task's card, folded
 * once it is done with its tokens. Screenshots, light and dark.
 *
 * code-server with the packaged VSIX in headless Chromium, against the project's scripted
 * Messages API server (a test double that replays a fixed script; no real model is called;
 * the subagent's requests are told apart by their system prompt). Needs what
 * plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  conversationView,
  notification,
  path,
  planRow,
  planView,
  roomForPlan,
  runCommand,
  scriptedRequests,
  showConversationView,
  showPlanView,
  useDarkTheme,
  useLightTheme,
} from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-subagents`);
const tool = (name: string, input: unknown, id?: string) => ({ type: 'tool_use', name, input, ...(id ? { id } : {}) });
const text = (value: string) => ({ type: 'text', text: value });
const todo = (...items: [string, string][]) =>
  tool('todo', { items: items.map(([itemText, status], n) => ({ id: String(n + 1), text: itemText, status })) });

const SCRIPT = {
  conversations: [
    {
      match: 'where is greet defined',
      match_system: '"explore" subagent',
      replies: [
        { content: [todo(['Search the sources', 'in_progress'], ['Read greeting.py', 'pending'])] },
        { content: [tool('read_file', { path: 'greeting.py' })] },
        { content: [todo(['Search the sources', 'completed'], ['Read greeting.py', 'in_progress'])] },
        // Held a while: the test looks at the subagent at work, half way through its plan.
        { content: [todo(['Search the sources', 'completed'], ['Read greeting.py', 'completed'])], delay: 8 },
        { content: [text('greet() is defined in greeting.py, line 1.')] },
      ],
    },
    {
      match: 'Find where greet',
      replies: [
        { content: [todo(['Find the greeting', 'in_progress'], ['Report it', 'pending'])] },
        { content: [tool('task', { description: 'Find greet', prompt: 'where is greet defined?', agent: 'explore' }, 'toolu_task_1')] },
        { content: [todo(['Find the greeting', 'completed'], ['Report it', 'completed']), text('greet() is in greeting.py.')] },
        { content: [text('greet() is in greeting.py.')] },
      ],
    },
  ],
  on_exhausted: 'text',
};

describe('A subagent in the sidebar (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-subagents-', ARTIFACTS);
  const { workspace } = workbench;
  let page: Page;
  let modelUrl: string;
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });

  before(async () => {
    writeFileSync(path.join(workspace, 'greeting.py'), 'def greet(name):\n    return f"Hello, {name}!"\n');
    modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: { 'workspaceAgent.baseUrl': modelUrl },
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key' },
    });
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('shows the subagent and its own plan under the step that started it, then its group folded in the conversation', async () => {
    await showPlanView(page);
    await runCommand(page, 'Workspace Agent: Run Task…');
    const input = page.locator('.quick-input-widget');
    await input.locator('.quick-input-title', { hasText: 'Workspace Agent: Run Task' }).waitFor();
    await input.locator('input').first().fill('Find where greet is defined');
    await page.keyboard.press('Enter');

    // At work: the step, the subagent under it, its plan under the subagent.
    await roomForPlan(page);
    const view = planView(page);
    await planRow(page, 'Find the greeting, in progress').waitFor({ timeout: 60_000 });
    const subagent = planRow(page, 'Subagent explore: Find greet, 1/2 · working');
    await subagent.waitFor({ timeout: 60_000 });
    await planRow(page, 'Search the sources, completed, in the subagent\'s plan').waitFor();
    await planRow(page, 'Read greeting.py, in progress, in the subagent\'s plan').waitFor();
    const levels = await Promise.all(
      [planRow(page, 'Find the greeting, in progress'), subagent, planRow(page, 'Read greeting.py, in progress, in the subagent\'s plan')].map(
        (row) => row.getAttribute('aria-level'),
      ),
    );
    assert.deepEqual(levels, ['1', '2', '3'], 'the step, its subagent, the subagent\'s plan: one under the other');
    await shot('subagent-plan-light');

    await notification(page, /^Workspace Agent: done/).waitFor({ timeout: 90_000 });
    const done = view.getByRole('treeitem', { name: /^Subagent explore: Find greet, done · [\d,]+ tokens/ });
    await done.waitFor();
    await planRow(page, 'Read greeting.py, completed, in the subagent\'s plan').waitFor();
    await useDarkTheme(page);
    await shot('subagent-plan-dark');

    // The conversation: one group under the task's card, folded now it is done.
    await showConversationView(page);
    const conversation = conversationView(page);
    const group = conversation.locator('details.card.subagent');
    await group.waitFor();
    assert.equal(await group.evaluate((node) => (node as HTMLDetailsElement).open), false, 'folded once the subagent is done');
    const head = (await group.locator(':scope > summary').innerText()).replace(/\s+/g, ' ');
    assert.match(head, /^Subagent explore Find greet done · [\d,]+ tokens · ≈ \$[\d.]+ #1$/, 'its tokens and cost on its row');
    await group.locator(':scope > summary').click();
    await group.locator('.group-body .row.tool.read', { hasText: 'greeting.py' }).waitFor();
    await group.locator('.group-body details.output.result').waitFor();
    await shot('subagent-conversation-dark');
    await useLightTheme(page);
    await shot('subagent-conversation-light');

    const requests = await scriptedRequests(modelUrl);
    const parents = requests.filter((r) => !JSON.stringify(r.body.system ?? '').includes('\\"explore\\" subagent'));
    assert.ok(parents.length >= 3 && parents.length < requests.length, 'the subagent asked the model on its own');
    assert.ok(!JSON.stringify(parents.map((r) => r.body.messages)).includes('return f\\"Hello'), 'the parent never saw the file the subagent read');
  });
});
