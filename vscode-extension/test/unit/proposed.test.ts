import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proposedFile, proposedTitle } from '../../src/core/proposed';

const file = 'a = 1\nb = 2\nc = 3\nd = 4\n';

describe('proposedFile: a review question as the whole file', () => {
  it('applies an edit at its line, the rest of the file around it', () => {
    const diff = { path: 'app.py', before: 'c = 3', after: 'c = 30\nc2 = 31', line: 3 };
    assert.deepEqual(proposedFile(diff, file), { before: file, after: 'a = 1\nb = 2\nc = 30\nc2 = 31\nd = 4\n', whole: true });
    assert.equal(proposedTitle(diff, true), 'app.py (proposed change at line 3)');
  });

  it('finds the text mid-line and compares CRLF files as LF', () => {
    const diff = { path: 'app.py', before: '2', after: '20', line: 2 };
    assert.equal(proposedFile(diff, file.replace(/\n/g, '\r\n')).after, 'a = 1\nb = 20\nc = 3\nd = 4\n');
  });

  it('takes a whole-file rewrite as it is, and a new file against nothing', () => {
    assert.deepEqual(proposedFile({ path: 'x', before: file, after: 'new\n', line: 1 }, file), { before: file, after: 'new\n', whole: true });
    assert.deepEqual(proposedFile({ path: 'x', before: null, after: 'hi\n', line: 1 }, undefined), { before: '', after: 'hi\n', whole: true });
    assert.equal(proposedTitle({ path: 'x', before: null, after: 'hi\n' }, true), 'x (proposed: a new file)');
  });

  it('falls back to the snippet when the file moved on (the text is not on that line)', () => {
    const diff = { path: 'app.py', before: 'c = 3', after: 'c = 30', line: 1 };
    assert.deepEqual(proposedFile(diff, file), { before: 'c = 3', after: 'c = 30', whole: false });
    assert.equal(proposedFile({ ...diff, line: 40 }, file).whole, false);
    assert.equal(proposedFile({ ...diff, line: 3 }, undefined).whole, false);
    assert.match(proposedTitle(diff, false), /the file changed since/);
  });
});
