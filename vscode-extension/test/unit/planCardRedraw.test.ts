import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boxKept, boxKey, cardNeedsDrawing } from '../../src/core/planCardRedraw';
import { type PlanDraft, planCard, reword } from '../../src/core/planDraft';

const draft: PlanDraft = {
  sessionId: 's1',
  summary: 'Read, then fix.',
  revision: 1,
  items: [
    { id: '1', text: 'Read the parser', edited: false, added: false },
    { id: '2', text: 'Fix the bug', edited: false, added: false },
  ],
  removed: [],
};

describe('the plan card redraw (a box being typed in survives the host\'s pushes)', () => {
  it('draws a card only when it shows something new or a focus is asked for', () => {
    const card = planCard(draft);
    assert.equal(cardNeedsDrawing(card, planCard(draft)), false, 'the same card again (a mode push) is not drawn');
    assert.equal(cardNeedsDrawing(card, planCard(reword(draft, '2', 'Fix the parser bug'))), true);
    assert.equal(cardNeedsDrawing(card, planCard(draft), '2'), true, 'an edit\'s focus moves');
    assert.equal(cardNeedsDrawing(null, card), true);
    assert.equal(cardNeedsDrawing(card, null), true);
    assert.equal(cardNeedsDrawing(null, null), false);
  });

  it('keeps an open box while its item is on the card, and a new item\'s box always', () => {
    const card = planCard(draft);
    const rewording = { kind: 'reword' as const, id: '2', value: 'Fix th' };
    assert.equal(boxKept(rewording, card), rewording, 'the same object: what was typed goes on');
    assert.equal(boxKept({ kind: 'comment', id: '9' }, card), null, 'its item was deleted in the Plan view');
    const adding = { kind: 'add' as const, id: 'end' };
    assert.equal(boxKept(adding, card), adding);
    assert.equal(boxKept(rewording, null), null, 'no card, no box');
    assert.equal(boxKept(null, card), null);
    assert.equal(boxKey(rewording), 'input:reword:2');
  });
});
