// Bundles the extension (and, on request, the tests) with esbuild.
//   node scripts/build.mjs           dist/extension.js, dist/webview.js and the notices of the
//                                    packages bundled into them, dist/ThirdPartyNotices.txt
//                                    (what the VSIX ships)
//   node scripts/build.mjs --watch   the same, rebuilt on change
//   node scripts/build.mjs --tests   out/unit/*.test.js for `node --test`
//   node scripts/build.mjs --e2e     out/e2e/*.test.js (needs playwright-core at run time)
// Unit tests are bundled WITHOUT `vscode` as an external: a pure module that starts
// importing `vscode` makes this build fail, which keeps the tested logic editor-free.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeNotices } from './notices.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning', absWorkingDir: root };

function testEntries(dir) {
  return readdirSync(join(root, dir))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(dir, name));
}

if (args.has('--tests')) {
  await esbuild.build({ ...common, entryPoints: testEntries('test/unit'), outdir: 'out/unit', sourcemap: 'inline' });
} else if (args.has('--e2e')) {
  await esbuild.build({
    ...common,
    entryPoints: testEntries('test/e2e'),
    outdir: 'out/e2e',
    external: ['playwright-core'],
    sourcemap: 'inline',
  });
} else {
  const options = {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    sourcemap: args.has('--watch') ? 'inline' : false,
    minify: !args.has('--watch'),
    keepNames: true,
  };
  // The Conversation view's page script: for the browser, no Node, no `vscode`.
  const webview = {
    ...common,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    entryPoints: ['src/webview/conversation.ts'],
    outfile: 'dist/webview.js',
    sourcemap: args.has('--watch') ? 'inline' : false,
    minify: !args.has('--watch'),
  };
  if (args.has('--watch')) {
    for (const config of [options, webview]) {
      const context = await esbuild.context(config);
      await context.watch();
    }
    console.log('watching src/ …');
  } else {
    const results = await Promise.all([esbuild.build({ ...options, metafile: true }), esbuild.build({ ...webview, metafile: true })]);
    writeNotices(root, results.map((result) => result.metafile), 'dist/ThirdPartyNotices.txt');
  }
}
