import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isContract } from '../../src/contract';
import {
  effective,
  levelRows,
  modelIdProblem,
  modelRows,
  pickView,
  runFields,
} from '../../src/core/modelPick';
import type { ModelChoice, ModelsResult } from '../../src/protocol';

const ALL = ['off', 'low', 'medium', 'high', 'max'] as const;
const sonnet45: ModelChoice = { id: 'claude-sonnet-4-5', label: 'Sonnet 4.5', levels: [...ALL], defaultLevel: 'low', known: true };
const opus46: ModelChoice = { id: 'claude-opus-4-6', label: 'Opus 4.6', levels: [...ALL], defaultLevel: 'high', known: true };
const alias: ModelChoice = { id: 'my-alias', label: 'my-alias', levels: ['off'], defaultLevel: 'off', known: false };
const offer: ModelsResult = { models: [opus46, sonnet45, alias], model: 'claude-opus-4-6', thinking: 'medium' };

describe('pickView', () => {
  it('shows the settings’ model and level until something is picked', () => {
    const view = pickView(offer, {});
    assert.equal(view.text, '$(sparkle) Opus 4.6 · medium');
    assert.match(view.tooltip, /^Model claude-opus-4-6, thinking medium\. From the settings/);
  });

  it('shows the pick, and what the settings give', () => {
    const view = pickView(offer, { model: 'claude-sonnet-4-5', thinking: 'medium' });
    assert.equal(view.text, '$(sparkle) Sonnet 4.5 · medium');
    assert.match(view.tooltip, /Picked for this window's sessions \(the settings give Opus 4\.6 · medium\)/);
    assert.equal(view.accessibilityLabel, 'Model Sonnet 4.5, thinking medium (Workspace Agent)');
  });

  it('says "no thinking" for off, and a model without thinking runs with none', () => {
    assert.equal(pickView(offer, { model: 'my-alias' }).text, '$(sparkle) my-alias · no thinking');
    assert.equal(pickView(offer, { model: 'claude-opus-4-6', thinking: 'off' }).text, '$(sparkle) Opus 4.6 · no thinking');
  });
});

describe('effective', () => {
  it('a picked model alone runs at its own default, the settings’ model at the settings’ level', () => {
    assert.equal(effective(offer, { model: 'claude-sonnet-4-5' }).level, 'low');
    assert.equal(effective(offer, {}).level, 'medium');
    assert.equal(effective(offer, { thinking: 'max' }).level, 'max');
  });

  it('a model the server did not describe takes no thinking', () => {
    const now = effective(offer, { model: 'typed-model', thinking: 'high' });
    assert.deepEqual([now.choice.label, now.level, now.choice.known], ['typed-model', 'off', false]);
  });
});

describe('modelRows', () => {
  it('puts the settings\' own model, which the server lists after its table, first (the pick opens at its top)', () => {
    const own: ModelChoice = { id: 'scripted-e2e-model', label: 'scripted-e2e-model', levels: ['off'], defaultLevel: 'off', known: false };
    const listed: ModelsResult = { models: [opus46, sonnet45, own], model: own.id, thinking: 'off' };
    assert.deepEqual(
      modelRows(listed, {}).map((r) => r.label),
      ['$(check) scripted-e2e-model', 'Opus 4.6', 'Sonnet 4.5', 'Other…'],
    );
  });

  it('marks the current model, offers Other…, and no actions while nothing is picked', () => {
    const rows = modelRows(offer, {});
    assert.deepEqual(
      rows.map((r) => r.label),
      ['my-alias', '$(check) Opus 4.6', 'Sonnet 4.5', 'Other…'],
    );
    assert.equal(rows[1].detail, 'the settings’ model');
    assert.equal(rows[2].description, 'claude-sonnet-4-5');
    assert.equal(rows[0].description, undefined); // its label is its id
  });

  it('offers Save as Default and Use the Settings once something is picked', () => {
    const rows = modelRows(offer, { model: 'claude-sonnet-4-5', thinking: 'high' });
    assert.deepEqual(
      rows.map((r) => [r.label, r.value]),
      [
        ['my-alias', 'my-alias'],
        ['Opus 4.6', 'claude-opus-4-6'],
        ['$(check) Sonnet 4.5', 'claude-sonnet-4-5'],
        ['Other…', 'other'],
        ['', ''],
        ['$(save) Save as Default', 'save'],
        ['$(discard) Use the Settings', 'settings'],
      ],
    );
    assert.equal(rows[5].description, 'claude-sonnet-4-5 · high, in your user settings');
    assert.equal(rows[6].description, 'Opus 4.6 · medium');
  });

  it('lists a typed model that is not offered, and no Save when the pick is the settings’', () => {
    const typed = modelRows(offer, { model: 'typed-model' }).map((r) => r.label);
    assert.ok(typed.includes('$(check) typed-model'));
    const same = modelRows(offer, { model: 'claude-opus-4-6', thinking: 'medium' }).map((r) => r.value);
    assert.ok(!same.includes('save') && same.includes('settings'));
  });
});

describe('levelRows', () => {
  it('lists the levels the model takes, its default and the current one marked', () => {
    const rows = levelRows(sonnet45, 'medium');
    assert.deepEqual(rows.map((r) => r.label), ['off', 'low', '$(check) medium', 'high', 'max']);
    assert.equal(rows[1].description, 'a little thinking (the model’s default)');
    assert.deepEqual(levelRows(alias, undefined).map((r) => r.value), ['off']);
  });
});

describe('runFields', () => {
  it('sends only what was picked', () => {
    assert.deepEqual(runFields({}), {});
    assert.deepEqual(runFields({ model: 'claude-opus-4-6' }), { model: 'claude-opus-4-6' });
    assert.deepEqual(runFields({ model: 'm', thinking: 'off' }), { model: 'm', thinking: 'off' });
  });
});

describe('model ids and answers', () => {
  it('refuses an empty id or one with spaces, saying what to type', () => {
    assert.equal(modelIdProblem('  '), 'Type a model id, such as claude-sonnet-4-5.');
    assert.equal(modelIdProblem('claude sonnet'), 'A model id has no spaces.');
    assert.equal(modelIdProblem(' claude-sonnet-4-5 '), undefined);
  });

  it('accepts only a workspaceAgent/models answer of the promised shape', () => {
    assert.ok(isContract('ModelsResult', offer));
    assert.ok(!isContract('ModelsResult', { ...offer, thinking: 'extreme' }));
    assert.ok(!isContract('ModelsResult', { models: [{ id: 'x' }], model: 'x', thinking: 'off' }));
  });
});
