import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  API_KEY_SET_CONTEXT,
  COMMAND_IDS,
  CONVERSATION_VIEW_ID,
  MCP_VIEW_ID,
  PLAN_VIEW_ID,
  PLAN_WATCHED_CONTEXT,
  RUNNING_CONTEXT,
  SERVER_READY_CONTEXT,
  TASK_DONE_CONTEXT,
} from '../../src/commands';
import { EXTENSION_DIR, REPO_DIR } from './paths';

interface Step {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string; image?: string };
  completionEvents: string[];
}

const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8'));
const contributed: string[] = manifest.contributes.commands.map((c: { command: string }) => c.command);
const PLAN_VIEW = PLAN_VIEW_ID;

describe('one version', () => {
  it('is the Python package\'s (server/workspace_agent/__init__.py)', () => {
    const init = readFileSync(path.join(REPO_DIR, 'server', 'workspace_agent', '__init__.py'), 'utf8');
    assert.equal(manifest.version, /^__version__ = "([^"]+)"$/m.exec(init)?.[1]);
  });
});

describe('the marketplace page', () => {
  it('has a 128x128 PNG icon', () => {
    const png = readFileSync(path.join(EXTENSION_DIR, manifest.icon));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
    assert.equal(png.toString('latin1', 12, 16), 'IHDR');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  });

  it('names its categories, keywords, repository, issues and changelog', () => {
    assert.deepEqual(manifest.categories, ['AI', 'Chat']);
    assert.ok(manifest.keywords.length >= 5 && manifest.keywords.length <= 30, 'vsce allows at most 30 keywords');
    assert.match(manifest.repository.url, /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    assert.equal(manifest.bugs.url, `${manifest.repository.url.replace(/\.git$/, '')}/issues`);
    assert.ok(existsSync(path.join(REPO_DIR, 'CHANGELOG.md')));
  });
});

describe('the views', () => {
  it('are the view ids of commands.ts, in the Workspace Agent container', () => {
    const views: { id: string; type?: string }[] = manifest.contributes.views.workspaceAgent;
    assert.deepEqual(
      views.map((view) => [view.id, view.type ?? 'tree']),
      [
        [PLAN_VIEW_ID, 'tree'],
        [CONVERSATION_VIEW_ID, 'webview'],
        [MCP_VIEW_ID, 'tree'],
      ],
    );
  });
});

describe('activation', () => {
  it('waits for the Plan view, the Conversation view, the MCP Servers view or a command: nothing at start-up', () => {
    assert.deepEqual(manifest.activationEvents, [
      `onView:${PLAN_VIEW}`,
      'onView:workspaceAgent.conversation',
      'onView:workspaceAgent.mcpServers',
    ]);
    // Commands contributed in package.json activate the extension by themselves (VS Code 1.74+).
    assert.match(manifest.engines.vscode, /^\^1\.(7[4-9]|[89]\d|\d{3})\./);
  });
});

describe('keybindings', () => {
  const bindings: { command: string; key: string; mac?: string; when?: string }[] = manifest.contributes.keybindings;

  it('run a task on Ctrl+Shift+Alt+A (⌘⇧⌥A), always', () => {
    const run = bindings.find((b) => b.command === COMMAND_IDS.runTask);
    assert.deepEqual(run, { command: COMMAND_IDS.runTask, key: 'ctrl+shift+alt+a', mac: 'cmd+shift+alt+a' });
  });

  it('cancel a run on Ctrl+Shift+Alt+X (⌘⇧⌥X), only while one goes', () => {
    const cancel = bindings.find((b) => b.command === COMMAND_IDS.cancelRun);
    assert.deepEqual(cancel, { command: COMMAND_IDS.cancelRun, key: 'ctrl+shift+alt+x', mac: 'cmd+shift+alt+x', when: RUNNING_CONTEXT });
  });

  it('are bound to contributed commands only, each key once', () => {
    for (const binding of bindings) {
      assert.ok(contributed.includes(binding.command), binding.command);
    }
    assert.equal(new Set(bindings.map((b) => b.key)).size, bindings.length);
  });
});

describe('the views\' welcome texts', () => {
  it('use no backticks (a view\'s welcome shows them literally)', () => {
    const welcomes: { contents: string }[] = manifest.contributes.viewsWelcome;
    for (const welcome of welcomes) {
      assert.doesNotMatch(welcome.contents, /`/, welcome.contents.slice(0, 60));
    }
  });
});

describe('the walkthrough', () => {
  const [walkthrough] = manifest.contributes.walkthroughs;
  const steps: Step[] = walkthrough.steps;

  it('goes: the server, the API key, a first task, the plan, the approvals', () => {
    assert.deepEqual(steps.map((s) => s.id), ['installServer', 'setApiKey', 'runFirstTask', 'watchPlan', 'reviewApprovals']);
  });

  it('completes each step when the user does it', () => {
    assert.deepEqual(steps.map((s) => s.completionEvents), [
      [`onContext:${SERVER_READY_CONTEXT}`], // ticked when the server runs, not at a click that failed
      [`onContext:${API_KEY_SET_CONTEXT}`],
      [`onContext:${TASK_DONE_CONTEXT}`],
      [`onView:${PLAN_VIEW}`, `onContext:${PLAN_WATCHED_CONTEXT}`],
      [`onCommand:${COMMAND_IDS.approvalSettings}`, 'onSettingChanged:workspaceAgent.approvals'],
    ]);
  });

  it('links each step to a command that exists, and its media to a file in the VSIX', () => {
    for (const step of steps) {
      const link = /\]\(command:([\w.]+)(?:\?([^)]*))?\)/.exec(step.description);
      assert.ok(link?.[1], `${step.id} has a button`);
      assert.ok(contributed.includes(link[1]) || link[1] === `${PLAN_VIEW}.focus`, `${step.id}: ${link[1]}`);
      const media = step.media.markdown ?? step.media.image ?? '';
      assert.ok(media.startsWith('media/') && existsSync(path.join(EXTENSION_DIR, media)), `${step.id}: ${media}`);
    }
  });

  it('says what the default approvals do: sandboxed commands run unasked (issue 50)', () => {
    const approvals = steps.find((s) => s.id === 'reviewApprovals')?.description ?? '';
    assert.match(approvals, /^By default commands run in the sandbox without asking/);
    assert.doesNotMatch(approvals, /asks before every command/);
  });

  it('suggests a first task that changes nothing', () => {
    const link = /\(command:workspaceAgent\.ui\.runTask\?([^)]*)\)/.exec(steps[2]?.description ?? '');
    assert.ok(link?.[1]);
    const args: unknown = JSON.parse(decodeURIComponent(link[1]));
    assert.deepEqual(Object.keys(args as object), ['prompt']);
    assert.match((args as { prompt: string }).prompt, /change nothing and run no commands/);
  });
});
