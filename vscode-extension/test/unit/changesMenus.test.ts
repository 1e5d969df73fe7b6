import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CAN_UNDO_REVERT_CONTEXT, COMMAND_IDS, HAS_CHANGES_CONTEXT, RUNNING_CONTEXT } from '../../src/commands';
import { EXTENSION_DIR } from './paths';

interface MenuEntry {
  command: string;
  when?: string;
  group?: string;
}

const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8'));
const menus: Record<string, MenuEntry[]> = manifest.contributes.menus;
const PLAN_VIEW = 'view == workspaceAgent.plan';

function entries(menu: string, command: string): MenuEntry[] {
  return (menus[menu] ?? []).filter((entry) => entry.command === command);
}

describe('the changes commands in package.json', () => {
  it('hide from the palette what needs a row of the Plan view', () => {
    for (const command of [COMMAND_IDS.openChange, COMMAND_IDS.openChangedFile, COMMAND_IDS.revertStep]) {
      assert.deepEqual(entries('commandPalette', command), [{ command, when: 'false' }], command);
    }
  });

  it('offer Revert Last Run and Undo Last Revert in the palette only when they can do something', () => {
    assert.deepEqual(entries('commandPalette', COMMAND_IDS.revertLastRun), [
      { command: COMMAND_IDS.revertLastRun, when: `${HAS_CHANGES_CONTEXT} && !${RUNNING_CONTEXT}` },
    ]);
    assert.deepEqual(entries('commandPalette', COMMAND_IDS.undoRevert), [
      { command: COMMAND_IDS.undoRevert, when: `${CAN_UNDO_REVERT_CONTEXT} && !${RUNNING_CONTEXT}` },
    ]);
  });

  it('put Revert to Before This Step inline on revertible steps, never while a run goes', () => {
    const inline = entries('view/item/context', COMMAND_IDS.revertStep).find((entry) => entry.group === 'inline');
    assert.ok(inline);
    assert.equal(inline.when, `${PLAN_VIEW} && viewItem =~ /\\brevertible\\b/ && !${RUNNING_CONTEXT}`);
    // The step rows' contextValue (planView.ts) is "step" or "step revertible".
    assert.ok(new RegExp('\\brevertible\\b').test('step revertible'));
    assert.ok(!new RegExp('\\brevertible\\b').test('step'));
  });

  it('put Revert Last Run in the Plan view\'s title, and Undo Last Revert in its menu', () => {
    assert.deepEqual(entries('view/title', COMMAND_IDS.revertLastRun), [
      { command: COMMAND_IDS.revertLastRun, when: `${PLAN_VIEW} && ${HAS_CHANGES_CONTEXT} && !${RUNNING_CONTEXT}`, group: 'navigation@4' },
    ]);
    const undo = entries('view/title', COMMAND_IDS.undoRevert);
    assert.equal(undo.length, 1);
    assert.ok(!undo[0]?.group?.startsWith('navigation'), 'in the … menu');
  });

  it('open a changed file only when it still exists (not for a deleted one)', () => {
    for (const entry of entries('view/item/context', COMMAND_IDS.openChangedFile)) {
      assert.equal(entry.when, `${PLAN_VIEW} && viewItem == changedFile`);
    }
  });
});
