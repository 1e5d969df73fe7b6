import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type PlanDraft,
  add,
  applyCardEdit,
  approveErrorFixes,
  approveParams,
  cleanText,
  comment,
  draftFromResult,
  draftRows,
  draftDescription,
  draftTitle,
  draftTree,
  dropBefore,
  isPlanCardEdit,
  moveBy,
  moveTo,
  planCard,
  remove,
  restoreDraft,
  reword,
  runMode,
  textProblem,
} from '../../src/core/planDraft';
import { isFromWebview } from '../../src/core/conversationStore';
import type { RunResult, TodoItem } from '../../src/protocol';

const usage = { inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0, cacheReadTokens: 0 };
const todos = (...texts: string[]): TodoItem[] => texts.map((text, i) => ({ id: String(i + 1), text, status: 'pending' }));

function result(partial: Partial<RunResult>): RunResult {
  return { sessionId: 's1', stopReason: 'planReady', text: 'Read, then fix.', todos: [], usage, cost: null, ...partial };
}

const first = (): PlanDraft => {
  const draft = draftFromResult(result({ todos: todos('Read the parser', 'Fix the bug', 'Run the tests') }));
  assert.ok(draft);
  return draft;
};
const texts = (draft: PlanDraft): string[] => draft.items.map((item) => `${item.id}:${item.text}`);

describe('draftFromResult: a plan-mode run that stopped with a plan', () => {
  it('becomes a draft of its todos, unedited, with the model\'s summary, revision 1', () => {
    const draft = first();
    assert.deepEqual(texts(draft), ['1:Read the parser', '2:Fix the bug', '3:Run the tests']);
    assert.equal(draft.summary, 'Read, then fix.');
    assert.equal(draft.revision, 1);
    assert.ok(draft.items.every((item) => !item.edited && !item.added && item.mark === undefined));
  });

  it('is no draft for any other stop reason, nor for an empty plan', () => {
    assert.equal(draftFromResult(result({ stopReason: 'end_turn', todos: todos('x') })), undefined);
    assert.equal(draftFromResult(result({ stopReason: 'cancelled', todos: todos('x') })), undefined);
    assert.equal(draftFromResult(result({ todos: [] })), undefined);
  });

  it('marks what a revision changed (planDiff): new and reworded items, the removed ones listed', () => {
    const revised = draftFromResult(
      result({
        todos: todos('Read the parser', 'Fix the bug in tokenize()', 'Add a regression test'),
        planDiff: {
          items: [
            { id: '1', change: 'unchanged' },
            { id: '2', change: 'reworded', previousText: 'Fix the bug' },
            { id: '3', change: 'new' },
          ],
          removed: [{ id: '9', text: 'Run the tests' }],
        },
      }),
      first(),
    );
    assert.ok(revised);
    assert.equal(revised.revision, 2);
    assert.deepEqual(revised.items.map((item) => item.mark), [undefined, 'reworded', 'new']);
    assert.equal(revised.items[1]?.previousText, 'Fix the bug');
    assert.deepEqual(revised.removed, [{ id: '9', text: 'Run the tests' }]);
    const rows = draftRows(revised);
    assert.deepEqual(rows.map((row) => row.description), ['#1', 'reworded · #2', 'new · #3']);
    assert.deepEqual(rows.map((row) => row.icon), ['circle-large-outline', 'diff-modified', 'diff-added']);
    assert.deepEqual(rows.map((row) => row.shortMarks), [[], ['reworded'], ['new']]);
    assert.equal(rows[1]?.accessibilityLabel, 'Fix the bug in tokenize(), draft item 2 of 3, reworded in this revision');
    assert.match(rows[1]?.tooltip ?? '', /Before the revision: Fix the bug/);
    assert.equal(draftTitle(revised), 'Revised plan (2) · 3 items');
    assert.equal(draftDescription(revised), 'revision 2');
    assert.equal(draftDescription(first()), 'draft');
    const tree = draftTree(revised);
    assert.deepEqual(tree.map((node) => node.kind), ['draftItem', 'draftItem', 'draftItem', 'draftRemoved']);
  });

  it('starts again at revision 1 for another session', () => {
    const other = draftFromResult(result({ sessionId: 's2', todos: todos('x'), planDiff: { items: [], removed: [] } }), first());
    assert.equal(other?.revision, 1);
  });
});

