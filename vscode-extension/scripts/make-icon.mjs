// Renders the marketplace icon, media/icon.png (128x128), from the activity-bar glyph
// media/agent.svg: the glyph in white on a rounded, coloured square. The PNG is committed
// (packaging does not need a browser); run this again after changing the glyph:
//   node scripts/make-icon.mjs        (Chromium from $WA_CHROMIUM, else /usr/bin/chromium)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const SIZE = 128;
const media = join(dirname(fileURLToPath(import.meta.url)), '..', 'media');
const glyph = readFileSync(join(media, 'agent.svg'), 'utf8');
const inner = /<svg[^>]*>([\s\S]*)<\/svg>/.exec(glyph)?.[1];
const viewBox = /viewBox="0 0 (\d+) (\d+)"/.exec(glyph);
if (!inner || !viewBox || viewBox[1] !== viewBox[2]) {
  throw new Error('media/agent.svg: expected a square viewBox "0 0 N N" and some content');
}
const scale = (SIZE * 0.75) / Number(viewBox[1]);
const offset = (SIZE - Number(viewBox[1]) * scale) / 2;
const icon = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#2f6fde"/>
      <stop offset="1" stop-color="#5b3fc4"/>
    </linearGradient>
  </defs>
  <rect width="${SIZE}" height="${SIZE}" rx="${SIZE * 0.19}" fill="url(#bg)"/>
  <g transform="translate(${offset} ${offset}) scale(${scale})" color="#ffffff" fill="none" stroke="currentColor"
     stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">${inner}</g>
</svg>`;

const browser = await chromium.launch({
  executablePath: process.env.WA_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${icon}</body></html>`);
  const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: SIZE, height: SIZE } });
  writeFileSync(join(media, 'icon.png'), png);
  console.log(`make-icon: media/icon.png (${SIZE}x${SIZE}, ${png.length} bytes)`);
} finally {
  await browser.close();
}
