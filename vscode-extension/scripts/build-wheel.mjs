// Puts the server wheel that ships inside the VSIX into bundled/. Either it is built from
// this repository:
//   python -m pip wheel <repo> --no-deps -w bundled      (the interpreter: $WA_PYTHON, else python3)
// or, with $WA_WHEEL_DIR (what `make dist` does), the release wheel built there by
// `python -m build` is copied, so the VSIX and dist/ ship the same file.
// The wheel's version must be the extension's (one version for both). The extension
// installs this wheel into a private virtual environment when the user's interpreter
// lacks the server package.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const extensionDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(extensionDir, '..');
const bundled = join(extensionDir, 'bundled');
const python = process.env.WA_PYTHON || 'python3';
const wheelDir = process.env.WA_WHEEL_DIR;
const isWheel = (name) => /^workspace_agent-.*\.whl$/.test(name);

function fail(message) {
  console.error(`build-wheel: ${message}`);
  process.exit(1);
}

rmSync(bundled, { recursive: true, force: true });
mkdirSync(bundled, { recursive: true });
if (wheelDir) {
  const built = readdirSync(wheelDir).filter(isWheel);
  if (built.length !== 1) {
    fail(`expected one workspace_agent wheel in ${wheelDir}, found: ${built.join(', ') || 'none'}`);
  }
  copyFileSync(join(wheelDir, built[0]), join(bundled, built[0]));
} else {
  const result = spawnSync(
    python,
    ['-m', 'pip', 'wheel', repo, '--no-deps', '--disable-pip-version-check', '--quiet', '-w', bundled],
    { stdio: 'inherit' },
  );
  if (result.status !== 0) {
    fail(`"${python} -m pip wheel" failed (${result.error?.message ?? `exit ${result.status}`})`);
  }
}
const wheels = readdirSync(bundled).filter(isWheel);
if (wheels.length !== 1) {
  fail(`expected one workspace_agent wheel in ${bundled}, found: ${wheels.join(', ') || 'none'}`);
}
const { version } = JSON.parse(readFileSync(join(extensionDir, 'package.json'), 'utf8'));
if (!wheels[0].startsWith(`workspace_agent-${version}-`)) {
  fail(`bundled/${wheels[0]} is not version ${version}, the extension's (see CHANGELOG.md: one version for both)`);
}
console.log(`build-wheel: bundled/${wheels[0]}`);
