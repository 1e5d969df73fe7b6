import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LAST_RUN_TARGET,
  confirmLastRunRevert,
  confirmOverwrite,
  confirmStepRevert,
  revertResultMessage,
  revertTarget,
  undoResultMessage,
} from '../../src/core/revertText';

describe('the revert confirmation', () => {
  it('lists what will be restored and what will be deleted', () => {
    const question = confirmStepRevert(revertTarget('step 2: Format the code'), { restore: ['NOTES.md', 'app.py'], delete: ['test_app.py'] });
    assert.equal(question.message, 'Revert the workspace to before step 2: Format the code?');
    assert.equal(question.action, 'Revert');
    assert.equal(
      question.detail,
      [
        'Restores 2 files to how they were before it:\n  NOTES.md\n  app.py',
        'Deletes 1 file the agent created:\n  test_app.py',
        'Files the agent never changed are not touched. A file you changed after the agent did is left as it is, and named afterwards. Undo Revert puts everything back.',
      ].join('\n\n'),
    );
  });

  it('leaves out an empty part, and cuts a long list', () => {
    const many = Array.from({ length: 15 }, (_, i) => `f${String(i).padStart(2, '0')}.py`);
    const question = confirmStepRevert(revertTarget('before the plan'), { restore: [], delete: many });
    assert.equal(question.message, 'Revert the workspace to before the plan?');
    assert.ok(!question.detail.includes('Restores'));
    assert.match(question.detail, /^Deletes 15 files the agent created:\n {2}f00\.py\n/);
    assert.match(question.detail, / {2}f11\.py\n {2}… and 3 more\n/);
    assert.ok(!question.detail.includes('f12.py'));
    assert.match(confirmStepRevert('before step 1', { restore: ['a'], delete: [] }).detail, /^Restores 1 file to how it was before it:\n {2}a\n/);
  });

  it('for the last run: the files this window saw it change, or the rule when it did not see it', () => {
    const seen = confirmLastRunRevert(['a.py', 'b.py']);
    assert.equal(seen.message, 'Revert the last run of the agent?');
    assert.match(seen.detail, /^The last run changed 2 files:\n {2}a\.py\n {2}b\.py\n\nEach goes back to how it was when that run started; files it created are deleted\./);
    const unseen = confirmLastRunRevert(undefined);
    assert.match(unseen.detail, /^Every file the agent changed in its last run of this session goes back/);
    assert.match(unseen.detail, /Undo Revert puts everything back\.$/);
  });
});

describe('the revert result', () => {
  it('says what was restored and deleted', () => {
    const message = revertResultMessage(revertTarget('step 2: Format the code'), { restored: ['app.py'], deleted: ['test_app.py'], skipped: [], undoId: 'u1' });
    assert.equal(message.severity, 'info');
    assert.equal(message.text, 'Workspace Agent: reverted to before step 2: Format the code: restored app.py; deleted test_app.py.');
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
    const two = revertResultMessage('before step 1', {
      restored: [],
      deleted: [],
      skipped: [
        { path: 'x', reason: 'changed after the agent\'s last change to it' },
        { path: 'y', reason: 'deleted after the agent\'s last change to it' },
      ],
      undoId: 'u',
    });
    assert.equal(two.text, 'Workspace Agent: reverted to before step 1: no file needed a change. Skipped x, y (changed since; see the transcript).');
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
