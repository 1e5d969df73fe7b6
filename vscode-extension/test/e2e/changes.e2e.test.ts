/**
 * End to end, as a user: what each plan item changed, as diffs, and taking it back.
 * code-server with the packaged VSIX, driven in headless Chromium, against the project's
 * scripted Messages API server (a test double that replays a fixed script; no real model
 * is called). The server, its checkpoints and the tools are the real ones.
 *
 * A 3-step run: step 1 writes greet.py, step 2 reformats app.py with `sed -i` (a change
 * only a scan of the workspace can see), step 3 adds test_app.py, edits NOTES.md and runs
 * a failing grep. The Plan view shows each change under its step; app.py opens in the
 * diff editor with both sides; Revert to Before This Step (step 2) first lists what the
 * server's dry run says it will restore, delete and leave alone, then restores app.py,
 * deletes test_app.py, skips NOTES.md (the user changed it since) and leaves the file the
 * user created alone; Undo Revert puts it back; the model is told; Revert Last Run names
 * the run by its prompt and lists its files; after a reload the tree comes back from the
 * server, and so does Revert Last Run's list.
 *
 * Review mode (approvals.write "review", its own window): Show diff opens the whole file
 * with the proposed line at its own line number, Accept in the diff editor's title bar
 * writes it, the tab closes and the card says "Accepted".
 *
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up): WA_PYTHON, WA_CODE_SERVER,
 * and optionally WA_VSIX, WA_CHROMIUM, WA_E2E_ARTIFACTS.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import {
  answerInputBox,
  approvalCard,
  chooseMenuItem,
  clearNotifications,
  clickNotificationButton,
  conversationView,
  notification,
  path,
  planRow,
  planView,
  reloadWindow,
  resizeSideBar,
  runCommand,
  scriptedRequests,
  showConversationView,
  showPlanView,
  roomForPlan,
  visibleText,
  useDarkTheme,
  useLightTheme,
  waitFor,
} from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
// Beside plan.e2e's folder, not in it: that test empties its folder when it starts.
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-changes`);
const API_KEY = 'sk-e2e-scripted-key';

const APP = 'def main():\n  name = "world"\n  print(f"Hello, {name}!")\n\n\nif __name__ == "__main__":\n  main()\n';
const APP_FORMATTED = APP.replace(/^ {2}/gm, '    ');
const NOTES = '# Notes\n';
const NOTES_AGENT = '# Notes\n\n- greet() has a test now.\n';
const NOTES_USER = `${NOTES_AGENT}- The user's own line, written after the agent.\n`;
const GREET = 'def greet(name):\n    return f"Hello, {name}!"\n';
const TEST_APP = 'from greet import greet\n\n\ndef test_greet():\n    assert greet("x") == "Hello, x!"\n';
const SCRATCH = 'the user created this file while the agent was done\n';
const SED = "sed -i 's/^  /    /' app.py";
const GREP = 'grep -n TODO app.py';

const TASK = 'Tidy up the hello app';
const FOLLOW_UP = 'Is anything left to do?';
const STEPS = ['Add a greeting helper', 'Format the code', 'Add a test and a note'];

type Status = 'pending' | 'in_progress' | 'completed';
const plan = (...statuses: Status[]) => ({
  items: STEPS.map((text, i) => ({ id: String(i + 1), text, status: statuses[i] })),
});
const tool = (name: string, input: unknown) => ({ type: 'tool_use', name, input });
const text = (value: string) => ({ type: 'text', text: value });

const SCRIPT = {
  conversations: [
    {
      match: 'hello app',
      replies: [
        { content: [text('Let me look around first.'), tool('bash', { command: 'ls' })] },
        { content: [tool('todo', plan('in_progress', 'pending', 'pending'))] },
        { content: [tool('write_file', { path: 'greet.py', content: GREET })] },
        { content: [tool('todo', plan('completed', 'in_progress', 'pending'))] },
        { content: [tool('bash', { command: SED })] },
        { content: [tool('todo', plan('completed', 'completed', 'in_progress'))] },
        {
          content: [
            tool('write_file', { path: 'test_app.py', content: TEST_APP }),
            tool('edit_file', { path: 'NOTES.md', old_text: NOTES, new_text: NOTES_AGENT }),
          ],
        },
        { content: [tool('bash', { command: GREP })] },
        { content: [tool('todo', plan('completed', 'completed', 'completed'))] },
        { content: [text('Done: a greeting helper, four-space indents, a test and a note.')] },
        { content: [text('Step 2 was reverted and then restored, so nothing is left to do.')] },
      ],
    },
  ],
  on_exhausted: 'text',
};

describe('What each plan item changed, and reverting it (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-changes-', ARTIFACTS);
  const { workspace } = workbench;
  let modelUrl = '';
  let page: Page;

  const file = (name: string): string => path.join(workspace, name);
  const read = (name: string): string | undefined => (existsSync(file(name)) ? readFileSync(file(name), 'utf8') : undefined);
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });

  /** A row under a step, by its accessible name. */
  const row = (name: string): Locator => planRow(page, name);

  /** Expands a step row (a click toggles it) and waits for one of its children. */
  const expand = async (step: Locator, child: Locator): Promise<void> => {
    if ((await step.getAttribute('aria-expanded')) !== 'true') {
      await step.click();
    }
    await child.waitFor();
  };

  before(async () => {
    writeFileSync(file('app.py'), APP);
    writeFileSync(file('NOTES.md'), NOTES);

    modelUrl = await workbench.startScriptedModel(SCRIPT);
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workspaceAgent.approvals': { bash: 'allow', write: 'allow' },
        // Side by side whatever the width, so both sides are on screen.
        'diffEditor.renderSideBySide': true,
        'diffEditor.useInlineViewWhenSpaceIsLimited': false,
      },
      // The key as a user's shell would have it: the extension hands it on to the server.
      codeServerEnv: { ANTHROPIC_API_KEY: API_KEY },
    });
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('runs a 3-step task whose step 2 changes app.py through bash', async () => {
    await showPlanView(page);
    await planView(page).locator('.welcome-view-content').getByText('No plan yet').waitFor();
    await runCommand(page, 'Workspace Agent: Run Task…');
    const input = page.locator('.quick-input-widget');
    await input.locator('.quick-input-title', { hasText: 'Workspace Agent: Run Task' }).waitFor();
    await input.locator('input').first().fill(TASK);
    await page.keyboard.press('Enter');
    await notification(page, 'Workspace Agent: done (3/3 plan items completed).').waitFor({ timeout: 120_000 });
    assert.equal(read('app.py'), APP_FORMATTED);
    assert.equal(read('test_app.py'), TEST_APP);
    assert.equal(read('NOTES.md'), NOTES_AGENT);
    await clearNotifications(page);
  });

  it('shows each change under its step: files with M/A and line counts, commands with their exit status', async () => {
    await roomForPlan(page);
    // The step rows read as before (text and status); what they changed is their description.
    const step2 = row('Format the code, completed');
    await step2.locator('.label-description', { hasText: '#2 · 1 file, 1 command' }).waitFor();
    const app = row('app.py, modified, 3 lines added, 3 removed');
    await expand(step2, app);
    assert.match(await visibleText(app.locator('.label-description')), /^\+3 −3$/);
    // The decoration provider answers after the row is drawn.
    await waitFor('the M decoration on app.py', async () => (await decorationBadge(app)) === 'M', 10_000);
    assert.ok(await app.locator('.file-icon').count(), 'the icon theme gives the row a file icon');
    const sed = row(`command ${SED}, exit status 0`);
    await sed.locator('.codicon-pass').waitFor();

    const step3 = row('Add a test and a note, completed');
    const testApp = row('test_app.py, added, 5 lines added, 0 removed');
    await expand(step3, testApp);
    await waitFor('the A decoration on test_app.py', async () => (await decorationBadge(testApp)) === 'A', 10_000);
    await row('NOTES.md, modified, 2 lines added, 0 removed').waitFor();
    await row(`command ${GREP}, exit status 1`).locator('.codicon-error').waitFor();

    // The first command ran before there was a plan.
    const beforePlan = row('Before the plan, 1 command');
    await expand(beforePlan, row('command ls, exit status 0'));
    await expand(row('Add a greeting helper, completed'), row('greet.py, added, 2 lines added, 0 removed'));
    // Nothing else: step 2 did not collect step 3's files, nor step 1's.
    assert.equal(await step2.getAttribute('aria-expanded'), 'true');
    const rows: (string | null)[] = [];
    for (const treeItem of await planView(page).getByRole('treeitem').all()) {
      rows.push(await treeItem.getAttribute('aria-label'));
    }
    assert.deepEqual(rows, [
      'Before the plan, 1 command',
      'command ls, exit status 0',
      'Add a greeting helper, completed',
      'greet.py, added, 2 lines added, 0 removed',
      'Format the code, completed',
      'app.py, modified, 3 lines added, 3 removed',
      `command ${SED}, exit status 0`,
      'Add a test and a note, completed',
      'test_app.py, added, 5 lines added, 0 removed',
      'NOTES.md, modified, 2 lines added, 0 removed',
      `command ${GREP}, exit status 1`,
    ]);
  });

  it('opens app.py of step 2 in the diff editor: before and after, titled with the file and the step', async () => {
    await row('app.py, modified, 3 lines added, 3 removed').click();
    const title = 'app.py (plan item #2 "Format the code")';
    await page.locator('.tabs-container .tab.active', { hasText: title }).waitFor();
    const diff = page.locator('.editor-group-container.active .monaco-diff-editor').first();
    const original = diff.locator('.editor.original .view-lines');
    const modified = diff.locator('.editor.modified .view-lines');
    await waitFor('both sides of the diff to show app.py', async () => {
      const [left, right] = [await visibleText(original), await visibleText(modified)];
      return /^ {2}print\(f"Hello, \{name\}!"\)$/m.test(left) && /^ {4}print\(f"Hello, \{name\}!"\)$/m.test(right);
    });
    assert.ok(!/^ {4}print/m.test(await visibleText(original)), 'the left side is before the step');
    // For the README's picture: a wider side bar, so the step rows' descriptions show.
    const sideBar = await page.locator('.part.sidebar').boundingBox();
    if (sideBar) {
      const edge = sideBar.x + sideBar.width + 1;
      await page.mouse.move(edge, 400);
      await page.mouse.down();
      await page.mouse.move(edge + 110, 400, { steps: 5 });
      await page.mouse.up();
    }
    // The pointer on step 2 shows its inline action (Revert to Before This Step).
    await row('Format the code, completed').hover();
    await row('Format the code, completed').getByRole('button', { name: 'Revert to Before This Step' }).waitFor();
    const image = await shot('changes-view');
    assert.ok(image.length > 10_000);
  });

  it('reverts to before step 2: app.py restored, test_app.py deleted, NOTES.md (changed by the user) skipped, the user\'s new file left alone', async () => {
    // Meanwhile the user creates a file and adds a line to one the agent changed.
    writeFileSync(file('scratch.txt'), SCRATCH);
    writeFileSync(file('NOTES.md'), NOTES_USER);

    const step2 = row('Format the code, completed');
    await step2.hover();
    await step2.getByRole('button', { name: 'Revert to Before This Step' }).click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    const question = await visibleText(dialog);
    assert.match(question, /Revert the workspace to before plan item #2 "Format the code"\?/);
    // The server's dry run: exact, with the file the user changed since named as left alone.
    assert.match(question, /Restores 1 file to how it was before it:\s+app\.py\s+Deletes/);
    assert.match(question, /Deletes 1 file the agent created:\s+test_app\.py/);
    assert.match(question, /Leaves 1 file as it is:\s+NOTES\.md \(changed after the agent's last change to it\)/);
    assert.ok(!question.includes('greet.py') && !question.includes('scratch.txt'), 'step 1 and the user\'s file are not part of it');
    assert.equal(read('app.py'), APP_FORMATTED, 'asking changed nothing');
    assert.equal(read('test_app.py'), TEST_APP, 'asking changed nothing');
    await shot('revert-confirmation');
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    const result =
      `Workspace Agent: reverted to before plan item #2 "Format the code": restored app.py; deleted test_app.py. Skipped NOTES.md (changed after the agent's last change to it).`;
    await notification(page, result).waitFor();
    assert.equal(read('app.py'), APP);
    assert.equal(read('test_app.py'), undefined);
    assert.equal(read('NOTES.md'), NOTES_USER, "the user's change is not overwritten");
    assert.equal(read('scratch.txt'), SCRATCH, 'a file the agent never touched is left alone');
    assert.equal(read('greet.py'), GREET, 'step 1 stays');
    await shot('reverted');

    await clickNotificationButton(page, result, 'Undo Revert');
    await notification(page, 'Workspace Agent: revert undone: restored app.py, test_app.py.').waitFor();
    assert.equal(read('app.py'), APP_FORMATTED);
    assert.equal(read('test_app.py'), TEST_APP);
    assert.equal(read('NOTES.md'), NOTES_USER);
    assert.equal(read('scratch.txt'), SCRATCH);
    await clearNotifications(page);
  });

  it('tells the model what was reverted and put back, with the next prompt', async () => {
    const before = (await scriptedRequests(modelUrl)).length;
    await runCommand(page, 'Workspace Agent: Run Task…');
    const input = page.locator('.quick-input-widget');
    await input.locator('.quick-input-message', { hasText: 'continues the current session' }).waitFor();
    await input.locator('input').first().fill(FOLLOW_UP);
    await page.keyboard.press('Enter');
    await notification(page, /Workspace Agent: done/).waitFor({ timeout: 60_000 });
    const [request] = (await scriptedRequests(modelUrl)).slice(before);
    const last = JSON.stringify(request?.body.messages?.at(-1));
    assert.ok(last.includes('[Workspace Agent] The user reverted the workspace to before plan item #2'), last);
    assert.ok(last.includes('[Workspace Agent] The user undid the last revert'), last);
    assert.ok(last.includes(FOLLOW_UP), last);
    await clearNotifications(page);
  });

  it('reverts the whole last run from the view\'s title, overwrites the skipped file when asked, and undoes that from the view\'s menu', async () => {
    const { dialog, question } = await askRevertLastRun(page);
    // The last run that changed files is the first one (the follow-up changed none): the
    // question names it by its prompt and lists what the server's dry run says.
    assert.match(question, new RegExp(`Revert the last run of the agent \\(“${TASK}”\\)\\?`));
    assert.match(question, /Restores 1 file to how it was when that run started:\s+app\.py\s+Deletes/);
    assert.match(question, /Deletes 2 files it created:\s+greet\.py\s+test_app\.py/);
    assert.match(question, /Leaves 1 file as it is:\s+NOTES\.md \(changed after the agent's last change to it\)/);
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    const result =
      "Workspace Agent: reverted to the start of the last run: restored app.py; deleted greet.py, test_app.py. Skipped NOTES.md (changed after the agent's last change to it).";
    await notification(page, result).waitFor();
    assert.equal(read('app.py'), APP);
    assert.equal(read('greet.py'), undefined);
    assert.equal(read('test_app.py'), undefined);
    assert.equal(read('NOTES.md'), NOTES_USER);
    assert.equal(read('scratch.txt'), SCRATCH);

    // The user decides the skipped file goes back too (force), after a second question.
    await clickNotificationButton(page, result, 'Overwrite Skipped Files…');
    await dialog.waitFor();
    assert.match(await visibleText(dialog), /Overwrite the file you changed since\?\s+NOTES\.md \(changed after the agent's last change to it\)/);
    await dialog.getByRole('button', { name: 'Overwrite', exact: true }).click();
    await notification(page, 'Workspace Agent: reverted to the start of the last run: restored NOTES.md.').waitFor();
    assert.equal(read('NOTES.md'), NOTES);
    assert.equal(read('scratch.txt'), SCRATCH);
    await clearNotifications(page);

    // Undo Last Revert, from the view's … menu: the user's NOTES.md is back.
    await (await planHeader(page)).getByRole('button', { name: /More Actions/ }).click();
    await chooseMenuItem(page, 'Undo Last Revert');
    await notification(page, 'Workspace Agent: revert undone: restored NOTES.md.').waitFor();
    assert.equal(read('NOTES.md'), NOTES_USER);
    assert.equal(read('app.py'), APP, 'only the last revert is undone');
    await clearNotifications(page);
  });

  it('shows the same changes after a window reload (read again from the server), the header "1/3 · 2 reverted", and Revert Last Run still lists its files', async () => {
    await reloadWindow(page);
    await showPlanView(page);
    await roomForPlan(page);
    // Revert Last Run took back step 2's app.py (only the overwrite of NOTES.md was undone):
    // the step and its file say so, read again from the server.
    const step2 = row('Format the code, completed, reverted');
    await step2.locator('.label-description', { hasText: 'reverted · #2 · 1 file, 1 command' }).waitFor({ timeout: 60_000 });
    await step2.locator('.custom-view-tree-node-item-icon.codicon-discard').waitFor();
    await expand(step2, row('app.py, modified, 3 lines added, 3 removed, reverted'));
    // Revert Last Run took back steps 1 and 2 (step 3's NOTES.md is the user's again, after
    // the undo): the header does not count them as done.
    await row('Add a greeting helper, completed, reverted').waitFor();
    await row('Add a test and a note, completed').waitFor();
    await planView(page).locator('.pane-header .description', { hasText: '1/3 · 2 reverted' }).waitFor({ state: 'attached' });
    await shot('plan-reverted-header');

    // The window did not see the run: the server says which run was last, and the dry run
    // what reverting it would do now (only the user's NOTES.md, put back by the undo, differs).
    const { dialog, question } = await askRevertLastRun(page);
    assert.match(question, new RegExp(`Revert the last run of the agent \\(“${TASK}”\\)\\?`));
    assert.match(question, /Restores 1 file to how it was when that run started:\s+NOTES\.md/);
    assert.ok(!question.includes('Deletes'), question);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(read('NOTES.md'), NOTES_USER, 'cancelled: nothing changed');
    assert.equal(read('app.py'), APP);
  });

  it('lists each revert in the Conversation, read back after the reload, and its Undo there undoes that revert', async () => {
    await showConversationView(page);
    const view = conversationView(page);
    const revertRow = (words: string): Locator => view.locator('.row.revert', { hasText: words });
    // From the history (the window reloaded since): each revert and undo, in order.
    const step2 = revertRow('Reverted to before step #2 “Format the code”: 1 file restored, 1 file deleted, 1 skipped (undone)');
    await step2.waitFor({ timeout: 60_000 });
    assert.equal(await step2.getByRole('button', { name: /^Undo/ }).count(), 0, 'an undone revert has no Undo');
    await revertRow('Undid the revert to before step #2 “Format the code”: 2 files put back').waitFor();
    const lastRun = revertRow('Reverted the last run: 1 file restored, 2 files deleted, 1 skipped').first();
    await revertRow('Reverted the last run: 1 file restored (undone)').waitFor();
    await revertRow('Undid the revert of the last run: 1 file put back').waitFor();
    // The Plan view folded, so the rows have room in the shots.
    const planHeader = page.locator('.part.sidebar .pane-header[aria-expanded="true"]', { has: page.locator('h3.title', { hasText: /^Plan$/ }) });
    if (await planHeader.count()) await planHeader.click();
    await lastRun.scrollIntoViewIfNeeded();
    // Undo is a button of the normal size (issue 50 item 10): the view's font, as tall as Send.
    const undo = lastRun.getByRole('button', { name: /^Undo: Reverted the last run/ });
    const sizes = await undo.evaluate((node) => ({ font: getComputedStyle(node).fontSize, body: getComputedStyle(document.body).fontSize, height: node.getBoundingClientRect().height }));
    const sendHeight = (await view.locator('#send').boundingBox())?.height ?? 0;
    assert.equal(sizes.font, sizes.body, 'Undo in the view\'s font size');
    assert.ok(sizes.height >= sendHeight - 1, `Undo as tall as Send (${sizes.height} px vs ${sendHeight} px)`);
    await useLightTheme(page);
    await shot('conversation-reverts-light');
    await useDarkTheme(page);
    await shot('conversation-reverts-undo-dark');
    await useLightTheme(page);

    await lastRun.getByRole('button', { name: /^Undo: Reverted the last run/ }).click();
    await notification(page, /Workspace Agent: revert undone: restored app\.py, greet\.py/).waitFor();
    assert.equal(read('app.py'), APP_FORMATTED);
    assert.equal(read('greet.py'), GREET);
    assert.equal(read('test_app.py'), TEST_APP);
    await revertRow('Reverted the last run: 1 file restored, 2 files deleted, 1 skipped (undone)').waitFor();
    await revertRow('Undid the revert of the last run: 3 files put back').waitFor();
    await useDarkTheme(page);
    await shot('conversation-reverts-dark');
    await useLightTheme(page);
    await clearNotifications(page);
  });
});

// Review mode (approvals.write "review"): each change waits as a question; Show diff opens
// the whole file with the change at its own lines, and the diff editor's title bar answers it.
const SERVICE = Array.from({ length: 10 }, (_, i) => `def handler_${i + 1}():\n    return ${i + 1}\n`).join('') + '\n\nprint("started")\n';
const SERVICE_LINES = SERVICE.split('\n').length - 1; // 23: the print is the last line
const REVIEW_TASK = 'Say when the service stops';
const REVIEW_SCRIPT = {
  conversations: [
    {
      match: 'service stops',
      replies: [
        { content: [tool('edit_file', { path: 'service.py', old_text: 'print("started")\n', new_text: 'print("started")\nprint("stopped")\n' })] },
        { content: [text('service.py now says when it stops.')] },
      ],
    },
  ],
  on_exhausted: 'text',
};

describe('Review mode: the whole file in the diff editor, answered from its title bar (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-review-', path.join(ARTIFACTS, 'review'));
  const { workspace } = workbench;
  let page: Page;
  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(workbench.artifacts, `${name}.png`) });

  before(async () => {
    writeFileSync(path.join(workspace, 'service.py'), SERVICE);
    const modelUrl = await workbench.startScriptedModel(REVIEW_SCRIPT);
    page = await workbench.open({
      userSettings: {
        'workspaceAgent.baseUrl': modelUrl,
        'workspaceAgent.approvals': { bash: 'allow', write: 'review' },
        'diffEditor.renderSideBySide': true,
        'diffEditor.useInlineViewWhenSpaceIsLimited': false,
      },
      codeServerEnv: { ANTHROPIC_API_KEY: API_KEY },
    });
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('asks "Review this change" in the card; in a narrow side bar the Act/Plan switch and "Waiting for your approval" read well', async () => {
    await showConversationView(page);
    await runCommand(page, 'Workspace Agent: Run Task…');
    await answerInputBox(page, 'Workspace Agent: Run Task', REVIEW_TASK);
    const card = approvalCard(page, 'service.py');
    await card.waitFor({ timeout: 60_000 });
    const cardText = (await card.innerText()).replace(/\s+/g, ' ');
    assert.match(cardText, /Review this change/i); // drawn in capitals
    assert.match(cardText, /replace 1 line with 2/);
    assert.equal(readFileSync(path.join(workspace, 'service.py'), 'utf8'), SERVICE, 'nothing is written before the answer');

    const view = conversationView(page);
    const status = view.locator('#status');
    await status.filter({ hasText: 'Waiting for your approval' }).waitFor();
    const wide = (await page.locator('.part.sidebar').boundingBox())?.width ?? 0;
    for (const width of [300, 240]) {
      await resizeSideBar(page, width);
      await waitFor(`the input's row to read well at ${width} px`, async () => (await composerProblems(view)).length === 0, 10_000)
        .catch(async () => assert.fail(`at ${width} px: ${(await composerProblems(view)).join('; ')}`));
    }
    await shot('review-narrow-light');
    await useDarkTheme(page);
    await shot('review-narrow-dark');
    await useLightTheme(page);
    await resizeSideBar(page, wide);
  });

  it('Show diff opens service.py whole, the new line at line 24; Accept in the title bar writes it, closes the tab, and the card says Accepted', async () => {
    const card = approvalCard(page, 'service.py');
    await card.getByRole('button', { name: 'Show diff' }).click();
    const tab = page.locator('.tabs-container .tab', { hasText: `service.py (proposed change at line ${SERVICE_LINES})` });
    await tab.waitFor();
    const diff = page.locator('.editor-group-container.active .monaco-diff-editor').first();
    const original = diff.locator('.editor.original');
    const modified = diff.locator('.editor.modified');
    // The whole file on both sides (its first line too, not only the snippet), the new line
    // numbered where it will be in the file.
    await waitFor('the diff to show the whole file', async () =>
      (await visibleText(original.locator('.view-lines'))).includes('def handler_1():') &&
      (await visibleText(modified.locator('.view-lines'))).includes('print("stopped")'),
    );
    assert.equal(await lineNumberOf(modified, 'print("stopped")'), String(SERVICE_LINES + 1));
    assert.equal(await lineNumberOf(original, 'print("started")'), String(SERVICE_LINES));
    // The diff editor scrolls to the change, so line 1 may be out of the drawn lines (Monaco
    // draws only those in sight): go to the top of the file, as a user would, to see it.
    await modified.locator('.view-lines').click();
    await page.keyboard.press('Control+Home');
    await waitFor('line 1 of the file on both sides', async () =>
      (await lineNumberOf(modified, 'def handler_1():')) === '1' && (await lineNumberOf(original, 'def handler_1():')) === '1');

    // Accept and Reject in the diff editor's title bar, as icons with their names.
    const actions = page.locator('.editor-group-container.active .editor-actions');
    const accept = actions.getByRole('button', { name: 'Accept Change' });
    const reject = actions.getByRole('button', { name: 'Reject Change' });
    await accept.waitFor();
    await reject.waitFor();
    await accept.hover();
    await shot('review-diff-light');
    await useDarkTheme(page);
    await accept.hover();
    await shot('review-diff-dark');
    await useLightTheme(page);

    await accept.click();
    await tab.waitFor({ state: 'detached' });
    await waitFor('service.py to be written', () => readFileSync(path.join(workspace, 'service.py'), 'utf8') === SERVICE + 'print("stopped")\n');
    const answered = conversationView(page).locator('.card.approval', { hasText: 'service.py' });
    await answered.locator('.answer-line', { hasText: /^Accepted$/ }).waitFor();
    await conversationView(page).getByText('service.py now says when it stops.').waitFor({ timeout: 60_000 });
    // The change, without a plan, opened the folded Plan view on its row (named by the task).
    await planView(page).getByRole('treeitem', { name: new RegExp(`${REVIEW_TASK}|Changes without a plan`) }).waitFor();
    await shot('review-accepted');
  });
});

/**
 * What does not read well in the Conversation's input row: a button clipped or past the
 * view's edge, buttons on top of each other, Cancel and Send apart, the status on more than
 * one line or cut.
 */
async function composerProblems(view: FrameLocator): Promise<string[]> {
  return view.locator('#composer').evaluate((composer) => {
    const problems: string[] = [];
    const right = document.documentElement.clientWidth;
    const buttons = Array.from(composer.querySelectorAll<HTMLElement>('.actions button')).filter((node) => node.offsetParent !== null);
    const boxes = buttons.map((node) => ({ name: node.textContent?.trim() ?? '', box: node.getBoundingClientRect(), node }));
    for (const { name, box, node } of boxes) {
      if (box.right > right + 0.5 || box.left < -0.5) problems.push(`${name} is past the view's edge (${box.left}-${box.right} of ${right})`);
      if (node.scrollWidth > node.clientWidth + 1) problems.push(`${name} is clipped (${node.scrollWidth} > ${node.clientWidth})`);
    }
    for (const a of boxes) {
      for (const b of boxes) {
        const overlap = a !== b && a.box.left < b.box.right - 0.5 && b.box.left < a.box.right - 0.5 && a.box.top < b.box.bottom - 0.5 && b.box.top < a.box.bottom - 0.5;
        if (overlap && !a.node.closest('.mode')?.contains(b.node)) problems.push(`${a.name} overlaps ${b.name}`);
      }
    }
    const [cancel, send] = ['#cancel', '#send'].map((id) => composer.querySelector<HTMLElement>(id));
    if (cancel && send && cancel.offsetParent !== null && Math.abs(cancel.getBoundingClientRect().top - send.getBoundingClientRect().top) > 2) {
      problems.push(`${cancel.textContent} and ${send.textContent} are on separate lines`);
    }
    const status = composer.querySelector<HTMLElement>('#status');
    if (status && status.textContent) {
      const lineHeight = parseFloat(getComputedStyle(status).lineHeight) || 20;
      const box = status.getBoundingClientRect();
      if (box.height > lineHeight * 1.5) problems.push(`"${status.textContent}" takes ${Math.round(box.height / lineHeight)} lines`);
      if (status.scrollWidth > status.clientWidth + 1) problems.push(`"${status.textContent}" is cut (${status.scrollWidth} > ${status.clientWidth})`);
    }
    return problems;
  });
}

/** The line number Monaco shows beside the line holding `text` in one side of a diff. */
async function lineNumberOf(side: Locator, text: string): Promise<string | undefined> {
  return side.evaluate((element: unknown, wanted: string) => {
    // Runs in the page (the tests' tsconfig has no DOM library, hence the local types).
    type Node = { textContent: string | null; style: { top: string } };
    const root = element as { querySelectorAll(selector: string): Iterable<Node> };
    const line = [...root.querySelectorAll('.view-lines .view-line')].find((node) => (node.textContent ?? '').replace(/\u00a0/g, ' ').trim() === wanted);
    if (!line) {
      return undefined;
    }
    const margin = [...root.querySelectorAll('.margin-view-overlays > div')].find((node) => node.style.top === line.style.top);
    return margin?.textContent?.trim() || undefined;
  }, text);
}

/**
 * The Plan view's header, hovered: beside the Conversation view in its container, the
 * view's actions are on its own header (shown while the pointer is over it).
 */
async function planHeader(page: Page): Promise<Locator> {
  const header = planView(page).locator('.pane-header');
  await header.hover();
  return header;
}

/** Clicks Revert Last Run in the view's title; the confirmation it shows, and its text. */
async function askRevertLastRun(page: Page): Promise<{ dialog: Locator; question: string }> {
  await (await planHeader(page)).getByRole('button', { name: 'Revert Last Run' }).click();
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor();
  return { dialog, question: await visibleText(dialog) };
}

/** The letter a FileDecorationProvider put on a row (VS Code draws it with CSS ::after). */
async function decorationBadge(treeRow: Locator): Promise<string> {
  return treeRow.evaluate((element: unknown) => {
    // Runs in the page (the tests' tsconfig has no DOM library, hence the local types).
    const view = globalThis as unknown as { getComputedStyle: (node: unknown, pseudo: string) => { content: string } };
    const all = (element as { querySelectorAll(selector: string): Iterable<unknown> }).querySelectorAll('*');
    for (const node of [element, ...all]) {
      const content = view.getComputedStyle(node, '::after').content;
      if (content && content !== 'none' && content !== 'normal' && content !== '""') {
        return content.replace(/^"|"$/g, '');
      }
    }
    return '';
  });
}
