// Checks what the VSIX ships, after `npm run package`:
//   - `vsce ls` lists exactly the files the extension needs at run time (the bundle, the
//     server wheel, the manifest, README, CHANGELOG, LICENSE, media): no sources, tests,
//     source maps or node_modules;
//   - dist/ThirdPartyNotices.txt names every runtime dependency of package.json (the
//     bundles carry their code, so their licences must travel with it);
//   - dist/workspace-agent.vsix stays within its size budget; the size is printed.
// Exits non-zero with the reason on any failure.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The budget of the packaged VSIX (zip), in bytes: about 1.1 times its size (1,026 KiB)
 * once issue 50's first part landed (plain words per API status, the context meter, what
 * the user did on the plan's card: 6 KiB, most of it server code in the wheel). It was
 * 1,024 KiB, about 1.1 times 916 KiB, once hooks, background commands, subagents and skills
 * landed with their server code (the wheel) and views (issues 44-46); 896 KiB, 1.13 times
 * 792 KiB, after the contract's generated checks, image thumbnails, error cards, folds and
 * the sandbox's cards (issues 30-32); 768 KiB after the Conversation view (markdown-it,
 * highlight.js), the sandbox and MCP; 512 KiB before them.
 */
const VSIX_BUDGET_BYTES = 1128 * 1024;

const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^CHANGELOG\.md$/,
  /^LICENSE\.txt$/,
  /^dist\/extension\.js$/,
  /^dist\/webview\.js$/,
  /^dist\/ThirdPartyNotices\.txt$/,
  /^media\/conversation\.css$/,
  /^bundled\/workspace_agent-[^/]+-py3-none-any\.whl$/,
  /^media\/(agent\.svg|icon\.png)$/,
  /^media\/walkthrough\/[\w-]+\.(md|png)$/,
];
const REQUIRED = [
  'package.json',
  'README.md',
  'CHANGELOG.md',
  'LICENSE.txt',
  'dist/extension.js',
  'dist/webview.js',
  'dist/ThirdPartyNotices.txt',
  'media/conversation.css',
  'media/icon.png',
  'media/agent.svg',
];

const extensionDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const listed = spawnSync(process.execPath, [join(extensionDir, 'node_modules', '@vscode', 'vsce', 'vsce'), 'ls', '--no-dependencies'], {
  cwd: extensionDir,
  encoding: 'utf8',
});
if (listed.status !== 0) {
  console.error(`check-vsix: vsce ls failed:\n${listed.stderr}`);
  process.exit(1);
}
const files = listed.stdout.split('\n').map((line) => line.trim()).filter(Boolean);
const problems = [
  ...files.filter((file) => !ALLOWED.some((pattern) => pattern.test(file))).map((file) => `not needed at run time: ${file}`),
  ...REQUIRED.filter((file) => !files.includes(file)).map((file) => `missing: ${file}`),
];
const wheels = files.filter((file) => file.startsWith('bundled/'));
if (wheels.length !== 1) {
  problems.push(`expected one server wheel in bundled/, found ${wheels.length}`);
}
const manifest = JSON.parse(readFileSync(join(extensionDir, 'package.json'), 'utf8'));
let notices = '';
try {
  notices = readFileSync(join(extensionDir, 'dist', 'ThirdPartyNotices.txt'), 'utf8');
} catch {
  problems.push('dist/ThirdPartyNotices.txt does not exist: run `npm run build` first');
}
for (const name of Object.keys(manifest.dependencies ?? {})) {
  const version = JSON.parse(readFileSync(join(extensionDir, 'node_modules', name, 'package.json'), 'utf8')).version;
  if (notices && !notices.includes(`\n${name} ${version} (`)) {
    problems.push(`dist/ThirdPartyNotices.txt has no notice for the bundled ${name} ${version}`);
  }
}
const vsix = join(extensionDir, 'dist', 'workspace-agent.vsix');
let size = 0;
try {
  size = statSync(vsix).size;
} catch {
  problems.push('dist/workspace-agent.vsix does not exist: run `npm run package` first');
}
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
if (size > VSIX_BUDGET_BYTES) {
  problems.push(`dist/workspace-agent.vsix is ${kib(size)}, over its budget of ${kib(VSIX_BUDGET_BYTES)}`);
}
for (const file of files) {
  console.log(`  ${kib(statSync(join(extensionDir, file)).size).padStart(10)}  ${file}`);
}
if (problems.length) {
  console.error(`check-vsix: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-vsix: ${files.length} files; dist/workspace-agent.vsix is ${kib(size)} (budget ${kib(VSIX_BUDGET_BYTES)})`);
