import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FileNode, type StepNode, binaryNotice, changeTree, commandLabel, lineStats, revertPreview, stepName } from '../../src/core/changeRows';
import type { ChangedFile, ChangesResult, ItemChanges, TodoItem } from '../../src/protocol';

const plan: TodoItem[] = [
  { id: '1', text: 'Add a greeting helper', status: 'completed' },
  { id: '2', text: 'Format the code', status: 'completed' },
  { id: '3', text: 'Add a test and a note', status: 'in_progress' },
];
const file = (path: string, change: ChangedFile['change'], additions: number, deletions: number, binary = false): ChangedFile => ({
  path,
  change,
  additions,
  deletions,
  ...(binary ? { binary: true } : {}),
});
const item = (todoId: string | null, files: ChangedFile[], commands: ItemChanges['commands'] = []): ItemChanges => ({ todoId, files, commands });
const CHANGES: ChangesResult = {
  sessionId: 's1',
  items: [
    item(null, [], [{ command: 'ls -la', exitCode: 0 }]),
    item('1', [file('greet.py', 'added', 2, 0)]),
    item('2', [file('src/app.py', 'modified', 12, 3)], [{ command: "sed -i 's/^  /    /' src/app.py", exitCode: 0 }]),
    item('3', [file('test_app.py', 'added', 5, 0), file('NOTES.md', 'modified', 1, 0), file('logo.png', 'modified', 0, 0, true), file('old.txt', 'deleted', 0, 4)], [
      { command: 'grep -n TODO src/app.py', exitCode: 1 },
      { command: 'sleep 600', exitCode: null },
    ]),
    item('9', [file('scratch.py', 'added', 1, 0)]),
  ],
  reverts: [],
};

function step(nodes: StepNode[], id: string): StepNode {
  const found = nodes.find((node) => node.id === id);
  assert.ok(found, `no step ${id} in ${nodes.map((n) => n.id).join(', ')}`);
  return found;
}