describe('editing a draft', () => {
  it('rewords an item (one line, trimmed), marking it edited; the same words or none change nothing', () => {
    const draft = first();
    const edited = reword(draft, '2', '  Fix the off-by-one\nin tokenize()  ');
    assert.deepEqual(texts(edited), ['1:Read the parser', '2:Fix the off-by-one in tokenize()', '3:Run the tests']);
    assert.equal(edited.items[1]?.edited, true);
    assert.equal(reword(draft, '2', 'Fix the bug'), draft);
    assert.equal(reword(draft, '2', '   '), draft);
    assert.equal(reword(draft, 'nope', 'x'), draft);
    assert.equal(draft.items[1]?.text, 'Fix the bug', 'the old draft is left as it was');
    assert.equal(draftRows(edited)[1]?.description, 'edited · #2');
    assert.equal(draftRows(edited)[1]?.icon, 'edit');
  });

  it('moves an item up and down, staying put at either end', () => {
    const draft = first();
    assert.deepEqual(texts(moveBy(draft, '3', -1)).map((t) => t[0]), ['1', '3', '2']);
    assert.deepEqual(texts(moveBy(draft, '1', 1)).map((t) => t[0]), ['2', '1', '3']);
    assert.equal(moveBy(draft, '1', -1), draft);
    assert.equal(moveBy(draft, '3', 1), draft);
    assert.deepEqual(texts(moveTo(draft, '1', 99)).map((t) => t[0]), ['2', '3', '1']);
  });

  it('drops dragged items before the target, or at the end without one; on itself nothing moves', () => {
    const draft = first();
    assert.deepEqual(texts(dropBefore(draft, ['3'], '1')).map((t) => t[0]), ['3', '1', '2']);
    assert.deepEqual(texts(dropBefore(draft, ['1'], undefined)).map((t) => t[0]), ['2', '3', '1']);
    assert.deepEqual(texts(dropBefore(draft, ['3', '1'], '2')).map((t) => t[0]), ['1', '3', '2'], 'in plan order');
    assert.equal(dropBefore(draft, ['2'], '2'), draft);
    assert.equal(dropBefore(draft, ['x'], '2'), draft);
  });

  it('deletes an item', () => {
    assert.deepEqual(texts(remove(first(), '2')), ['1:Read the parser', '3:Run the tests']);
  });

  it('adds an item of the user\'s with an id no item had, after the one given or at the end', () => {
    const draft = first();
    const atEnd = add(draft, 'Update the changelog');
    assert.equal(atEnd.id, 'user-1');
    assert.deepEqual(texts(atEnd.draft).at(-1), 'user-1:Update the changelog');
    const second = add(atEnd.draft, 'Check the docs', '1');
    assert.equal(second.id, 'user-2');
    assert.deepEqual(texts(second.draft).slice(0, 2), ['1:Read the parser', 'user-2:Check the docs']);
    assert.deepEqual(second.draft.items[1], { id: 'user-2', text: 'Check the docs', edited: true, added: true });
    assert.equal(add(draft, '  ').id, undefined);
    assert.equal(draftRows(second.draft)[1]?.description, 'added · #user-2');
    assert.equal(draftRows(second.draft)[1]?.icon, 'add');
  });

  it('comments on an item (shown under it), and takes an empty comment off', () => {
    const draft = comment(first(), '3', '  Only the parser tests, the rest take minutes ');
    assert.equal(draft.items[2]?.comment, 'Only the parser tests, the rest take minutes');
    const tree = draftTree(draft);
    const item = tree[2];
    assert.ok(item?.kind === 'draftItem');
    assert.equal(item.id, 'draft:3:commented', 'a new tree element: it opens with its comment');
    assert.deepEqual(item.children, [
      { kind: 'draftComment', id: 'draft-comment:3', itemId: '3', text: 'Only the parser tests, the rest take minutes' },
    ]);
    assert.equal(comment(draft, '3', '').items[2]?.comment, undefined);
    assert.equal(draft.items[2]?.edited, false, 'a comment is no edit of the text');
  });

  it('shows an empty draft as one row that says so', () => {
    const empty = remove(remove(remove(first(), '1'), '2'), '3');
    assert.deepEqual(draftTree(empty).map((node) => node.kind), ['draftEmpty']);
    assert.equal(draftTitle(empty), 'Plan draft · 0 items');
  });

  it('says what is wrong with an item\'s text', () => {
    assert.equal(cleanText(' a\r\n b '), 'a b');
    assert.match(textProblem(' \n ') ?? '', /Delete Plan Item/);
    assert.equal(textProblem('ok'), undefined);
  });
});

