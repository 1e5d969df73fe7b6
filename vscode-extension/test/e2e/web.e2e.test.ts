/**
 * End to end, as a user: the agent reads a page and searches the web. The Conversation view
 * shows the fetch as a card naming the page, and the search as a card whose results are
 * links (opened by the host, never by the page). Screenshot, light.
 *
 * code-server with the packaged VSIX in headless Chromium, against the project's scripted
 * Messages API server (its web search server tool's blocks; no real model, no real search)
 * and a loopback HTTP server for the page (nothing leaves this machine). `web` is `allow`:
 * no question. Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { conversationView, notification, path, runCommand, scriptedRequests, showConversationView } from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-web`);
const SEARCH_SYSTEM = 'You search the web for another agent.';
const DOCS = 'https://pygls.example/releases/2.0';

function script(pageUrl: string): unknown {
  const tool = (name: string, input: unknown) => ({ type: 'tool_use', name, input });
  return {
    conversations: [
      {
        match_system: SEARCH_SYSTEM,
        replies: [
          {
            content: [
              { type: 'server_tool_use', name: 'web_search', input: { query: 'pygls 2 release' } },
              { type: 'web_search_tool_result', content: [{ type: 'web_search_result', title: 'pygls 2.0 released', url: DOCS, page_age: 'March 3, 2025' }] },
              { type: 'text', text: 'It came out in March 2025.', citations: [{ type: 'web_search_result_location', url: DOCS, title: 'pygls 2.0 released', cited_text: 'released on 3 March 2025' }] },
            ],
          },
        ],
      },
      {
        match: 'Read up on pygls',
        replies: [
          { content: [tool('web_fetch', { url: pageUrl })] },
          { content: [tool('web_search', { query: 'pygls 2 release' })] },
          { content: [{ type: 'text', text: 'pygls 2.0 came out in March 2025.' }] },
        ],
      },
    ],
    on_exhausted: 'text',
  };
}

describe('Web searches and fetches in the conversation (code-server + Chromium)', () => {
  const workbench = new Workbench('wa-e2e-web-', ARTIFACTS);
  let page: Page;
  let modelUrl: string;
  let site: Server;
  let pageUrl: string;

  before(async () => {
    site = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html><head><title>pygls</title></head><body><h1>pygls 2.0</h1><p>Released.</p></body></html>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/docs`;
    modelUrl = await workbench.startScriptedModel(script(pageUrl));
    page = await workbench.open({
      userSettings: { 'workspaceAgent.baseUrl': modelUrl, 'workspaceAgent.web': 'allow' },
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key' },
    });
  });

  after(async () => {
    await workbench.close();
    site.close();
  });
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('shows the fetch and the search as cards, the results as links', async () => {
    await showConversationView(page); // the view starts the extension
    await runCommand(page, 'Workspace Agent: Run Task…');
    const input = page.locator('.quick-input-widget');
    await input.locator('.quick-input-title', { hasText: 'Workspace Agent: Run Task' }).waitFor();
    await input.locator('input').first().fill('Read up on pygls 2');
    await page.keyboard.press('Enter');
    await notification(page, /^Workspace Agent: done/).waitFor({ timeout: 120_000 });

    const conversation = conversationView(page);
    const fetched = conversation.locator('.row.tool.web', { hasText: 'Fetched' });
    await fetched.waitFor();
    assert.match((await fetched.innerText()).replace(/\s+/g, ' '), new RegExp(`^Fetched ${pageUrl.replace(/[.]/g, '\\.')}`));
    const searched = conversation.locator('.row.tool.web', { hasText: 'Searched the web' });
    await searched.waitFor();
    const link = conversation.locator('ul.web-links a', { hasText: 'pygls 2.0 released (March 3, 2025)' });
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), DOCS);
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-cards-light.png') });

    const requests = await scriptedRequests(modelUrl);
    const searches = requests.filter((r) => JSON.stringify(r.body.system ?? '').includes(SEARCH_SYSTEM));
    assert.equal(searches.length, 1, 'the search was a request of its own');
  });
});
