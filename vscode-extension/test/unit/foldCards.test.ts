import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Card, type ConversationEvent } from '../../src/core/conversation';
import { ConversationStore } from '../../src/core/conversationStore';
import { type FoldCard, type ShownCard, anchorAfterPrepend, foldCards, foldLabel } from '../../src/core/foldCards';

const steps = (todoId: string): string | undefined => ({ '1': 'Look around', '2': 'Fix it' })[todoId];

const read = (id: string, path: string, todoId: string | null = '1', ok = true): ConversationEvent[] => [
  { kind: 'toolCall', toolUseId: id, name: 'read_file', summary: path, todoId },
  { kind: 'toolResult', toolUseId: id, name: 'read_file', ok, output: ok ? 'text' : 'no such file', todoId },
];
const planUpdate = (id: string): ConversationEvent[] => [
  { kind: 'toolCall', toolUseId: id, name: 'todo', summary: '3 items', todoId: '1' },
  { kind: 'toolResult', toolUseId: id, name: 'todo', ok: true, output: 'ok', todoId: '1' },
];
const command = (id: string): ConversationEvent[] => [
  { kind: 'toolCall', toolUseId: id, name: 'bash', summary: 'make', todoId: '1' },
  { kind: 'toolResult', toolUseId: id, name: 'bash', ok: true, output: 'ok', todoId: '1', exitCode: 0 },
];

/** The store's cards after the events, as the page is sent them. */
function shown(events: ConversationEvent[]): ShownCard[] {
  const store = new ConversationStore(steps);
  store.reset('s');
  for (const event of events) store.accept(event);
  return store.shownCards();
}

const describeShown = (cards: ShownCard[]): string[] =>
  cards.map((card) => (card.kind === 'fold' ? `${card.label} [${card.members.map((m) => m.id).join(',')}]` : card.id));

describe('folding runs of like cards', () => {
  it('folds consecutive reads of one step into "Read N files", and consecutive plan updates into one row', () => {
    const cards = shown([
      { kind: 'runStart', prompt: 'go' },
      ...planUpdate('u1'),
      ...planUpdate('u2'),
      ...planUpdate('u3'),
      ...read('r1', 'a.py'),
      ...read('r2', 'b.py'),
      ...read('r3', 'c.py'),
      ...command('c1'),
      ...read('r4', 'd.py'),
    ]);
    assert.deepEqual(describeShown(cards), [
      'p1',
      'Plan updated 3 times [u1,u2,u3]',
      'Read 3 files [r1,r2,r3]',
      'c1',
      'r4', // one read alone stays a row of its own
    ]);
    const reads = cards[2] as FoldCard;
    assert.equal(reads.fold, 'read');
    assert.deepEqual(reads.step, { todoId: '1', label: 'Plan item #1 · Look around' });
  });

  it('keeps a failed read out of a fold, and reads of two steps apart', () => {
    const cards = shown([
      ...read('r1', 'a.py'),
      ...read('r2', 'b.py'),
      ...read('bad', 'gone.py', '1', false),
      ...read('r3', 'c.py', '2'),
      ...read('r4', 'd.py', '2'),
    ]);
    assert.deepEqual(describeShown(cards), ['Read 2 files [r1,r2]', 'bad', 'Read 2 files [r3,r4]']);
  });

  it('keeps a read that gave an image out of a fold: its thumbnail stays in sight', () => {
    const cards = shown([
      ...read('r1', 'a.py'),
      { kind: 'toolCall', toolUseId: 'img', name: 'read_file', summary: 'logo.png', todoId: '1' },
      { kind: 'toolResult', toolUseId: 'img', name: 'read_file', ok: true, output: 'logo.png: image', todoId: '1', images: [{ mediaType: 'image/png', width: 8, height: 8, bytes: 90 }] },
      ...read('r2', 'b.py'),
      ...read('r3', 'c.py'),
    ]);
    assert.deepEqual(describeShown(cards), ['r1', 'img', 'Read 2 files [r2,r3]']);
  });

  it('says how a fold reads: one file many times, and reads still going', () => {
    const cards = foldCards([
      { kind: 'read', id: 'a', toolUseId: 'a', path: 'app.py', range: 'lines 1–10', status: 'ok' },
      { kind: 'read', id: 'b', toolUseId: 'b', path: 'app.py', range: 'lines 11–20', status: 'ok' },
    ] satisfies Card[]);
    assert.equal((cards[0] as FoldCard).label, 'Read app.py 2 times');
    assert.equal(
      foldLabel('read', [
        { kind: 'read', id: 'a', toolUseId: 'a', path: 'a.py', status: 'ok' },
        { kind: 'read', id: 'b', toolUseId: 'b', path: 'b.py', status: 'running' },
      ]),
      'Reading 2 files…',
    );
  });

  it('live: a second read turns the first into a fold in its place; a third grows it', () => {
    const store = new ConversationStore(steps);
    store.reset('s');
    store.accept({ kind: 'runStart', prompt: 'go' });
    const first = store.accept(read('r1', 'a.py')[0]);
    assert.ok(first.type === 'update');
    assert.deepEqual(first.upserts.map((c) => c.id), ['r1']);
    store.accept(read('r1', 'a.py')[1]);
    const second = store.accept(read('r2', 'b.py')[0]);
    assert.ok(second.type === 'update');
    assert.deepEqual(second.removed, ['r1'], 'the lone row goes');
    assert.deepEqual(second.upserts.map((c) => c.id), ['fold:r1'], 'the fold comes');
    assert.equal(second.upserts[0]?.before, undefined, 'at the end: nothing drawn after it');
    const third = store.accept(read('r3', 'c.py')[0]);
    assert.ok(third.type === 'update');
    assert.deepEqual(third.removed, []);
    assert.deepEqual(third.upserts.map((c) => c.id), ['fold:r1']);
    assert.equal((third.upserts[0] as FoldCard).label, 'Reading 3 files…');
    // Something else comes: the fold is not drawn again.
    const text = store.accept({ kind: 'text', text: 'Now' });
    assert.ok(text.type === 'update');
    assert.deepEqual(text.upserts.map((c) => c.id), ['t2']);
  });

  it('live: a read joins the fold while it runs and leaves it when it turns out to be an image', () => {
    const store = new ConversationStore(steps);
    store.reset('s');
    store.accept({ kind: 'runStart', prompt: 'go' });
    for (const event of read('r1', 'a.py')) store.accept(event);
    const running = store.accept({ kind: 'toolCall', toolUseId: 'img', name: 'read_file', summary: 'logo.png', todoId: '1' });
    assert.ok(running.type === 'update');
    assert.deepEqual(running.upserts.map((c) => c.id), ['fold:r1']);
    const done = store.accept({ kind: 'toolResult', toolUseId: 'img', name: 'read_file', ok: true, output: 'logo.png: image', todoId: '1', images: [{ mediaType: 'image/png', width: 8, height: 8, bytes: 90 }] });
    assert.ok(done.type === 'update');
    assert.deepEqual(done.removed, ['fold:r1'], 'the fold goes');
    assert.deepEqual(done.upserts.map((c) => c.id).sort(), ['img', 'r1'], 'its two rows come back, the image one with its thumbnail');
    assert.deepEqual(describeShown(store.shownCards()).slice(-2), ['r1', 'img']);
  });

  it('live: a fold that forms before drawn cards goes in its members\' place', () => {
    const store = new ConversationStore(steps);
    store.reset('s');
    for (const event of [...read('r1', 'a.py'), ...command('c1')]) store.accept(event);
    // A read whose call came late, put before c1 (as the builder does for a history page).
    const shownNow = store.shownCards();
    assert.deepEqual(describeShown(shownNow), ['r1', 'c1']);
  });

  it('leaves the host\'s cards as they were (ids for the Plan link and the output)', () => {
    const store = new ConversationStore(steps);
    store.reset('s');
    for (const event of [...read('r1', 'a.py'), ...read('r2', 'b.py')]) store.accept(event);
    assert.deepEqual(store.cards.map((c) => c.id), ['r1', 'r2']);
    assert.equal(store.firstCardOfStep('1'), 'r1');
  });
});

