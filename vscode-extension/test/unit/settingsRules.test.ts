import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { APPROVAL_MODES, SANDBOX_MODES } from '../../src/core/settings';
import { combine, tightened } from '../../src/core/settingsRules';
import { TIGHTENING } from '../../src/protocol';
import { REPO_DIR } from './paths';

/**
 * The corpus of random settings levels the Python tests draw with hypothesis and check
 * against agent/settings_rules.py (tests/support/settings_corpus.py): the same verdict here,
 * case by case, or the two languages decide a workspace's settings differently.
 */
interface Case {
  key: string;
  levels: unknown[];
  verdict: { value: unknown; refused: unknown[] };
}

const CORPUS = path.join(REPO_DIR, 'tests', 'unit', 'agent', 'settings_rules_corpus.json');

describe('the workspace rules, as the server decides them', () => {
  const corpus = JSON.parse(readFileSync(CORPUS, 'utf8')) as Case[];

  it('reads a corpus of every way of combining', () => {
    assert.ok(corpus.length >= 500, `only ${corpus.length} cases`);
    const ways = new Set(corpus.map(({ key }) => TIGHTENING[key]?.combine));
    assert.deepEqual([...ways].sort(), ['cap', 'toward', 'union', 'userOnly']);
  });

  it('gives every case of the corpus the server\'s verdict', () => {
    const differ: string[] = [];
    for (const { key, levels, verdict } of corpus) {
      const got = combine(key, levels);
      try {
        assert.deepStrictEqual({ value: got.value ?? null, refused: got.refused }, verdict);
      } catch {
        differ.push(`${key} ${JSON.stringify(levels)}: server ${JSON.stringify(verdict)}, here ${JSON.stringify(got)}`);
      }
    }
    assert.deepEqual(differ, []);
  });

  it('orders modes as the contract does, and combines every setting but the overrides', () => {
    assert.deepEqual([...APPROVAL_MODES], TIGHTENING.approvals.order);
    assert.deepEqual([...SANDBOX_MODES], TIGHTENING['sandbox.mode'].order);
    assert.ok(tightened('approvals') && tightened('baseUrl') && !tightened('model'));
  });
});
