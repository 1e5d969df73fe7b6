import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  installFailureCause,
  checkServerPackage,
  describeCheck,
  findBundledWheel,
  installSteps,
  pickWheel,
  runProcess,
  venvPython,
} from '../../src/core/pythonEnv';
import { EXTENSION_DIR } from './paths';

/** A Python that has the server (the project's venv in CI), if the environment names one. */
const WA_PYTHON = process.env.WA_PYTHON;

describe('checkServerPackage (real interpreters)', () => {
  it('finds the server and its version in an interpreter that has it', { skip: !WA_PYTHON && 'WA_PYTHON not set' }, async () => {
    const check = await checkServerPackage(WA_PYTHON ?? '');
    assert.equal(check.ok, true);
    assert.match(check.ok ? check.version : '', /^\d+\.\d+/);
  });

  it('says the package is missing from an interpreter without it', async () => {
    // -I: isolated mode, so neither PYTHONPATH nor user site-packages can supply it.
    const dir = await mkdtemp(path.join(tmpdir(), 'wa-py-'));
    try {
      const wrapper = path.join(dir, 'python-isolated');
      const { writeFile, chmod } = await import('node:fs/promises');
      await writeFile(wrapper, '#!/bin/sh\nexec python3 -I -S "$@"\n');
      await chmod(wrapper, 0o755);
      const check = await checkServerPackage(wrapper);
      assert.equal(check.ok, false);
      assert.equal(check.ok ? '' : check.reason, 'missing-package');
      assert.match(check.ok ? '' : describeCheck(wrapper, check), /does not have the Workspace Agent server package/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says the interpreter cannot be started when it does not exist', async () => {
    const check = await checkServerPackage('/nonexistent/python3');
    assert.equal(check.ok ? '' : check.reason, 'no-interpreter');
  });
});

describe('the bundled wheel and the private environment', () => {
  it('picks the server wheel and its version from a folder listing', () => {
    assert.deepEqual(pickWheel('/x', ['notes.txt', 'workspace_agent-0.3.1-py3-none-any.whl']), {
      file: path.join('/x', 'workspace_agent-0.3.1-py3-none-any.whl'),
      version: '0.3.1',
    });
    assert.equal(pickWheel('/x', ['other-1.0-py3-none-any.whl']), undefined);
  });

  it('finds no wheel in a missing folder', async () => {
    assert.equal(await findBundledWheel('/nonexistent/bundled'), undefined);
  });

  it('knows where a venv keeps its interpreter', () => {
    assert.equal(venvPython('/s/venv', 'linux'), path.join('/s/venv', 'bin', 'python'));
    assert.equal(venvPython('C:\\s\\venv', 'win32'), path.join('C:\\s\\venv', 'Scripts', 'python.exe'));
  });

  it('creates the venv only when asked, then pip-installs the wheel into it', () => {
    const steps = installSteps('python3', '/s/venv', '/e/bundled/w.whl', { createVenv: true, platform: 'linux' });
    assert.deepEqual(
      steps.map((step) => [step.command, ...step.args]),
      [
        ['python3', '-m', 'venv', '/s/venv'],
        ['/s/venv/bin/python', '-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--upgrade', '/e/bundled/w.whl'],
      ],
    );
    assert.equal(installSteps('python3', '/s/venv', 'w.whl', { createVenv: false }).length, 1);
  });

  // The real thing: the wheel `npm run package` bundles, installed as the extension does.
  // pip fetches the server's dependencies from the package index, so this needs it reachable.
  const runInstall = process.env.WA_TEST_INSTALL === '1';
  it('installs the bundled wheel into a fresh private environment', { skip: !runInstall && 'set WA_TEST_INSTALL=1', timeout: 600_000 }, async () => {
    const wheel = await findBundledWheel(path.join(EXTENSION_DIR, 'bundled'));
    assert.ok(wheel, 'no wheel in bundled/: run `npm run package` first');
    const dir = await mkdtemp(path.join(tmpdir(), 'wa-venv-'));
    try {
      const venv = path.join(dir, 'server-venv');
      for (const step of installSteps(WA_PYTHON ?? 'python3', venv, wheel.file, { createVenv: true })) {
        const result = await runProcess(step.command, step.args, { timeoutMs: 540_000 });
        assert.equal(result.code, 0, `${step.title}: ${result.stderr}`);
      }
      assert.ok(existsSync(venvPython(venv)));
      assert.deepEqual(await checkServerPackage(venvPython(venv)), { ok: true, version: wheel.version });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('installFailureCause', () => {
  it('names pip\'s error, not the index warnings a closed network prints after it', () => {
    const stderr = [
      "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError': /simple/anthropic/",
      'ERROR: Could not find a version that satisfies the requirement anthropic<3,>=2.10 (from workspace-agent) (from versions: none)',
      'ERROR: No matching distribution found for anthropic<3,>=2.10',
      "WARNING: Location 'file:///opt/pypi-more/simple/h11/' is ignored: it is neither a file nor a directory.",
    ].join('\n');
    assert.equal(
      installFailureCause(stderr),
      'ERROR: Could not find a version that satisfies the requirement anthropic<3,>=2.10 (from workspace-agent) (from versions: none)\nERROR: No matching distribution found for anthropic<3,>=2.10',
    );
  });

  it('takes the last lines that are not warnings when pip printed no ERROR line', () => {
    assert.equal(installFailureCause('WARNING: a\nError: [Errno 28] No space left on device\nWARNING: b\n'), 'Error: [Errno 28] No space left on device');
    assert.equal(installFailureCause('WARNING: only warnings'), 'WARNING: only warnings');
    assert.equal(installFailureCause('spawn python3 ENOENT'), 'spawn python3 ENOENT');
  });
});
