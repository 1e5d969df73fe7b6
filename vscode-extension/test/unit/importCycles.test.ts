/**
 * The lint's import-circle rule (.dependency-cruiser.mjs) over planted circles
 * (fixtures/importCycles/): run as `npm run lint` runs it, it fails on each circle, type-only
 * imports included, and passes the same modules once the circle is broken.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { EXTENSION_DIR } from './paths';

const CONFIG = '.dependency-cruiser.mjs';
const FIXTURES = 'test/unit/fixtures/importCycles';
const CLI = path.join(EXTENSION_DIR, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** dependency-cruiser's command line over `folder`, with the lint's config. */
function cruise(folder: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [CLI, '--config', CONFIG, `${FIXTURES}/${folder}`], {
    cwd: EXTENSION_DIR,
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The modules of the circle the output reports, in its order (the first one again at the end). */
function circle(output: string): string[] {
  return [...output.matchAll(/importCycles\/\w+\/(\w+)\.ts/g)].map((match) => match[1] ?? '');
}

describe('the lint\'s import-circle rule', () => {
  it('runs over src/ with this config in `npm run lint` (so in `make lint` and CI)', () => {
    const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8'));
    assert.match(manifest.scripts.lint, new RegExp(`(^|&& )depcruise --config ${CONFIG.replace('.', '\\.')} src($| &&)`));
  });

  it('fails on a circle closed by a type-only import', () => {
    const { status, output } = cruise('typeOnly');
    assert.notEqual(status, 0, output);
    assert.match(output, /error no-circular/);
    assert.deepEqual(circle(output), ['editor', 'view', 'editor']);
  });

  it('fails on a circle of three modules', () => {
    const { status, output } = cruise('threeModules');
    assert.notEqual(status, 0, output);
    assert.match(output, /error no-circular/);
    assert.deepEqual(circle(output), ['first', 'second', 'third', 'first']);
  });

  it('passes the same modules with the circle broken (the id beside the ids, an interface of its own)', () => {
    const { status, output } = cruise('broken');
    assert.equal(status, 0, output);
    assert.match(output, /no dependency violations found \(3 modules, 2 dependencies cruised\)/);
  });
});
