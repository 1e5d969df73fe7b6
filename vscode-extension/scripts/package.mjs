// Packages the extension: dist/workspace-agent.vsix (run after build and wheel; see
// `npm run package`). Two things `vsce package` cannot do alone here:
//   - the changelog is the project's, ../CHANGELOG.md (one version for the server and the
//     extension): it is copied in for vsce, which only takes files inside this folder;
//   - the extension lives in a subfolder of its repository, so relative links and images
//     in README.md are made absolute against `repository.directory` (vsce would resolve
//     them against the repository root);
//   - `#2` is not an issue link: the docs name plan items that way (`plan item #2`), so
//     vsce's rewriting of GitHub-style issue references is off.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const extensionDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(extensionDir, 'package.json'), 'utf8'));
const repository = manifest.repository.url.replace(/\.git$/, '');
const folder = manifest.repository.directory;

copyFileSync(join(extensionDir, '..', 'CHANGELOG.md'), join(extensionDir, 'CHANGELOG.md'));
const vsce = join(extensionDir, 'node_modules', '@vscode', 'vsce', 'vsce');
const result = spawnSync(
  process.execPath,
  [
    vsce,
    'package',
    '--no-dependencies',
    '--no-gitHubIssueLinking',
    '--baseContentUrl', `${repository}/blob/HEAD/${folder}`,
    '--baseImagesUrl', `${repository}/raw/HEAD/${folder}`,
    '-o', join('dist', 'workspace-agent.vsix'),
  ],
  { cwd: extensionDir, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
