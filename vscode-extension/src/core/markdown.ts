/**
 * The model's text as HTML for the Conversation view: markdown-it with raw HTML off (a
 * `<script>` in the text comes out as text), links kept only for http, https and mailto
 * (`javascript:`, `data:`, `vscode:`, `command:`, `file:` … stay plain text), and code
 * blocks highlighted by highlight.js (the webview colours its classes from the theme).
 *
 * Rendered here, in the extension host, so the sanitizing is unit-tested and the webview
 * only places finished HTML (its CSP forbids inline script anyway, a second wall). Only
 * the highlight.js languages an agent's answers commonly hold are bundled (VSIX budget).
 */
// @types/markdown-it types the CommonJS build as `export =`; a default import loses its types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import MarkdownIt = require('markdown-it');
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  ini,
  java,
  javascript,
  json,
  makefile,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) {
  hljs.registerLanguage(name, language);
}

/** Link schemes a click may open (through the host, which checks again). */
const SAFE_LINK = /^(https?:|mailto:)/i;

export function isSafeLink(url: string): boolean {
  return SAFE_LINK.test(url.trim());
}

const md = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight: (code, lang): string => {
    const name = lang.trim().toLowerCase();
    if (name && hljs.getLanguage(name)) {
      try {
        return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
      } catch {
        // fall through to escaped text
      }
    }
    return ''; // markdown-it escapes the code itself
  },
});
// Images would load from anywhere (the CSP blocks them too): keep only the alt text.
md.disable('image');
md.validateLink = (url: string): boolean => isSafeLink(url);
const defaultLinkOpen = md.renderer.rules.link_open;
md.renderer.rules.link_open = (tokens, index, options, env, self): string => {
  const token = tokens[index];
  token?.attrSet('title', token.attrGet('href') ?? '');
  return defaultLinkOpen ? defaultLinkOpen(tokens, index, options, env, self) : self.renderToken(tokens, index, options);
};

/** Markdown → HTML without raw HTML, unsafe links or images. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