describe('"Load earlier" keeps the reading position', () => {
  it('finds the card the reader looked at as far from the end as it was, not by an id numbered by position', () => {
    // A text card is numbered by position: the old "t1" is now "t3", and "t1" names a new card.
    assert.equal(anchorAfterPrepend(['t1', 'r1', 't2'], ['t1', 'p1', 't2', 'r0', 't3', 'r1', 't4'], 'r1'), 'r1');
    assert.equal(anchorAfterPrepend(['t1', 'r1', 't2'], ['t1', 'p1', 't2', 'r0', 't3', 'r1', 't4'], 't1'), 't3');
    assert.equal(anchorAfterPrepend(['t1', 'r1'], ['x'], 'gone'), undefined);
  });

  it('after a page in front, the first old card\'s id is found in the new list', () => {
    const store = new ConversationStore(steps);
    const entries = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => [
        { kind: 'text', text: `Step ${from + i}`, seq: 3 * (from + i), run: 1 },
        { kind: 'toolCall', toolUseId: `x${from + i}`, name: 'bash', summary: 'ls', todoId: null, seq: 3 * (from + i) + 1, run: 1 },
        { kind: 'toolResult', toolUseId: `x${from + i}`, name: 'bash', ok: true, output: 'ok', todoId: null, exitCode: 0, seq: 3 * (from + i) + 2, run: 1 },
      ]).flat() as ConversationEvent[];
    const first = store.reset('s', { sessionId: 's', entries: entries(5, 10) as never, before: 'c', total: 30 });
    assert.ok(first.type === 'reset');
    const oldIds = first.cards.map((c) => c.id);
    const older = store.prepend({ sessionId: 's', entries: entries(0, 5) as never, before: null, total: 30 });
    assert.ok(older?.type === 'reset');
    const newIds = older.cards.map((c) => c.id);
    const anchor = anchorAfterPrepend(oldIds, newIds, oldIds[0]);
    const card = older.cards.find((c) => c.id === anchor);
    assert.ok(card?.kind === 'text' && card.html.includes('Step 5'), JSON.stringify(card));
  });
});
