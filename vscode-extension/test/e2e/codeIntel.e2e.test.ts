/**
 * End to end, as a user: the agent asks the editor about code (issue 47). The model (the
 * project's scripted Messages API server, no real model) calls `code_intel references` on a
 * 5,000-line TypeScript file and then `rename_symbol`; the real server sends
 * workspaceAgent/codeIntel and the extension answers with VS Code's own providers
 * (`vscode.executeReferenceProvider`, `vscode.executeDocumentRenameProvider`), here
 * code-server's built-in TypeScript support: no language server is configured. The model
 * gets the references grouped by file with their lines; the rename changes the open
 * document in the editor (unsaved, so the user sees and can undo it) and the other file
 * on disk, and the Conversation view shows the call.
 *
 * With WA_E2E_MEASURE=1 it also measures `code_intel references` from the model's tool
 * call (the last byte of its answer) to the tool's result (the next request read by the
 * scripted model): 20 calls after a warm-up, p50 and p90, against the same 20 round trips
 * of what the model does without it, `grep -rn` through `bash` (docs/benchmarks.md).
 *
 * Needs what plan.e2e.test.ts needs (scripts/ci.sh sets it up).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { conversationView, editorTab, openFile, path, scriptedRequests, showConversationView, waitFor } from './harness';
import { Workbench } from './workbench';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.resolve(`${process.env.WA_E2E_ARTIFACTS ?? path.join(EXTENSION_DIR, '.e2e-artifacts')}-codeintel`);
const TASK = 'Find who uses target and rename it';
const MEASURED = process.env.WA_E2E_MEASURE ? 20 : 0;
const LINES = 5000;

/** 5,000 lines: `target` defined on line 1 and called on every 100th line. */
function bigFile(): string {
  const lines = ['export function target(n: number): number { return n + 1; }'];
  for (let i = 2; i <= LINES; i++) {
    lines.push(i % 100 === 0 ? `export const r${i} = target(${i});` : `export const v${i} = ${i} * 2;`);
  }
  return lines.join('\n') + '\n';
}
const USE = "import { target } from './big';\n\nexport const used = target(1);\n";
const references = { operation: 'references', path: 'src/big.ts', line: 1, column: 17 };
const GREP = "grep -rn 'target' src";
const toolUse = (name: string, input: unknown) => ({ content: [{ type: 'tool_use', name, input }] });

interface Stamp {
  message: string;
  name: string;
  t: number;
}
interface Recorded {
  received_ns: number;
  body: { messages: { role: string; content: unknown }[] };
}

