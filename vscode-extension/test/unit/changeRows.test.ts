import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FileNode, type StepNode, binaryNotice, changeTree, commandLabel, fileNode, findEntry, foldEarlier, lineStats, markWaiting } from '../../src/core/changeRows';
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
/**
 * An entry as the server sends it for `plan`: named, revertible, and shown on the plan's
 * row of its id (`facts` says otherwise).
 */
const item = (todoId: string | null, files: ChangedFile[], commands: ItemChanges['commands'] = [], facts: Partial<ItemChanges> = {}): ItemChanges => {
  const text = plan.find((todo) => todo.id === todoId)?.text ?? null;
  return {
    todoId,
    key: `k${todoId ?? 0}`,
    text,
    displayName: todoId === null ? 'the changes made before the plan' : text ? `plan item #${todoId} "${text}"` : `plan item #${todoId}`,
    run: 1,
    reverted: false,
    revertible: true,
    planRow: text,
    shown: todoId === null || text !== null,
    files,
    commands,
    ...facts,
  };
};
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
    assert.deepEqual(tree.map((node) => node.id), ['before-plan', 'item:1', 'item:2', 'item:3', 'gone:k9']);
    const before = step(tree, 'before-plan');
    assert.equal(before.label, 'Before the plan');
    assert.equal(before.todoId, null);
    assert.equal(before.description, '1 command');
    const gone = step(tree, 'gone:k9');
    assert.equal(gone.label, 'Plan item #9');
    assert.equal(gone.description, 'not in the current plan · 1 file');
  });

  it('keeps each plan row as the plan shows it, with what it changed in the description', () => {
    const two = step(tree, 'item:2');
    assert.equal(two.label, 'Format the code');
    assert.equal(two.description, '#2 · 1 file, 1 command');
    assert.equal(two.accessibilityLabel, 'Format the code, completed', 'screen readers (and tests) read the plan row as before');
    assert.equal(two.icon, 'pass-filled');
    assert.equal(two.key, 'k2');
    assert.equal(step(tree, 'item:3').icon, 'loading~spin');
  });

  it('lists files with their name, "+12 −3" and folder, and the diff title names the step as the server does', () => {
    const [app, sed] = step(tree, 'item:2').children;
    assert.ok(app?.kind === 'file');
    assert.equal(app.label, 'app.py');
    assert.equal(app.description, '+12 \u22123 · src');
    assert.equal(app.diffTitle, 'app.py (plan item #2 "Format the code")');
    assert.equal(app.path, 'src/app.py');
    assert.equal(app.sessionId, 's1');
    assert.equal(app.todoId, '2');
    assert.equal(app.key, 'k2');
    assert.match(app.tooltip, /^src\/app\.py\nModified in plan item #2 "Format the code" · 12 lines added, 3 removed\nClick to compare/);
    assert.equal(app.accessibilityLabel, 'src/app.py, modified, 12 lines added, 3 removed');
    assert.ok(sed?.kind === 'command');
    assert.equal(sed.label, "sed -i 's/^  /    /' src/app.py");
    assert.equal(sed.description, 'exit 0');
    assert.equal(sed.icon, 'pass');
    assert.equal(sed.iconColor, 'testing.iconPassed');
  });

  it('shows a name that is not UTF-8 readably, keeps its bytes for the diff and says a change may not all be the step\'s', () => {
    const latin1: ChangedFile = { path: 'caf\\xe9.txt', pathBytes: 'Y2Fm6S50eHQ=', change: 'modified', additions: 1, deletions: 0, unsure: 'saved in the editor while the step\'s command ran' };
    const node = fileNode('s1', 'item:1', item('1', []), latin1);
    assert.equal(node.label, 'caf\\xe9.txt');
    assert.equal(node.pathBytes, 'Y2Fm6S50eHQ=');
    assert.match(node.tooltip, /Maybe not all this step's: saved in the editor while the step's command ran; a revert asks before taking it back/);
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
      'Workspace Agent: logo.png is a binary file (modified in plan item #3 "Add a test and a note"): there is no text diff to show.',
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

  it('offers the revert where the server says there is something to revert', () => {
    assert.deepEqual(
      tree.map((node) => [node.id, node.revertible]),
      [
        ['before-plan', true],
        ['item:1', true],
        ['item:2', true],
        ['item:3', true],
        ['gone:k9', true],
      ],
    );
    const notRevertible = { revertible: false, notRevertibleReason: 'the agent changed no files from plan item #1 "Add a greeting helper" on' };
    const onlyCommands = changeTree(plan, 's1', { ...CHANGES, items: [item('1', [], [{ command: 'pytest', exitCode: 0 }], notRevertible)] });
    assert.equal(step(onlyCommands, 'item:1').revertible, false);
    assert.equal(step(onlyCommands, 'item:1').children.length, 1);
    assert.equal(step(onlyCommands, 'item:2').revertible, false, 'a row that changed nothing');
  });

  it('shows the plan alone while the changes are not loaded, or are another session\'s', () => {
    for (const tree of [changeTree(plan, 's1', undefined), changeTree(plan, 's2', CHANGES), changeTree(plan, undefined, CHANGES)]) {
      assert.deepEqual(tree.map((node) => node.id), ['item:1', 'item:2', 'item:3']);
      assert.ok(tree.every((node) => node.children.length === 0 && !node.revertible));
    }
    assert.deepEqual(changeTree([], undefined, undefined), []);
  });
});

describe('plan items over several runs (ids reused by a later plan)', () => {
  // What the server sends after two runs (tests/lsp/test_lsp_checkpoint_items.py): run 1's
  // plan "Write the parser", "Add tests"; run 2's plan "Switch to commas", "Add tests".
  // The server tells the rows against its current plan, the second run's.
  const occurrence = (
    todoId: string | null,
    key: string,
    text: string | null,
    run: number,
    files: ChangedFile[],
    row: { planRow: string | null; shown: boolean },
    extra: Partial<ItemChanges> = {},
  ): ItemChanges => ({
    todoId,
    key,
    text,
    displayName: todoId === null ? 'the changes made before the plan' : `plan item #${todoId} "${text ?? ''}"`,
    run,
    reverted: false,
    revertible: true,
    ...row,
    files,
    commands: [],
    ...extra,
  });
  const TWO_RUNS: ChangesResult = {
    sessionId: 's1',
    items: [
      occurrence(null, 'k0', null, 1, [file('look.txt', 'added', 1, 0)], { planRow: null, shown: true }),
      occurrence('1', 'k1', 'Write the parser', 1, [file('parser.py', 'added', 2, 0)], { planRow: null, shown: false }),
      occurrence('2', 'k2', 'Add tests', 1, [file('test_parser.py', 'added', 5, 0)], { planRow: 'Add tests', shown: false }),
      occurrence('1', 'k3', 'Switch to commas', 2, [file('docs.md', 'added', 3, 0), file('parser.py', 'modified', 1, 1)], { planRow: 'Switch to commas', shown: true }),
      occurrence('2', 'k4', 'Add tests', 2, [file('test_parser.py', 'modified', 4, 0)], { planRow: 'Add tests', shown: true }),
    ],
    runs: [
      { run: 1, prompt: 'Write a parser', startedAt: '2026-10-01T09:00:00Z' },
      { run: 2, prompt: 'Make it split at commas', startedAt: '2026-10-01T09:05:00Z' },
    ],
    lastRun: 2,
    reverts: [],
  };
  const secondPlan: TodoItem[] = [
    { id: '1', text: 'Switch to commas', status: 'completed' },
    { id: '2', text: 'Add tests', status: 'completed' },
  ];
  const tree = changeTree(secondPlan, 's1', TWO_RUNS);

  it('shows each plan row with the occurrence the server puts on it, and the others after the plan', () => {
    assert.deepEqual(
      tree.map((node) => [node.id, node.key, node.label]),
      [
        ['before-plan', 'k0', 'Before the plan'],
        ['item:1', 'k3', 'Switch to commas'],
        ['item:2', 'k4', 'Add tests'],
        ['gone:k1', 'k1', 'Write the parser'],
        ['gone:k2', 'k2', 'Add tests'],
      ],
    );
    assert.deepEqual(
      step(tree, 'item:1').children.map((c) => (c.kind === 'file' ? [c.path, c.key, c.todoId] : c.kind)),
      [
        ['docs.md', 'k3', '1'],
        ['parser.py', 'k3', '1'],
      ],
      'the diff of a row asks for its own occurrence',
    );
    const parserFirst = step(tree, 'gone:k1').children[0];
    assert.ok(parserFirst?.kind === 'file');
    assert.deepEqual([parserFirst.path, parserFirst.key, parserFirst.todoId, parserFirst.change], ['parser.py', 'k1', '1', 'added']);
    assert.equal(parserFirst.diffTitle, 'parser.py (plan item #1 "Write the parser")');
  });

  it('names an earlier step by its own text and run: replaced by another plan, or done again since', () => {
    const replaced = step(tree, 'gone:k1');
    assert.equal(replaced.description, '#1 · not in the current plan · 1 file');
    assert.equal(replaced.tooltip, 'Write the parser\nPlan item #1 of an earlier plan in run 1 (“Write a parser”); these are the changes made under it.');
    assert.equal(replaced.icon, 'question');
    const again = step(tree, 'gone:k2');
    assert.equal(again.description, '#2 · earlier · 1 file');
    assert.match(again.tooltip, /^Add tests\nThis step was worked on before in run 1 \(“Write a parser”\)/);
    assert.match(step(tree, 'before-plan').tooltip, /^Changes made before any plan item was in progress, in run 1 \(“Write a parser”\)\n/);
  });

  it('shows on a row of a plan newer than the payload only an occurrence the server put on a row with those words', () => {
    const newerPlan: TodoItem[] = [
      { id: '1', text: 'Write the parser', status: 'completed' },
      { id: '2', text: 'Add tests', status: 'completed' },
    ];
    const ids = changeTree(newerPlan, 's1', TWO_RUNS).map((node) => [node.id, node.key, node.children.length]);
    // Row "1" is not run 2's "Switch to commas" (the server's row "1"); row "2" has its words.
    assert.deepEqual(ids, [
      ['before-plan', 'k0', 1],
      ['item:1', undefined, 0],
      ['item:2', 'k4', 1],
      ['gone:k1', 'k1', 1],
      ['gone:k2', 'k2', 1],
      ['gone:k3', 'k3', 2],
    ]);
  });

  it('an earlier step shows its latest words; a row shows a reworded step by the server\'s planRow', () => {
    const reworded: ChangesResult = {
      ...TWO_RUNS,
      items: [occurrence('1', 'k1', 'Write the parser', 1, [file('parser.py', 'added', 2, 0)], { planRow: 'Write the parser module', shown: true }, { lastText: 'Write the  parser module' })],
    };
    assert.equal(step(changeTree([{ id: '1', text: 'Write the parser module', status: 'completed' }], 's1', reworded), 'item:1').key, 'k1');
    const earlier = changeTree([{ id: '1', text: 'Something else', status: 'pending' }], 's1', reworded);
    assert.equal(step(earlier, 'gone:k1').label, 'Write the  parser module');
    assert.equal(step(earlier, 'gone:k1').description, '#1 · not in the current plan · 1 file');
  });

  it('finds a step row\'s entry by its occurrence', () => {
    assert.equal(findEntry(TWO_RUNS, { key: 'k1' }), TWO_RUNS.items[1]);
    assert.equal(findEntry(TWO_RUNS, { key: 'gone' }), undefined);
    assert.equal(findEntry(TWO_RUNS, {}), undefined, 'a row that changed nothing');
  });
});

describe('words', () => {
  it('line counts use a real minus sign', () => {
    assert.equal(lineStats({ additions: 12, deletions: 3 }), '+12 \u22123');
    assert.equal(lineStats({ additions: 0, deletions: 0, binary: true }), 'binary');
  });

  it('a command row shows its first line, and says when more follow', () => {
    assert.equal(commandLabel('pytest -q'), 'pytest -q');
    assert.equal(commandLabel("cat > a.py <<'EOF'\nprint(1)\nEOF"), "cat > a.py <<'EOF' …");
    assert.equal(commandLabel('y'.repeat(70)), `${'y'.repeat(59)}…`);
  });
});

describe('a step a question waits on', () => {
  it('says "waiting for you" on its row and to screen readers; the other rows stay as they were', () => {
    const plan = [
      { id: '1', text: 'Write it', status: 'completed' as const },
      { id: '2', text: 'Run it', status: 'in_progress' as const },
    ];
    const nodes = changeTree(plan, 's', undefined);
    const marked = markWaiting(nodes, new Set(['2']));
    assert.deepEqual(marked[0], nodes[0]);
    assert.equal(marked[1]?.description, 'waiting for you · #2');
    assert.equal(marked[1]?.accessibilityLabel, 'Run it, in progress, waiting for you');
    assert.equal(marked[1]?.icon, 'bell-dot');
    assert.equal(markWaiting(nodes, new Set()), nodes);
  });
});

describe('a Plan view that tells the truth', () => {
  const plan: TodoItem[] = [
    { id: '1', text: 'Write it', status: 'completed' },
    { id: '2', text: 'Check it', status: 'completed' },
  ];
  const facts = (todoId: string | null, text: string | null, shown: boolean) => ({
    todoId,
    text,
    displayName: todoId === null ? 'the changes made before the plan' : `plan item #${todoId} "${text ?? ''}"`,
    revertible: true,
    planRow: text,
    shown,
  });
  const payload = (reverted: boolean): ChangesResult => ({
    sessionId: 's',
    items: [
      { ...facts(null, null, false), key: 'k0', run: 1, reverted: false, files: [], commands: [{ command: 'ls', exitCode: 0, toolUseId: 'tu-ls' }] },
      { ...facts('1', 'Write it', true), key: 'k1', run: 2, files: [{ path: 'a.py', change: 'added', additions: 2, deletions: 0, reverted }], commands: [], reverted },
      { ...facts('2', 'Check it', true), key: 'k2', run: 2, reverted: false, files: [{ path: 'b.py', change: 'modified', additions: 1, deletions: 1 }], commands: [] },
      { ...facts(null, null, true), key: 'k3', run: 2, reverted: false, files: [], commands: [{ command: 'pwd', exitCode: 0 }] },
    ],
    runs: [
      { run: 1, prompt: 'first', startedAt: '2026-01-01T00:00:00Z' },
      { run: 2, prompt: 'second', startedAt: '2026-01-01T01:00:00Z' },
    ],
    lastRun: 2,
    reverts: [],
  });

  it('marks a reverted step and its reverted files (row, screen readers, no diff letter)', () => {
    const tree = changeTree(plan, 's', payload(true));
    const step1 = step(tree, 'item:1');
    assert.equal(step1.icon, 'discard');
    assert.equal(step1.iconColor, undefined, 'not the green of a completed step');
    assert.match(step1.description, /^reverted · #1 · 1 file$/);
    assert.equal(step1.accessibilityLabel, 'Write it, completed, reverted');
    const file = step1.children[0] as FileNode;
    assert.equal(file.reverted, true);
    assert.equal(file.accessibilityLabel, 'a.py, added, 2 lines added, 0 removed, reverted');
    assert.match(file.description, /^reverted · \+2 −0$/);
    assert.equal(step(tree, 'item:2').accessibilityLabel, 'Check it, completed', 'a step not reverted reads as before');
    const untouched = changeTree(plan, 's', payload(false));
    assert.equal(step(untouched, 'item:1').icon, 'pass-filled');
  });

  it('folds the steps of earlier runs into one "Earlier runs" row after the plan', () => {
    const folded = foldEarlier(changeTree(plan, 's', payload(false)));
    // `pwd` ran after the plan's steps, in their run: after them, not "before the plan".
    assert.deepEqual(folded.map((node) => node.id), ['item:1', 'item:2', 'before-plan', 'earlier-runs']);
    assert.equal(folded[2]?.label, 'After the plan');
    const group = folded[3];
    assert.ok(group?.kind === 'group');
    assert.equal(group.accessibilityLabel, 'Earlier runs, 1 step');
    assert.deepEqual(group.children.map((node) => node.id), ['gone:k0']);
    const plain = [step(changeTree(plan, 's', payload(false)), 'item:1')];
    assert.equal(foldEarlier(plain)[0], plain[0], 'nothing to fold: the rows as they are');
  });

  it('gives a command row the tool call whose output it opens', () => {
    const tree = changeTree(plan, 's', payload(false));
    const ls = foldEarlier(tree).flatMap((node) => (node.kind === 'group' ? node.children : [])).flatMap((s) => s.children)[0];
    assert.ok(ls?.kind === 'command' && ls.toolUseId === 'tu-ls' && ls.command === 'ls');
    const pwd = step(tree, 'before-plan').children[0];
    assert.ok(pwd?.kind === 'command' && pwd.toolUseId === undefined, 'an older server gives none');
  });
});

describe('changeTree: a session without a plan names its rows by their tasks', () => {
  const runs = [
    { run: 1, prompt: 'Fix the typo in the README', startedAt: '2026-10-01T09:00:00Z' },
    { run: 2, prompt: 'Rename the helper', startedAt: '2026-10-01T09:05:00Z' },
  ];
  const planless: ChangesResult = {
    sessionId: 's1',
    items: [
      item(null, [file('README.md', 'modified', 1, 1)], [], { key: 'k0', run: 1, shown: false }),
      item(null, [file('util.py', 'modified', 2, 2)], [], { key: 'k1', run: 2, shown: true }),
    ],
    runs,
    lastRun: 2,
    reverts: [],
  };
  it('the latest task\'s changes by its prompt, an earlier one by its own', () => {
    const tree = foldEarlier(changeTree([], 's1', planless));
    assert.equal(tree[0]?.label, '“Rename the helper”');
    assert.match(tree[0]?.accessibilityLabel ?? '', /^“Rename the helper”, /, 'a screen reader says what the row shows');
    const earlier = tree[1];
    assert.ok(earlier?.kind === 'group' && earlier.label === 'Earlier runs');
    assert.equal(earlier.children[0]?.label, '“Fix the typo in the README”');
    assert.match(earlier.children[0]?.description ?? '', /^an earlier task · /);
  });
  it('"Changes without a plan" when the task is not recorded; "Before the plan" while there is a plan', () => {
    assert.equal(changeTree([], 's1', { ...planless, runs: [] })[0]?.label, 'Changes without a plan');
    assert.equal(changeTree(plan, 's1', planless)[0]?.label, 'Before the plan');
  });
});

describe('changeTree: a later run without a plan is not "before the plan" (issue 50, item 5)', () => {
  const runs = [
    { run: 1, prompt: 'Greet in three steps', startedAt: '2026-10-01T09:00:00Z' },
    { run: 2, prompt: 'Fix the typo in the README', startedAt: '2026-10-01T09:05:00Z' },
  ];
  // Run 1 worked the plan (#1, #2); run 2 wrote no plan and changed README.md.
  const later: ChangesResult = {
    sessionId: 's1',
    items: [
      item('1', [file('greet.py', 'added', 2, 0)], [], { key: 'k1', run: 1 }),
      item('2', [file('src/app.py', 'modified', 1, 1)], [], { key: 'k2', run: 1 }),
      item(null, [file('README.md', 'modified', 1, 1)], [], { key: 'k0', run: 2 }),
    ],
    runs,
    lastRun: 2,
    reverts: [],
  };
  const older = plan.slice(0, 2).map((todo) => ({ ...todo, status: 'completed' as const }));

  it('goes after the older plan\'s rows, named by its task, not above them', () => {
    const tree = changeTree(older, 's1', later, true);
    assert.deepEqual(tree.map((node) => node.label), ['Add a greeting helper', 'Format the code', '“Fix the typo in the README”']);
    const after = step(tree, 'before-plan');
    assert.match(after.tooltip, /^Changes made after the plan's steps, with no plan item in progress, in run 2 \(“Fix the typo in the README”\)/);
    assert.equal(after.accessibilityLabel, '“Fix the typo in the README”, 1 file');
    assert.equal(changeTree(older, 's1', { ...later, runs: [] })[2]?.label, 'Changes after the plan', 'the task not recorded');
  });

  it('changes made before the first step still head the plan as "Before the plan"', () => {
    const first = { ...later, items: [{ ...later.items[2], run: 1 }, later.items[0], later.items[1]] };
    assert.deepEqual(changeTree(older, 's1', first).map((node) => node.label), ['Before the plan', 'Add a greeting helper', 'Format the code']);
  });
});
