import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageKey, imageRefs, isImageRef } from '../../src/core/conversation';
import { ConversationStore, isFromWebview } from '../../src/core/conversationStore';
import type { HistoryEntry, HistoryResult } from '../../src/protocol';

const records = [
  { mediaType: 'image/png', width: 800, height: 600, bytes: 41_000 },
  { mediaType: 'image/webp', width: 4, height: 3, bytes: 99 },
];
const sent = [
  { data: 'iVBORw0KGgo=', mediaType: 'image/png' },
  { data: 'UklGRg==', mediaType: 'image/webp' },
];

function page(entries: HistoryEntry[], before: string | null = null): HistoryResult {
  return { sessionId: 's', entries, before, total: entries.length };
}

describe("a prompt card's images", () => {
  it('a history runStart names its images by its seq, for workspaceAgent/historyImage', () => {
    const store = new ConversationStore(() => undefined);
    store.reset('s', page([{ kind: 'runStart', prompt: 'What is this?', images: records, seq: 7, run: 2 }]));
    const card = store.cards[0];
    assert.ok(card?.kind === 'prompt');
    assert.deepEqual(card.images, [
      { index: 0, seq: 7, label: 'PNG 800x600' },
      { index: 1, seq: 7, label: 'WebP 4x3' },
    ]);
    assert.equal(card.attached, '2 images PNG 800x600, WebP 4x3'); // still named in words
    assert.equal(store.sentImage(card.images[0]), undefined); // the server has it
  });

  it('a live runStart of a task this window sent shows what was sent, through a rebuild too', () => {
    const store = new ConversationStore(() => undefined);
    store.reset('s', page([{ kind: 'runStart', prompt: 'older', seq: 0, run: 1 }, { kind: 'runEnd', stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1 }, seq: 1, run: 1 }], 'h1'));
    store.accept({ kind: 'runStart', prompt: 'What is this?', images: records }, sent);
    const live = store.cards.find((c) => c.kind === 'prompt' && c.text === 'What is this?');
    assert.ok(live?.kind === 'prompt' && live.images);
    assert.deepEqual(live.images.map((ref) => ref.local !== undefined && ref.seq === undefined), [true, true]);
    assert.deepEqual(store.sentImage(live.images[1]), sent[1]);
    const key = imageKey(live.images[0]);

    // "Load earlier" builds every card again: the live card keeps its images and their key.
    store.prepend(page([{ kind: 'runStart', prompt: 'first', seq: 0, run: 1 }]));
    const again = store.cards.find((c) => c.kind === 'prompt' && c.text === 'What is this?');
    assert.ok(again?.kind === 'prompt' && again.images);
    assert.equal(imageKey(again.images[0]), key);
    assert.deepEqual(store.sentImage(again.images[0]), sent[0]);
  });

  it('a live runStart it did not send (or whose images do not match) only names them', () => {
    const store = new ConversationStore(() => undefined);
    store.reset('s');
    store.accept({ kind: 'runStart', prompt: 'from elsewhere', images: records });
    store.accept({ kind: 'runStart', prompt: 'one of two', images: records }, [sent[0]]);
    for (const card of store.cards) {
      assert.ok(card.kind !== 'prompt' || card.images === undefined, JSON.stringify(card));
    }
    assert.deepEqual(imageRefs({ kind: 'runStart', prompt: 'no images' }, 'l1'), []);
  });

  it('another session forgets what was sent', () => {
    const store = new ConversationStore(() => undefined);
    store.reset('s');
    store.accept({ kind: 'runStart', prompt: 'x', images: records }, sent);
    const card = store.cards[0];
    assert.ok(card?.kind === 'prompt' && card.images);
    const ref = card.images[0];
    const reset = store.reset('t');
    assert.equal(store.sentImage(ref), undefined);
    assert.ok(reset.type === 'reset' && reset.sessionId === 't');
  });

  it('keys and refs the webview sends back are checked', () => {
    assert.equal(imageKey({ index: 1, seq: 7 }), 's7:1');
    assert.equal(imageKey({ index: 0, local: 'l2' }), 'l2:0');
    assert.ok(isImageRef({ index: 0, seq: 3, label: 'PNG 1x1' }));
    assert.ok(isImageRef({ index: 2, local: 'l1', label: 'PNG 1x1' }));
    assert.ok(!isImageRef({ index: -1, seq: 3, label: 'x' }));
    assert.ok(!isImageRef({ index: 0, seq: 1.5, label: 'x' }));
    assert.ok(!isImageRef({ index: 0, label: 'x' }));
    assert.ok(!isImageRef({ index: 0, seq: 1, local: 'l1', label: 'x' }));
    assert.ok(!isImageRef({ index: 0, seq: 1 }));
    assert.ok(isFromWebview({ type: 'image', ref: { index: 0, seq: 3, label: 'PNG 1x1' } }));
    assert.ok(isFromWebview({ type: 'openImage', ref: { index: 0, local: 'l1', label: 'PNG 1x1' } }));
    assert.ok(!isFromWebview({ type: 'image', ref: '../../etc/passwd' }));
  });
});