describe('approveParams: the plan as the user left it', () => {
  it('keeps ids and the user\'s order, leaves deleted items out, marks edits, carries the comments', () => {
    let draft = first();
    draft = reword(draft, '2', 'Fix the off-by-one in tokenize()');
    draft = moveBy(draft, '3', -2);
    draft = remove(draft, '1');
    draft = add(draft, 'Update the changelog').draft;
    draft = comment(draft, '3', 'Only the parser tests');
    assert.deepEqual(approveParams(draft, 'run'), {
      sessionId: 's1',
      items: [
        { id: '3', text: 'Run the tests' },
        { id: '2', text: 'Fix the off-by-one in tokenize()', edited: true },
        { id: 'user-1', text: 'Update the changelog', edited: true },
      ],
      comments: [{ todoId: '3', text: 'Only the parser tests' }],
      action: 'run',
    });
  });

  it('sends no comments field without comments', () => {
    assert.deepEqual(Object.keys(approveParams(first(), 'revise')), ['sessionId', 'items', 'action']);
  });

  it('makes the plan card of the Conversation view from the same rows', () => {
    const card = planCard(comment(first(), '1', 'Start with tokenize()'));
    assert.equal(card.title, 'Plan draft · 3 items');
    assert.equal(card.rows[0]?.comment, 'Start with tokenize()');
    assert.deepEqual(card.removed, []);
  });

  it('renders the summary\'s markdown for the card, never raw HTML', () => {
    const draft = { ...first(), summary: '**Approach:** read `parse()` first <script>x</script>' };
    const html = planCard(draft).summaryHtml;
    assert.ok(html.includes('<strong>Approach:</strong>') && html.includes('<code>parse()</code>'), html);
    assert.ok(!html.includes('<script>'), html);
    assert.equal(planCard({ ...first(), summary: '  ' }).summaryHtml, '');
  });
});

describe('approveErrorFixes: a refused approval, and the button that does what it says', () => {
  it('offers Add Plan Item… and Discard Plan for an empty plan', () => {
    const fixes = approveErrorFixes('the plan has no items: add an item to run or revise, or discard the plan (a new prompt goes on from here)');
    assert.deepEqual(fixes.map((fix) => fix.label), ['Add Plan Item…', 'Discard Plan']);
  });

  it('offers Cancel Run while a run goes', () => {
    const fixes = approveErrorFixes('session s1 has a run in progress: wait for it to end or cancel it, then approve the plan again');
    assert.deepEqual(fixes.map((fix) => fix.label), ['Cancel Run']);
  });

  it('offers to plan a task again for an unknown session', () => {
    const fixes = approveErrorFixes('there is no session \'s9\': start a plan with workspaceAgent/run and mode "plan", then approve it');
    assert.deepEqual(fixes.map((fix) => fix.label), ['Plan a Task…', 'Discard Plan']);
  });

  it('shows the plan to merge or delete items of one too long', () => {
    const fixes = approveErrorFixes('the plan has 21 items, at most 20 fit a todo list: merge or delete some, then approve');
    assert.deepEqual(fixes.map((fix) => fix.label), ['Show Plan']);
  });
});

describe('the mode and the page\'s messages', () => {
  it('reads the remembered mode, act for anything but "plan"', () => {
    assert.equal(runMode('plan'), 'plan');
    assert.equal(runMode('act'), 'act');
    assert.equal(runMode(undefined), 'act');
    assert.equal(runMode('PLAN'), 'act');
  });

  it('accepts the page\'s mode switch and plan card buttons, nothing else', () => {
    assert.ok(isFromWebview({ type: 'setMode', mode: 'plan' }));
    assert.ok(isFromWebview({ type: 'plan', action: 'run' }));
    assert.ok(isFromWebview({ type: 'plan', action: 'revise' }));
    assert.ok(!isFromWebview({ type: 'setMode', mode: 'ask' }));
    assert.ok(!isFromWebview({ type: 'plan', action: 'approve' }));
  });
});

