import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type EditorSnapshot, attachmentWords, editorContext, lineSpan } from '../../src/core/editorContext';
import { codeActionRun } from '../../src/core/codeActions';
import type { Range } from '../../src/protocol';

const range = (sl: number, sc: number, el: number, ec: number): Range => ({
  start: { line: sl, character: sc },
  end: { line: el, character: ec },
});

const problem = (line: number, message: string) => ({ range: range(line, 2, line, 6), severity: 1 as const, message });

function snap(over: Partial<EditorSnapshot>): EditorSnapshot {
  return {
    path: 'src/app.py',
    selection: { range: range(3, 0, 3, 0), text: '' },
    diagnostics: [problem(1, 'one'), problem(3, 'three'), problem(5, 'five')],
    ...over,
  };
}

describe('editorContext', () => {
  it('attaches the selection and the problems that touch it', () => {
    const context = editorContext(snap({ selection: { range: range(3, 0, 5, 4), text: 'a\nb\nc' } }));
    assert.deepEqual(context, {
      activeFile: 'src/app.py',
      selection: { path: 'src/app.py', range: range(3, 0, 5, 4), text: 'a\nb\nc' },
      diagnostics: [
        { path: 'src/app.py', ...problem(3, 'three') },
        { path: 'src/app.py', ...problem(5, 'five') },
      ],
    });
    assert.equal(attachmentWords(context), 'src/app.py (lines 4–6 selected, 2 problems)');
  });

  it('without a selection: the file and the problems on the cursor\'s line', () => {
    const context = editorContext(snap({}));
    assert.deepEqual(context, { activeFile: 'src/app.py', diagnostics: [{ path: 'src/app.py', ...problem(3, 'three') }] });
    assert.equal(attachmentWords(context), 'src/app.py (1 problem)');
    assert.equal(attachmentWords(editorContext(snap({ diagnostics: [] }))), 'src/app.py');
  });

  it('nothing for a file outside the workspace', () => {
    assert.equal(editorContext(snap({ path: undefined })), undefined);
    assert.equal(attachmentWords(undefined), undefined);
  });

  it('cuts a long selection one character past the limit (the server then says it was cut)', () => {
    const text = 'x'.repeat(100);
    const context = editorContext(snap({ selection: { range: range(0, 0, 0, 100), text } }), 10);
    assert.equal(context?.selection?.text, 'x'.repeat(11));
    assert.equal(attachmentWords(context), 'src/app.py (line 1 selected)');
  });

  it('counts whole-line selections by the lines they cover', () => {
    assert.deepEqual(lineSpan(range(3, 0, 6, 0)), [4, 6]);
    assert.deepEqual(lineSpan(range(3, 0, 3, 0)), [4, 4]);
    assert.deepEqual(lineSpan(range(3, 2, 6, 1)), [4, 7]);
  });
});

describe('codeActionRun', () => {
  const params = { prompt: 'Fix it', sessionId: 'server-current', context: { activeFile: 'a.py' } };

  it('reads the run a server code action stands for; refactor is Ask, the rest Fix', () => {
    assert.deepEqual(codeActionRun({ command: 'workspaceAgent.run', arguments: [params] }, 'quickfix'), {
      kind: 'fix',
      prompt: 'Fix it',
      context: { activeFile: 'a.py' },
    });
    assert.equal(codeActionRun({ command: 'workspaceAgent.run', arguments: [params] }, 'refactor')?.kind, 'ask');
    assert.equal(codeActionRun({ command: 'workspaceAgent.run', arguments: [params] }, 'refactor.rewrite')?.kind, 'ask');
  });

  it('leaves other commands and malformed arguments alone', () => {
    assert.equal(codeActionRun({ command: 'other.command', arguments: [params] }, 'quickfix'), undefined);
    assert.equal(codeActionRun({ command: 'workspaceAgent.run', arguments: [{ nope: 1 }] }, 'quickfix'), undefined);
    assert.equal(codeActionRun({ command: 'workspaceAgent.run' }, 'quickfix'), undefined);
    assert.equal(codeActionRun(undefined, 'quickfix'), undefined);
  });
});
