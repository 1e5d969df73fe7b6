/**
 * The golden notifications of tests/golden/notifications/ (shared with the Python suite,
 * which checks that the server builds them): the extension's generated checks accept every
 * one, for every notification of the contract and every event kind.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { NotificationType } from 'vscode-languageserver-protocol';
import * as lsp from '../../src/lspExt';
import { EVENT_KINDS, notificationProblem } from '../../src/protocol';
import { REPO_DIR } from './paths';

const FOLDER = path.join(REPO_DIR, 'tests', 'golden', 'notifications');
const golden = (name: string): unknown[] => JSON.parse(readFileSync(path.join(FOLDER, `${name}.json`), 'utf8')) as unknown[];
const notifications = Object.values(lsp).flatMap((value) => (value instanceof NotificationType ? [value.method] : []));

describe('the golden notifications (tests/golden/notifications/)', () => {
  it('are there for every notification the extension handles, and no other', () => {
    const files = readdirSync(FOLDER)
      .filter((name) => name.endsWith('.json'))
      .map((name) => `workspaceAgent/${name.slice(0, -'.json'.length)}`);
    assert.ok(notifications.length >= 5, notifications.join(', '));
    assert.deepEqual(files.sort(), [...notifications].sort());
  });

  it('each pass the generated check of its notification', () => {
    for (const method of notifications) {
      const examples = golden(method.split('/')[1]);
      assert.ok(examples.length > 0, method);
      for (const example of examples) {
        assert.equal(notificationProblem(method, example), undefined, `${method}: ${JSON.stringify(example)}`);
      }
    }
  });

  it('show every event kind', () => {
    const kinds = new Set(golden('event').map((event) => (event as { kind: string }).kind));
    assert.deepEqual([...kinds].sort(), [...EVENT_KINDS].sort());
  });
});
