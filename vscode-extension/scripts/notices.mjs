// Writes the VSIX's third-party notices from what esbuild actually bundled.
// The licences of markdown-it, highlight.js, vscode-languageclient and their dependencies
// ask that their notice travels with every copy; the bundles are minified copies, so the
// VSIX carries each bundled package's name, version, licence and licence text. The list is
// taken from esbuild's metafile (the inputs of dist/extension.js and dist/webview.js), not
// from package.json, so a dependency that starts or stops being bundled is listed or
// dropped by the next build without anyone remembering to.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LICENSE_FILE = /^(licen[cs]e|copying)([-.].*)?$/i;

/** The node_modules package names (scoped or not) among a metafile's input paths. */
export function bundledPackages(metafiles) {
  const names = new Set();
  for (const metafile of metafiles) {
    for (const input of Object.keys(metafile.inputs)) {
      const match = input.match(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//);
      if (match) names.add(match[1]);
    }
  }
  return [...names].sort();
}

function licenseText(packageDir, name) {
  const file = readdirSync(packageDir).find((entry) => LICENSE_FILE.test(entry));
  if (!file) {
    throw new Error(`notices: ${name} is bundled but ships no LICENSE file; add its licence text to scripts/notices.mjs`);
  }
  return readFileSync(join(packageDir, file), 'utf8').trim();
}

/** The text of ThirdPartyNotices.txt for the given bundled packages. */
export function noticesText(root, names) {
  const sections = names.map((name) => {
    const packageDir = join(root, 'node_modules', name);
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    const heading = `${name} ${manifest.version} (${manifest.license ?? 'see the licence below'})`;
    return `${heading}\n${'-'.repeat(heading.length)}\n\n${licenseText(packageDir, name)}\n`;
  });
  return [
    'Workspace Agent for VS Code bundles (in dist/extension.js and dist/webview.js) the',
    'following third-party packages. Their notices and licences follow.',
    '',
    ...sections.map((section) => `${section}\n`),
  ].join('\n');
}

export function writeNotices(root, metafiles, outfile) {
  const names = bundledPackages(metafiles);
  writeFileSync(join(root, outfile), noticesText(root, names));
  return names;
}