function lastToolResult(request: Recorded): string {
  const last = request.body.messages.at(-1);
  const blocks = (last?.content ?? []) as { type: string; content?: unknown }[];
  const result = blocks.find((block) => block.type === 'tool_result');
  const content = result?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

describe("The editor answers the agent's code questions (code-server + Chromium, TypeScript)", () => {
  const workbench = new Workbench('wa-e2e-codeintel-', ARTIFACTS);
  const { workspace } = workbench;
  let page: Page;
  let view: FrameLocator;
  let modelUrl = '';

  before(async () => {
    mkdirSync(path.join(workspace, 'src'), { recursive: true });
    writeFileSync(path.join(workspace, 'src', 'big.ts'), bigFile());
    writeFileSync(path.join(workspace, 'src', 'use.ts'), USE);
    writeFileSync(path.join(workspace, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }));
    modelUrl = await workbench.startScriptedModel({
      record_timestamps: true,
      conversations: [
        {
          match: TASK,
          replies: [
            toolUse('code_intel', references),
            ...Array.from({ length: MEASURED }, () => toolUse('code_intel', references)),
            ...Array.from({ length: MEASURED }, () => toolUse('bash', { command: GREP })),
            toolUse('rename_symbol', { path: 'src/big.ts', line: 1, column: 17, new_name: 'increment' }),
            { content: [{ type: 'text', text: 'Renamed target to increment everywhere.' }] },
          ],
        },
      ],
      on_exhausted: 'text',
    });
    page = await workbench.open({
      userSettings: { 'workspaceAgent.baseUrl': modelUrl },
      codeServerEnv: { ANTHROPIC_API_KEY: 'sk-e2e-scripted-key' },
    });
    view = conversationView(page);
  });

  after(() => workbench.close());
  afterEach((t) => workbench.screenshotIfFailed(t));

  it('finds the references through VS Code and renames through the write path', async () => {
    await openFile(page, 'use.ts');
    await showConversationView(page);
    const input = view.locator('#input');
    await input.click();
    await input.pressSequentially(TASK);
    await input.press('Enter');
    await view.locator('.card.answer', { hasText: 'Renamed target to increment' }).waitFor({ timeout: 180_000 });

    const requests = (await scriptedRequests(modelUrl)) as unknown as Recorded[];
    const tools = (requests[0]?.body as { tools?: { name: string }[] }).tools?.map((tool) => tool.name) ?? [];
    assert.ok(tools.includes('code_intel') && tools.includes('rename_symbol'), tools.join(', '));
    const found = lastToolResult(requests[1]);
    writeFileSync(path.join(ARTIFACTS, 'references.txt'), found);
    const lines = found.split('\n');
    assert.equal(lines[0], '53 references in 2 files:');
    assert.equal(lines[1], 'src/big.ts:1:17: export function target(n: number): number { return n + 1; }');
    assert.equal(lines[2], 'src/big.ts:100:21: export const r100 = target(100);');
    assert.ok(found.endsWith('src/use.ts:1:10: import { target } from \'./big\';\nsrc/use.ts:3:21: export const used = target(1);'), found);
    const renamed = lastToolResult(requests.at(-1) as Recorded);
    assert.equal(renamed, 'Renamed to increment: 53 lines in 2 files\n  src/big.ts: 51 lines\n  src/use.ts: 2 lines');
    const onDisk = readFileSync(path.join(workspace, 'src', 'big.ts'), 'utf8');
    assert.ok(onDisk.startsWith('export function increment(n: number)') && !onDisk.includes('target('));
    // use.ts is open: changed in the editor, not saved (the user can look and undo).
    await editorTab(page, 'use.ts', true).waitFor();
    assert.equal(readFileSync(path.join(workspace, 'src', 'use.ts'), 'utf8'), USE);
    await waitFor('the editor to show the new name', async () =>
      ((await page.locator('.editor-instance .view-lines').first().textContent()) ?? '').includes('increment(1)'),
    );
    await view.locator('.row.tool', { hasText: 'src/big.ts:1:17 → increment' }).first().waitFor({ state: 'attached' });
    await page.screenshot({ path: path.join(ARTIFACTS, 'renamed.png') });

    if (MEASURED) {
      const stamps = (await (await fetch(`${modelUrl}/_scripted/timestamps`)).json()) as Stamp[];
      const ends = stamps.filter((stamp) => stamp.name === 'message_stop').map((stamp) => stamp.t).sort((a, b) => a - b);
      // Answer k (0 is the warm-up) is a tool call; request k+1 carries its result.
      const latencies = (first: number): number[] =>
        Array.from({ length: MEASURED }, (_, k) => ((requests[first + k + 1]?.received_ns ?? 0) - (ends[first + k] ?? 0)) / 1e6).sort((a, b) => a - b);
      const p = (ms: number[], q: number): number => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? NaN;
      const ours = latencies(1);
      const grep = latencies(1 + MEASURED);
      const measured = {
        calls: MEASURED,
        fileLines: LINES,
        references: 53,
        p50Ms: p(ours, 0.5),
        p90Ms: p(ours, 0.9),
        grepThroughBashP50Ms: p(grep, 0.5),
        grepThroughBashP90Ms: p(grep, 0.9),
        ratioP50: p(ours, 0.5) / p(grep, 0.5),
      };
      writeFileSync(path.join(ARTIFACTS, 'references-latency.json'), JSON.stringify(measured, null, 2));
      console.log(`code_intel references through VS Code: ${JSON.stringify(measured)}`);
    }
  });
});
