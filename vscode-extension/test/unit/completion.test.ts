import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyChoice, commandItem, fuzzyScore, mentionItems, mentionsIn, rank, triggerAt } from '../../src/core/completion';
import { isFromWebview } from '../../src/core/conversationStore';

const FILES = ['README.md', 'src/a.py', 'src/b/abc.py', 'src/app.ts', 'tests/test_a.py', 'docs/odd name.md'];
const labels = (query: string, files = FILES): string[] => rank(query, mentionItems(files)).map((item) => item.label);

describe('when the completion list opens', () => {
  it('opens on @ at the start, after a space or an opening bracket, with what was typed since', () => {
    assert.deepEqual(triggerAt('@', 1), { kind: 'mention', start: 0, query: '' });
    assert.deepEqual(triggerAt('look at @src/a', 14), { kind: 'mention', start: 8, query: 'src/a' });
    assert.deepEqual(triggerAt('see (@di', 8), { kind: 'mention', start: 5, query: 'di' });
  });

  it('stays shut in an e-mail address, after the mention ended, and with the caret elsewhere', () => {
    assert.equal(triggerAt('mail me@example.com', 19), null);
    assert.equal(triggerAt('@src/a.py and', 13), null);
    assert.equal(triggerAt('@src/a.py, then', 10), null);
    assert.equal(triggerAt('plain text', 10), null);
    assert.deepEqual(triggerAt('@src/a.py and', 4), { kind: 'mention', start: 0, query: 'src' });
  });

  it('opens on / only as the first character, until a space is typed', () => {
    assert.deepEqual(triggerAt('/', 1), { kind: 'command', start: 0, query: '' });
    assert.deepEqual(triggerAt('/rev', 4), { kind: 'command', start: 0, query: 'rev' });
    assert.equal(triggerAt('/review app.py', 14), null);
    assert.equal(triggerAt('see src/x', 9), null);
    assert.equal(triggerAt(' /review', 8), null);
  });
});

describe('fuzzy matching and ranking', () => {
  it('matches the characters in order, ignoring case, and refuses otherwise', () => {
    assert.notEqual(fuzzyScore('sap', 'src/app.ts'), null);
    assert.notEqual(fuzzyScore('README', 'readme.md'), null);
    assert.equal(fuzzyScore('pas', 'src/app.ts'), null);
  });

  it('ranks the closest path first: a prefix, then consecutive characters, then shorter', () => {
    assert.equal(labels('src/a')[0], '@src/a.py');
    assert.equal(labels('abc')[0], '@src/b/abc.py');
    assert.equal(labels('app')[0], '@src/app.ts');
    assert.ok(labels('tapy').includes('@tests/test_a.py'));
  });

  it('lists the special mentions first when nothing is typed, and finds them by name', () => {
    assert.deepEqual(labels('').slice(0, 2), ['@problems', '@diff']);
    assert.equal(labels('dif')[0], '@diff');
    assert.equal(labels('prob')[0], '@problems');
  });

  it('caps the list', () => {
    const many = Array.from({ length: 500 }, (_, i) => `pkg/file${i}.ts`);
    assert.equal(rank('file', mentionItems(many)).length, 50);
    assert.equal(rank('file', mentionItems(many), 7).length, 7);
  });
});

describe('the rows of the workspace files', () => {
  it('has the folders with a trailing slash, and leaves out a path the server would cut', () => {
    const items = mentionItems(FILES);
    const folders = items.filter((item) => item.kind === 'folder').map((item) => item.insert);
    assert.deepEqual(folders, ['@docs/ ', '@src/ ', '@src/b/ ', '@tests/ ']);
    assert.ok(items.some((item) => item.label === '@src/a.py' && item.insert === '@src/a.py '));
    assert.ok(!items.some((item) => item.label.includes('odd name')));
  });

  it('makes a slash command row from the server’s list', () => {
    assert.deepEqual(commandItem({ name: 'review', detail: 'Review a file (.workspace-agent/commands)', argumentHint: 'FILE' }), {
      label: '/review',
      detail: 'Review a file (.workspace-agent/commands)',
      hint: 'FILE',
      kind: 'command',
      insert: '/review ',
    });
  });
});

describe('what choosing inserts', () => {
  const [file] = rank('src/a', mentionItems(FILES));
  it('replaces the typed @query with the mention and a space, the caret after it', () => {
    assert.ok(file);
    assert.deepEqual(applyChoice('explain @src/a', 14, triggerAt('explain @src/a', 14)!, file), { text: 'explain @src/a.py ', caret: 18 });
  });

  it('keeps the text after the caret, and takes the rest of a token typed over', () => {
    const text = 'explain @sr please';
    assert.deepEqual(applyChoice(text, 11, triggerAt(text, 11)!, file), { text: 'explain @src/a.py please', caret: 18 });
    const middle = '@src/a.xx then';
    assert.deepEqual(applyChoice(middle, 3, triggerAt(middle, 3)!, file), { text: '@src/a.py then', caret: 10 });
  });

  it('inserts /name and a space for a slash command', () => {
    const review = commandItem({ name: 'review', detail: 'Review' });
    assert.deepEqual(applyChoice('/re', 3, triggerAt('/re', 3)!, review), { text: '/review ', caret: 8 });
  });

  it('finds the mentions a text holds as the server does (a full stop after one is not part of it)', () => {
    assert.deepEqual(mentionsIn('look at @src/a.py and @diff. Also @src/a.py, me@x.org'), ['@src/a.py', '@diff']);
    assert.deepEqual(mentionsIn('nothing here'), []);
  });
});

describe('the webview’s request for candidates', () => {
  it('is accepted only with a known kind and a whole request number', () => {
    assert.ok(isFromWebview({ type: 'complete', kind: 'mention', requestId: 3 }));
    assert.ok(isFromWebview({ type: 'complete', kind: 'command', requestId: 0 }));
    assert.ok(!isFromWebview({ type: 'complete', kind: 'files', requestId: 3 }));
    assert.ok(!isFromWebview({ type: 'complete', kind: 'mention', requestId: '3' }));
    assert.ok(!isFromWebview({ type: 'complete', kind: 'mention' }));
  });
});
