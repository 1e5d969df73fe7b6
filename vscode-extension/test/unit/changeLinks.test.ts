import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeUriParts, parseChangeUri, parseVersionUri, versionUriParts } from '../../src/core/changeLinks';
import type { FileVersionParams } from '../../src/protocol';

describe('version URIs (one side of a diff)', () => {
  it('round-trip the fileVersion params, odd item ids and paths included', () => {
    const cases: FileVersionParams[] = [
      { sessionId: 'a1b2', todoId: '2', path: 'src/app.py', side: 'before' },
      { sessionId: 'a1b2', todoId: null, path: 'README.md', side: 'after' },
      { sessionId: 's&x=1', todoId: 'step #3 & more', path: 'dir with space/ünï #1?.txt', side: 'after' },
      { sessionId: 'a1b2', todoId: '1', key: 'i17', path: 'src/app.py', side: 'before' },
      { sessionId: 'a1b2', todoId: null, key: 'i3&x', path: 'README.md', side: 'after' },
      // A Latin-1 name: its readable form, and its bytes.
      { sessionId: 'a1b2', todoId: '1', key: 'i5', path: 'caf\\xe9.txt', pathBytes: 'Y2Fm6S50eHQ=', side: 'before' },
    ];
    for (const params of cases) {
      const parts = versionUriParts(params);
      assert.equal(parts.path, `/${params.path}`, 'the path keeps the file name (language, icon)');
      assert.deepEqual(parseVersionUri(parts), params);
    }
  });

  it('keep "before the plan" apart from an item, and each occurrence of an id apart', () => {
    assert.ok(!versionUriParts({ sessionId: 's', todoId: null, path: 'a', side: 'before' }).query.includes('item='));
    const first = versionUriParts({ sessionId: 's', todoId: '1', key: 'i2', path: 'a', side: 'after' });
    const second = versionUriParts({ sessionId: 's', todoId: '1', key: 'i9', path: 'a', side: 'after' });
    assert.notEqual(first.query, second.query, 'two documents, not one cached text for both');
  });

  it('refuse what is not one of ours', () => {
    assert.equal(parseVersionUri({ path: '/a', query: 'side=before' }), undefined);
    assert.equal(parseVersionUri({ path: '/a', query: 'session=s&side=middle' }), undefined);
    assert.equal(parseVersionUri({ path: 'a', query: 'session=s&side=after' }), undefined);
  });
});

describe('change URIs (file rows)', () => {
  it('carry the change for the M/A/D decoration', () => {
    for (const change of ['added', 'modified', 'deleted'] as const) {
      const parts = changeUriParts('2', 'i4', 'src/a.py', change);
      assert.equal(parts.path, '/src/a.py');
      assert.equal(parseChangeUri(parts), change);
    }
    assert.notEqual(changeUriParts(null, undefined, 'a', 'added').query, changeUriParts('1', undefined, 'a', 'added').query);
    assert.notEqual(changeUriParts('1', 'i2', 'a', 'added').query, changeUriParts('1', 'i9', 'a', 'added').query);
    assert.equal(parseChangeUri({ path: '/a', query: 'change=renamed' }), undefined);
  });
});