describe('applyCardEdit: the Conversation view\'s plan card edits the same draft', () => {
  it('rewords, moves, comments on, deletes and adds items, saying which item keeps the focus', () => {
    let step = applyCardEdit(first(), { op: 'reword', id: '2', text: '  Fix the\nbug in tokenize() ' });
    assert.deepEqual(step.draft, reword(first(), '2', 'Fix the bug in tokenize()'));
    assert.equal(step.focus, '2');
    step = applyCardEdit(step.draft, { op: 'move', id: '3', delta: -1 });
    assert.deepEqual(texts(step.draft), ['1:Read the parser', '3:Run the tests', '2:Fix the bug in tokenize()']);
    assert.equal(step.focus, '3');
    step = applyCardEdit(step.draft, { op: 'comment', id: '3', text: ' Only the parser tests ' });
    assert.equal(step.draft.items.find((i) => i.id === '3')?.comment, 'Only the parser tests');
    step = applyCardEdit(step.draft, { op: 'delete', id: '3' });
    assert.deepEqual(texts(step.draft), ['1:Read the parser', '2:Fix the bug in tokenize()']);
    assert.equal(step.focus, '2', 'the next row after a delete');
    step = applyCardEdit(step.draft, { op: 'delete', id: '2' });
    assert.equal(step.focus, '1', 'the one before when the last row goes');
    step = applyCardEdit(step.draft, { op: 'add', text: 'Run the tests again', afterId: '1' });
    assert.deepEqual(texts(step.draft), ['1:Read the parser', 'user-1:Run the tests again']);
    assert.equal(step.focus, 'user-1');
    assert.deepEqual(approveParams(step.draft, 'run').items, [{ id: '1', text: 'Read the parser' }, { id: 'user-1', text: 'Run the tests again', edited: true }]);
  });

  it('changes nothing for an edit that cannot apply: the top item up, an unknown id, no words', () => {
    const draft = first();
    for (const edit of [
      { op: 'move', id: '1', delta: -1 },
      { op: 'move', id: '3', delta: 1 },
      { op: 'reword', id: '9', text: 'x' },
      { op: 'reword', id: '1', text: ' \n ' },
      { op: 'delete', id: '9' },
      { op: 'add', text: '  ' },
    ] as const) {
      assert.equal(applyCardEdit(draft, edit).draft, draft, JSON.stringify(edit));
    }
  });

  it('takes only the edit shapes the card sends, in a planEdit message', () => {
    for (const edit of [
      { op: 'reword', id: '1', text: 'x' },
      { op: 'move', id: '1', delta: 1 },
      { op: 'move', id: '1', delta: -1 },
      { op: 'delete', id: '1' },
      { op: 'add', text: 'x' },
      { op: 'add', text: 'x', afterId: '2' },
      { op: 'comment', id: '1', text: '' },
    ]) {
      assert.ok(isPlanCardEdit(edit), JSON.stringify(edit));
      assert.ok(isFromWebview({ type: 'planEdit', edit }));
    }
    for (const edit of [
      undefined, null, 'reword', {}, { op: 'rename', id: '1', text: 'x' }, { op: 'move', id: '1', delta: 2 },
      { op: 'move', id: '1', delta: '-1' }, { op: 'delete', id: '' }, { op: 'delete', id: 1 }, { op: 'reword', id: '1' },
      { op: 'add', text: 'x', afterId: 3 }, { op: 'comment', id: '1', text: 'x'.repeat(2001) },
    ]) {
      assert.ok(!isPlanCardEdit(edit), JSON.stringify(edit));
      assert.ok(!isFromWebview({ type: 'planEdit', edit }));
    }
  });
});

describe('restoreDraft: a draft kept across a window reload', () => {
  it('reads back what was stored (through JSON), edits, marks and comments included', () => {
    let draft = comment(reword(first(), '1', 'Read tokenize()'), '2', 'Only the off-by-one');
    draft = { ...draft, removed: [{ id: '9', text: 'Old' }], items: draft.items.map((i) => (i.id === '3' ? { ...i, mark: 'new' as const } : i)) };
    assert.deepEqual(restoreDraft(JSON.parse(JSON.stringify(draft))), draft);
  });

  it('is no draft for anything else', () => {
    for (const value of [undefined, null, 'draft', {}, { ...first(), items: [{ id: '1', text: '' , edited: false, added: false }] },
      { ...first(), revision: '2' }, { ...first(), items: [{ id: 1, text: 'x', edited: false, added: false }] },
      { ...first(), items: [{ id: '1', text: 'x', edited: false, added: false, mark: 'moved' }] }]) {
      assert.equal(restoreDraft(value), undefined, JSON.stringify(value));
    }
  });
});
