import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TaskQueue } from '../../src/core/taskQueue';
import type { RunContext } from '../../src/protocol';

const context: RunContext = {
  activeFile: 'app.py',
  selection: { path: 'app.py', range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, text: 'x = 1\n' },
};

describe('TaskQueue', () => {
  it('runs tasks oldest first and keeps each with its editor context', () => {
    const queue = new TaskQueue();
    queue.add('first', context);
    queue.add('second');
    assert.deepEqual(queue.stored(), [{ text: 'first', context }, { text: 'second' }]);
    assert.equal(queue.takeNext()?.text, 'first');
    assert.deepEqual(queue.stored(), [{ text: 'second' }]);
    assert.equal(queue.takeNext()?.text, 'second');
    assert.equal(queue.takeNext(), undefined);
  });

  it('brings stored tasks back held: none starts until it is released, and Remove still works', () => {
    const queue = TaskQueue.restore([{ text: 'first', context }, { text: 'second' }, { text: 'third' }]);
    assert.deepEqual(
      queue.items.map(({ text, held }) => [text, held]),
      [['first', true], ['second', true], ['third', true]],
    );
    assert.equal(queue.takeNext(), undefined, 'a held task never starts on its own');
    const [first, second, third] = queue.items;
    assert.ok(queue.release(second.id));
    assert.ok(!queue.release(second.id), 'only a held task is released');
    assert.ok(queue.remove(third.id));
    assert.ok(!queue.remove(third.id));
    queue.add('typed after the reload');
    assert.equal(queue.takeNext()?.text, 'second');
    assert.equal(queue.takeNext()?.text, 'typed after the reload', 'a held task does not block the ones behind it');
    assert.equal(queue.takeNext(), undefined);
    assert.deepEqual(queue.stored(), [{ text: 'first', context }], 'held tasks are stored again');
    assert.equal(queue.items[0].id, first.id);
  });

  it('drops what does not fit from storage, and keeps a task whose context no longer fits without it', () => {
    const queue = TaskQueue.restore([
      { text: 'kept' },
      { text: '   ' },
      { text: 42 },
      'a string',
      null,
      { text: 'kept without its context', context: { activeFile: 7 } },
    ]);
    assert.deepEqual(queue.stored(), [{ text: 'kept' }, { text: 'kept without its context' }]);
    assert.deepEqual(TaskQueue.restore(undefined).items, []);
    assert.deepEqual(TaskQueue.restore({ text: 'not a list' }).items, []);
  });
});
