// Builds the server wheel that ships inside the VSIX (bundled/), from this repository:
//   python -m pip wheel <repo> --no-deps -w bundled
// The interpreter is $WA_PYTHON, else python3. The extension installs this wheel into a
// private virtual environment when the user's interpreter lacks the server package.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const extensionDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(extensionDir, '..');
const bundled = join(extensionDir, 'bundled');
const python = process.env.WA_PYTHON || 'python3';

rmSync(bundled, { recursive: true, force: true });
mkdirSync(bundled, { recursive: true });
const result = spawnSync(
  python,
  ['-m', 'pip', 'wheel', repo, '--no-deps', '--disable-pip-version-check', '--quiet', '-w', bundled],
  { stdio: 'inherit' },
);
if (result.status !== 0) {
  console.error(`build-wheel: "${python} -m pip wheel" failed (${result.error?.message ?? `exit ${result.status}`})`);
  process.exit(1);
}
const wheels = readdirSync(bundled).filter((name) => /^workspace_agent-.*\.whl$/.test(name));
if (wheels.length !== 1) {
  console.error(`build-wheel: expected one workspace_agent wheel in ${bundled}, found: ${wheels.join(', ') || 'none'}`);
  process.exit(1);
}
console.log(`build-wheel: bundled/${wheels[0]}`);
