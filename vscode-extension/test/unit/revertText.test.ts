import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LAST_RUN_TARGET,
  changesNothing,
  confirmLastRunRevert,
  confirmOnlyRevert,
  confirmOverwrite,
  confirmStepRevert,
  notRevertible,
  nothingToRevert,
  onlyConflictMessage,
  onlyResultMessage,
  revertResultMessage,
  revertTarget,
  undoResultMessage,
} from '../../src/core/revertText';

const CHANGED = "changed after the agent's last change to it";

describe('the revert confirmation', () => {
  it('lists what the dry run says will be restored, deleted and left alone (and why)', () => {
    const question = confirmStepRevert(revertTarget('plan item #2 "Format the code"'), {
      restored: ['app.py', 'greet.py'],
      deleted: ['test_app.py'],
      skipped: [{ path: 'NOTES.md', reason: CHANGED }],
    });
    assert.equal(question.message, 'Revert the workspace to before plan item #2 "Format the code"?');
    assert.equal(question.action, 'Revert');
    assert.equal(
      question.detail,
      [
        'Restores 2 files to how they were before it:\n  app.py\n  greet.py',
        'Deletes 1 file the agent created:\n  test_app.py',
        `Leaves 1 file as it is:\n  NOTES.md (${CHANGED})`,
        'Files the agent never changed are not touched. Undo Revert puts everything back.',
      ].join('\n\n'),
    );
  });

  it('leaves out an empty part, and cuts a long list', () => {
    const many = Array.from({ length: 15 }, (_, i) => `f${String(i).padStart(2, '0')}.py`);
    const question = confirmStepRevert(revertTarget('the changes made before the plan'), { restored: [], deleted: many, skipped: [] });
    assert.equal(question.message, 'Revert the workspace to before the changes made before the plan?');
    assert.ok(!question.detail.includes('Restores') && !question.detail.includes('Leaves'));
    assert.match(question.detail, /^Deletes 15 files the agent created:\n {2}f00\.py\n/);
    assert.match(question.detail, / {2}f11\.py\n {2}… and 3 more\n/);
    assert.ok(!question.detail.includes('f12.py'));
    assert.match(confirmStepRevert('before plan item #1', { restored: ['a'], deleted: [], skipped: [] }).detail, /^Restores 1 file to how it was before it:\n {2}a\n/);
    const skipped = confirmStepRevert('before plan item #1', {
      restored: ['a'],
      deleted: [],
      skipped: [
        { path: 'b', reason: CHANGED },
        { path: 'big.bin', reason: 'larger than maxFileBytes (9 bytes > 5); left as it is' },
      ],
    });
    assert.match(skipped.detail, /\n\nLeaves 2 files as they are:\n {2}b \(changed after .*\)\n {2}big\.bin \(larger than maxFileBytes/);
  });

  it('for the last run: named by its prompt, what the dry run says', () => {
    const exact = confirmLastRunRevert({ restored: ['app.py'], deleted: ['greet.py', 'test_app.py'], skipped: [{ path: 'NOTES.md', reason: CHANGED }] }, 'Tidy up the hello app');
    assert.equal(exact.message, 'Revert the last run of the agent (“Tidy up the hello app”)?');
    assert.equal(
      exact.detail,
      [
        'Restores 1 file to how it was when that run started:\n  app.py',
        'Deletes 2 files it created:\n  greet.py\n  test_app.py',
        `Leaves 1 file as it is:\n  NOTES.md (${CHANGED})`,
        'Files the agent never changed are not touched. Undo Revert puts everything back.',
      ].join('\n\n'),
    );
    const nothing = { restored: [], deleted: [], skipped: [] };
    assert.equal(confirmLastRunRevert(nothing, 'x'.repeat(100)).message, `Revert the last run of the agent (“${'x'.repeat(59)}…”)?`);
    assert.equal(confirmLastRunRevert(nothing).message, 'Revert the last run of the agent?');
  });

  it('says when there is nothing to ask about', () => {
    assert.ok(changesNothing({ restored: [], deleted: [], skipped: [{ path: 'a', reason: CHANGED }] }));
    assert.ok(!changesNothing({ restored: [], deleted: ['a'], skipped: [] }));
    assert.equal(
      nothingToRevert(revertTarget('plan item #2 "Format the code"')),
      'Workspace Agent: nothing to revert: every file the agent changed from plan item #2 "Format the code" on is already as it was then.',
    );
    assert.equal(
      notRevertible('the agent changed no files from plan item #3 "Run the tests" on'),
      'Workspace Agent: nothing to revert: the agent changed no files from plan item #3 "Run the tests" on.',
    );
    assert.equal(nothingToRevert(LAST_RUN_TARGET), 'Workspace Agent: nothing to revert: every file the last run changed is already as it was when that run started.');
  });
});

describe('the revert result', () => {
  it('says what was restored and deleted', () => {
    const message = revertResultMessage(revertTarget('plan item #2 "Format the code"'), { restored: ['app.py'], deleted: ['test_app.py'], skipped: [], undoId: 'u1' });
    assert.equal(message.severity, 'info');
    assert.equal(message.text, 'Workspace Agent: reverted to before plan item #2 "Format the code": restored app.py; deleted test_app.py.');
    assert.deepEqual(message.details, ['  restored app.py', '  deleted  test_app.py']);
  });

  it('warns about what was skipped, with the reason when it is one file', () => {
    const one = revertResultMessage(LAST_RUN_TARGET, {
      restored: ['a.py', 'b.py', 'c.py', 'd.py'],
      deleted: [],
      skipped: [{ path: 'NOTES.md', reason: "changed after the agent's last change to it" }],
      undoId: 'u',
    });
    assert.equal(one.severity, 'warning');
    assert.equal(
      one.text,
      "Workspace Agent: reverted to the start of the last run: restored a.py, b.py, c.py and 1 more. Skipped NOTES.md (changed after the agent's last change to it).",
    );
    assert.equal(one.details.at(-1), "  skipped  NOTES.md: changed after the agent's last change to it");
    const two = revertResultMessage('before plan item #1', {
      restored: [],
      deleted: [],
      skipped: [
        { path: 'x', reason: 'changed after the agent\'s last change to it' },
        { path: 'y', reason: 'deleted after the agent\'s last change to it' },
      ],
      undoId: 'u',
    });
    assert.equal(two.text, 'Workspace Agent: reverted to before plan item #1: no file needed a change. Skipped x, y (changed since; see the transcript).');
  });

  it('for Undo Revert', () => {
    assert.deepEqual(undoResultMessage({ restored: ['app.py'], deleted: [], skipped: [] }), {
      severity: 'info',
      text: 'Workspace Agent: revert undone: restored app.py.',
      details: ['  restored app.py'],
    });
    assert.equal(
      undoResultMessage({ restored: [], deleted: ['a'], skipped: [{ path: 'b', reason: 'changed after the revert' }] }).text,
      'Workspace Agent: revert undone: deleted a. Skipped b (changed after the revert).',
    );
  });
});

describe('overwriting skipped files (force)', () => {
  it('names each file with the reason it was skipped, and what the user loses', () => {
    const one = confirmOverwrite([{ path: 'NOTES.md', reason: "changed after the agent's last change to it" }]);
    assert.equal(one.message, 'Overwrite the file you changed since?');
    assert.equal(
      one.detail,
      "  NOTES.md (changed after the agent's last change to it)\n\nIt gets the content of the same checkpoint; what you changed in it is replaced. Undo Revert brings your version back.",
    );
    assert.equal(one.action, 'Overwrite');
    const two = confirmOverwrite([
      { path: 'a', reason: 'r1' },
      { path: 'b', reason: 'r2' },
    ]);
    assert.equal(two.message, 'Overwrite 2 files you changed since?');
    assert.match(two.detail, /^ {2}a \(r1\)\n {2}b \(r2\)\n\nThey get the content/);
  });
});

describe('Undo Only This Step', () => {
  it('asks with the dry run, says what overlaps, and what it did', () => {
    const question = confirmOnlyRevert('plan item #2 "Format the code"', { restored: ['app.py'], deleted: [], skipped: [] });
    assert.equal(question.message, 'Undo only plan item #2 "Format the code"?');
    assert.equal(question.action, 'Undo Only This Step');
    assert.match(question.detail, /app\.py/);
    const conflict = onlyConflictMessage('plan item #2 "Format the code"', [{ path: 'app.py', reason: 'step 3 changed the same lines' }]);
    assert.equal(conflict.text, 'Workspace Agent: cannot undo only plan item #2 "Format the code": later steps changed the same lines in 1 file. Nothing was changed.');
    assert.match(conflict.detail, /app\.py/);
    const done = onlyResultMessage('plan item #2 "Format the code"', { restored: ['app.py'], deleted: [], skipped: [], undoId: 'u1' });
    assert.match(done.text, /^Workspace Agent: undid only plan item #2 "Format the code": /);
    assert.equal(done.severity, 'info');
  });
});
