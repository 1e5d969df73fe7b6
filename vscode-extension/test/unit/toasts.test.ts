import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { showsToasts } from '../../src/core/toasts';

describe('when a run shows toasts', () => {
  it('a task sent from the Conversation view: none while the view is visible, its cards say it', () => {
    assert.equal(showsToasts('view', true), false);
  });

  it('the view hidden (another view, a collapsed side bar): the toasts come back', () => {
    assert.equal(showsToasts('view', false), true);
  });

  it('a task from Run Task…, a code action or Ask About Selection: the toasts stay, the user is in the editor', () => {
    assert.equal(showsToasts('elsewhere', true), true);
    assert.equal(showsToasts('elsewhere', false), true);
  });
});