describe('changeTree', () => {
  const tree = changeTree(plan, 's1', CHANGES);

  it('puts "Before the plan" first, then the plan in order, then items the plan no longer has', () => {
    assert.deepEqual(tree.map((node) => node.id), ['before-plan', 'item:1', 'item:2', 'item:3', 'gone:9']);
    const before = step(tree, 'before-plan');
    assert.equal(before.label, 'Before the plan');
    assert.equal(before.todoId, null);
    assert.equal(before.description, '1 command');
    const gone = step(tree, 'gone:9');
    assert.equal(gone.label, 'Step #9');
    assert.equal(gone.description, 'not in the current plan · 1 file');
  });

  it('keeps each plan row as the plan shows it, with what it changed in the description', () => {
    const two = step(tree, 'item:2');
    assert.equal(two.label, 'Format the code');
    assert.equal(two.description, '#2 · 1 file, 1 command');
    assert.equal(two.accessibilityLabel, 'Format the code, completed', 'screen readers (and tests) read the plan row as before');
    assert.equal(two.icon, 'pass-filled');
    assert.equal(two.stepName, 'step 2: Format the code');
    assert.equal(step(tree, 'item:3').icon, 'loading~spin');
  });

  it('lists files with their name, "+12 −3" and folder, and the diff title names the step', () => {
    const [app, sed] = step(tree, 'item:2').children;
    assert.ok(app?.kind === 'file');
    assert.equal(app.label, 'app.py');
    assert.equal(app.description, '+12 \u22123 · src');
    assert.equal(app.diffTitle, 'app.py (step 2: Format the code)');
    assert.equal(app.path, 'src/app.py');
    assert.equal(app.sessionId, 's1');
    assert.equal(app.todoId, '2');
    assert.match(app.tooltip, /^src\/app\.py\nModified in step 2: Format the code · 12 lines added, 3 removed\nClick to compare/);
    assert.equal(app.accessibilityLabel, 'src/app.py, modified, 12 lines added, 3 removed');
    assert.ok(sed?.kind === 'command');
    assert.equal(sed.label, "sed -i 's/^  /    /' src/app.py");
    assert.equal(sed.description, 'exit 0');
    assert.equal(sed.icon, 'pass');
    assert.equal(sed.iconColor, 'testing.iconPassed');
  });

  it('marks binary files and gives commands their exit status icon', () => {
    const children = step(tree, 'item:3').children;
    const logo = children.find((c): c is FileNode => c.kind === 'file' && c.path === 'logo.png');
    assert.ok(logo);
    assert.equal(logo.binary, true);
    assert.equal(logo.description, 'binary');
    assert.match(logo.tooltip, /binary file: there is no text diff/);
    assert.equal(
      binaryNotice(logo),
      'Workspace Agent: logo.png is a binary file (modified in step 3: Add a test and a note): there is no text diff to show.',
    );
    const commands = children.filter((c) => c.kind === 'command');
    assert.deepEqual(
      commands.map((c) => [c.label, c.description, c.icon, c.iconColor]),
      [
        ['grep -n TODO src/app.py', 'exit 1', 'error', 'testing.iconFailed'],
        ['sleep 600', 'did not finish', 'circle-slash', 'testing.iconSkipped'],
      ],
    );
    assert.match(commands[0]?.tooltip ?? '', /Failed: exit status 1/);
  });

  it('gives every node an id of its own', () => {
    const ids = tree.flatMap((node) => [node.id, ...node.children.map((c) => c.id)]);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('says which steps have something to revert', () => {
    assert.deepEqual(
      tree.map((node) => [node.id, node.revertible]),
      [
        ['before-plan', true],
        ['item:1', true],
        ['item:2', true],
        ['item:3', true],
        ['gone:9', true],
      ],
    );
    const onlyCommands = changeTree(plan, 's1', { ...CHANGES, items: [item('1', [], [{ command: 'pytest', exitCode: 0 }])] });
    assert.equal(step(onlyCommands, 'item:1').revertible, false);
    assert.equal(step(onlyCommands, 'item:1').children.length, 1);
    assert.equal(step(onlyCommands, 'item:2').revertible, false);
  });

  it('shows the plan alone while the changes are not loaded, or are another session\'s', () => {
    for (const tree of [changeTree(plan, 's1', undefined), changeTree(plan, 's2', CHANGES), changeTree(plan, undefined, CHANGES)]) {
      assert.deepEqual(tree.map((node) => node.id), ['item:1', 'item:2', 'item:3']);
      assert.ok(tree.every((node) => node.children.length === 0 && !node.revertible));
    }
    assert.deepEqual(changeTree([], undefined, undefined), []);
  });
});

describe('revertPreview', () => {
  it('restores what existed before the step and deletes what the agent created from it on', () => {
    assert.deepEqual(revertPreview(CHANGES, '2'), {
      restore: ['NOTES.md', 'logo.png', 'old.txt', 'src/app.py'],
      delete: ['scratch.py', 'test_app.py'],
    });
    assert.deepEqual(revertPreview(CHANGES, '9'), { restore: [], delete: ['scratch.py'] });
    assert.equal(revertPreview(CHANGES, '7'), undefined);
  });

  it('follows a file through later items: created then deleted needs nothing, deleted comes back', () => {
    const changes: ChangesResult = {
      sessionId: 's',
      items: [item('1', [file('tmp.txt', 'added', 1, 0), file('keep.txt', 'deleted', 0, 2)]), item('2', [file('tmp.txt', 'deleted', 0, 1), file('keep.txt', 'added', 2, 0)])],
      reverts: [],
    };
    assert.deepEqual(revertPreview(changes, '1'), { restore: ['keep.txt'], delete: [] });
    assert.deepEqual(revertPreview(changes, '2'), { restore: ['tmp.txt'], delete: ['keep.txt'] });
  });
});

describe('words', () => {
  it('line counts use a real minus sign; steps are named as the diff titles name them', () => {
    assert.equal(lineStats({ additions: 12, deletions: 3 }), '+12 \u22123');
    assert.equal(lineStats({ additions: 0, deletions: 0, binary: true }), 'binary');
    assert.equal(stepName(null), 'before the plan');
    assert.equal(stepName('2'), 'step 2');
    assert.equal(stepName('2', 'Format the code'), 'step 2: Format the code');
    assert.equal(stepName('4', 'x'.repeat(80)), `step 4: ${'x'.repeat(49)}…`);
  });

  it('a command row shows its first line, and says when more follow', () => {
    assert.equal(commandLabel('pytest -q'), 'pytest -q');
    assert.equal(commandLabel("cat > a.py <<'EOF'\nprint(1)\nEOF"), "cat > a.py <<'EOF' …");
    assert.equal(commandLabel('y'.repeat(70)), `${'y'.repeat(59)}…`);
  });
});