describe("an MCP tool result's images", () => {
  const tiny = [{ mediaType: 'image/png', width: 32, height: 32, bytes: 1_200 }];

  it('the live result and the history name them by the call, for workspaceAgent/toolImage', () => {
    const live = new ConversationStore(() => undefined);
    live.reset('s');
    live.accept({ kind: 'toolCall', toolUseId: 'tu1', name: 'mcp__everything__get-tiny-image', summary: 'everything get-tiny-image {}', todoId: null });
    live.accept({ kind: 'toolResult', toolUseId: 'tu1', name: 'mcp__everything__get-tiny-image', ok: true, output: 'A tiny image:', todoId: null, exitCode: null, outputChars: 13, changes: [], images: tiny });
    const card = live.cards.find((c) => c.kind === 'tool');
    assert.ok(card?.kind === 'tool');
    assert.equal(card.output, 'A tiny image:');
    assert.deepEqual(card.images, [{ index: 0, toolUseId: 'tu1', label: 'PNG 32x32' }]);
    assert.equal(imageKey(card.images[0]), 'ttu1:0');
    assert.equal(live.sentImage(card.images[0]), undefined); // the server has it

    const reopened = new ConversationStore(() => undefined);
    reopened.reset('s', page([
      { kind: 'toolCall', toolUseId: 'tu1', name: 'mcp__everything__get-tiny-image', summary: 'everything get-tiny-image {}', todoId: null, seq: 0, run: 1 },
      { kind: 'toolResult', toolUseId: 'tu1', name: 'mcp__everything__get-tiny-image', ok: true, output: 'A tiny image:', todoId: null, exitCode: null, outputChars: 13, changes: [], images: tiny, seq: 1, run: 1 },
    ]));
    const again = reopened.cards.find((c) => c.kind === 'tool');
    assert.ok(again?.kind === 'tool');
    assert.deepEqual(again.images, card.images);
  });

  it('a result without images, a failed one and the plan tool get no thumbnails', () => {
    const store = new ConversationStore(() => undefined);
    store.reset('s');
    store.accept({ kind: 'toolCall', toolUseId: 'a', name: 'mcp__time__now', summary: 'time now', todoId: null });
    store.accept({ kind: 'toolResult', toolUseId: 'a', name: 'mcp__time__now', ok: true, output: 'noon', todoId: null, exitCode: null, outputChars: 4, changes: [] });
    store.accept({ kind: 'toolCall', toolUseId: 'p', name: 'todo', summary: '', todoId: null });
    store.accept({ kind: 'toolResult', toolUseId: 'p', name: 'todo', ok: true, output: '[ ] one', todoId: null, exitCode: null, outputChars: 7, changes: [], images: tiny });
    for (const card of store.cards) {
      assert.ok(card.kind !== 'tool' || card.images === undefined, JSON.stringify(card));
    }
  });

  it('read_file of an image file: its card carries the image the model saw; a failed read none', () => {
    const store = new ConversationStore(() => undefined);
    store.reset('s');
    store.accept({ kind: 'toolCall', toolUseId: 'r1', name: 'read_file', summary: 'logo.png', todoId: null });
    store.accept({ kind: 'toolResult', toolUseId: 'r1', name: 'read_file', ok: true, output: 'logo.png: image (PNG 32x32, 1.2 KB), shown below.', todoId: null, exitCode: null, outputChars: 48, changes: [], images: tiny });
    store.accept({ kind: 'toolCall', toolUseId: 'r2', name: 'read_file', summary: 'gone.png', todoId: null });
    store.accept({ kind: 'toolResult', toolUseId: 'r2', name: 'read_file', ok: false, output: 'gone.png: no such file', todoId: null, exitCode: null, outputChars: 22, changes: [] });
    const [logo, gone] = store.cards.filter((c) => c.kind === 'read');
    assert.ok(logo?.kind === 'read' && gone?.kind === 'read');
    assert.deepEqual(logo.images, [{ index: 0, toolUseId: 'r1', label: 'PNG 32x32' }]);
    assert.equal(gone.images, undefined);
    assert.equal(gone.error, 'gone.png: no such file');
  });

  it('the webview may ask for one by the call, and only with one kind of name', () => {
    assert.ok(isImageRef({ index: 0, toolUseId: 'tu1', label: 'PNG 32x32' }));
    assert.ok(isFromWebview({ type: 'image', ref: { index: 0, toolUseId: 'tu1', label: 'PNG 32x32' } }));
    assert.ok(isFromWebview({ type: 'openImage', ref: { index: 0, toolUseId: 'tu1', label: 'PNG 32x32' } }));
    assert.ok(!isImageRef({ index: 0, toolUseId: '', label: 'PNG 32x32' }));
    assert.ok(!isImageRef({ index: 0, toolUseId: 'tu1', seq: 3, label: 'PNG 32x32' }));
    assert.ok(!isImageRef({ index: 0, toolUseId: 'tu1', local: 'l1', label: 'PNG 32x32' }));
    assert.ok(!isImageRef({ index: -1, toolUseId: 'tu1', label: 'PNG 32x32' }));
    assert.notEqual(imageKey({ index: 0, toolUseId: '7' }), imageKey({ index: 0, seq: 7 }));
  });
});
