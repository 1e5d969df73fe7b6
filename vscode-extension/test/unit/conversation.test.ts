import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Card, ConversationBuilder, type ConversationEvent, FOLDER_WAIT_WORDS, INTERRUPTED_WORDS, readRange } from '../../src/core/conversation';
import { ConversationStore, isFromWebview } from '../../src/core/conversationStore';
import { errorParts } from '../../src/core/errorFixes';
import { isSafeLink, renderMarkdown } from '../../src/core/markdown';
import type { HistoryEntry } from '../../src/protocol';

const steps = (todoId: string): string | undefined => ({ '1': 'Add a helper', '2': 'Format the code' })[todoId];

function build(events: ConversationEvent[]): Card[] {
  const builder = new ConversationBuilder(steps);
  for (const event of events) {
    builder.accept(event);
  }
  return [...builder.cards];
}

const usage = { inputTokens: 1000, outputTokens: 234 };

describe('markdown in model text', () => {
  it('renders headings, lists and highlighted code blocks', () => {
    const html = renderMarkdown('# Plan\n\n- one\n- two\n\n```python\ndef f():\n    return 1\n```\n');
    assert.match(html, /<h1>Plan<\/h1>/);
    assert.match(html, /<li>one<\/li>/);
    assert.match(html, /<pre><code class="language-python"><span class="hljs-keyword">def<\/span>/);
  });

  it('renders a <script> in the text as text, never as an element', () => {
    const html = renderMarkdown('Look: <script>alert(1)</script> and <img src=x onerror=alert(2)>');
    assert.ok(!/<script/i.test(html), html);
    assert.ok(!/<img/i.test(html), html);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it('keeps javascript:, data:, command: and vscode: links inert (plain text, no href)', () => {
    for (const url of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,<b>x</b>', 'command:workbench.action.quit', 'vscode://file/etc/passwd', 'file:///etc/passwd']) {
      const html = renderMarkdown(`[click](${url})`);
      assert.ok(!/href=/i.test(html), `${url}: ${html}`);
      assert.ok(!isSafeLink(url), url);
    }
    const html = renderMarkdown('<a href="javascript:alert(1)">x</a>');
    assert.ok(!/<a /.test(html), html);
  });

  it('keeps http(s) and mailto links, with the address as their title', () => {
    assert.match(renderMarkdown('[docs](https://example.com/a)'), /<a href="https:\/\/example.com\/a" title="https:\/\/example.com\/a">docs<\/a>/);
    assert.match(renderMarkdown('see https://example.com'), /<a href="https:\/\/example.com"/);
    assert.ok(isSafeLink('mailto:a@b.c'));
  });

  it('drops images (the alt text stays)', () => {
    const html = renderMarkdown('![a cat](https://example.com/cat.png)');
    assert.ok(!/<img/.test(html), html);
  });
});

describe('cards from events', () => {
  it("a prompt's card names its mentions and images with the editor's context", () => {
    const cards = build([
      {
        kind: 'runStart',
        prompt: 'Compare @src/a.py with the shots',
        attached: 'src/app.py',
        mentions: ['@src/a.py', '@diff'],
        images: [
          { mediaType: 'image/png', width: 800, height: 600, bytes: 41_000 },
          { mediaType: 'image/jpeg', width: 4, height: 3, bytes: 99 },
        ],
      },
    ]);
    assert.deepEqual(cards[0], {
      kind: 'prompt',
      id: 'p1',
      text: 'Compare @src/a.py with the shots',
      attached: 'src/app.py · @src/a.py, @diff · 2 images PNG 800x600, JPEG 4x3',
    });
  });

  it('a prompt with its attached context, streamed text joined into one rendered card', () => {
    const cards = build([
      { kind: 'runStart', prompt: 'Explain app.py', attached: 'selection app.py:4-6' },
      { kind: 'text', text: '# Hea' },
      { kind: 'text', text: 'ding\n\nSome `code`.' },
      { kind: 'runEnd', stopReason: 'end_turn', usage, cost: { usd: 0.0123, model: 'm' } },
    ]);
    assert.deepEqual(cards.map((c) => c.kind), ['prompt', 'text', 'end']);
    assert.deepEqual(cards[0], { kind: 'prompt', id: 'p1', text: 'Explain app.py', attached: 'selection app.py:4-6' });
    const text = cards[1];
    assert.equal(text?.kind, 'text');
    assert.ok(text?.kind === 'text' && text.html.includes('<h1>Heading</h1>') && text.html.includes('<code>code</code>'));
    assert.ok(text?.kind === 'text' && !text.streaming, 'the next event closes the text');
    assert.ok(cards[2]?.kind === 'end' && cards[2].text === 'Done · 1,234 tokens · ≈ $0.0123 (estimate)');
  });

  it('a plan\'s approval: the user\'s card says what they did, not the model\'s instruction', () => {
    const cards = build([
      { kind: 'runStart', prompt: 'The user approved this plan, as shown below. …\n- [#1] Read', said: 'Ran the plan (4 items, 2 edited)' },
      { kind: 'runEnd', stopReason: 'end_turn', usage, cost: null },
    ]);
    assert.deepEqual(cards.map((c) => c.kind), ['prompt', 'end']);
    assert.deepEqual(cards[0], { kind: 'prompt', id: 'p1', text: 'Ran the plan (4 items, 2 edited)' });
  });

  it('checkpoint preparation reports make no card and do not split an answer streaming meanwhile', () => {
    const preparing = { kind: 'preparing', stored: 4000, total: 12000, ready: false, message: 'Preparing checkpoints: 4,000 of 12,000 files' } as const;
    const cards = build([
      { kind: 'runStart', prompt: 'Look around' },
      { kind: 'text', text: 'Let me ' },
      preparing,
      { kind: 'text', text: 'look.' },
    ]);
    assert.deepEqual(cards.map((c) => c.kind), ['prompt', 'text']);
    assert.ok(cards[1]?.kind === 'text' && cards[1].html.includes('Let me look.'));
  });

  it('a call that waits for another task on its folder says so on its card until it goes on', () => {
    const wait = { kind: 'preparing', stored: 0, total: 0, waiting: 'bash', toolUseId: 'tu1', message: 'bash waits for another task on this folder' } as const;
    const waiting = build([
      { kind: 'runStart', prompt: 'Build' },
      { kind: 'toolCall', toolUseId: 'tu1', name: 'bash', summary: 'make', todoId: null },
      { ...wait, ready: false },
    ]);
    assert.ok(waiting[1]?.kind === 'command' && waiting[1].waitingFor === FOLDER_WAIT_WORDS);
    const done = build([
      { kind: 'runStart', prompt: 'Build' },
      { kind: 'toolCall', toolUseId: 'tu1', name: 'bash', summary: 'make', todoId: null },
      { ...wait, ready: false },
      { ...wait, ready: true, message: 'bash goes on: the folder is free' },
      { kind: 'toolResult', toolUseId: 'tu1', name: 'bash', ok: true, output: 'built', todoId: null, exitCode: 0 },
    ]);
    assert.ok(done[1]?.kind === 'command' && done[1].waitingFor === undefined && done[1].exitCode === 0);
  });

  it('a command with its exit status, its output without the status line, and its step', () => {
    const cards = build([
      { kind: 'toolCall', toolUseId: 'tu1', name: 'bash', summary: 'grep -n TODO app.py', todoId: '2' },
      { kind: 'toolResult', toolUseId: 'tu1', name: 'bash', ok: false, output: 'nothing\n[exit status 1]', todoId: '2' },
      { kind: 'toolCall', toolUseId: 'tu2', name: 'bash', summary: 'make', todoId: null },
      { kind: 'toolResult', toolUseId: 'tu2', name: 'bash', ok: true, output: 'head\n… 5000 more characters …\ntail', todoId: null, exitCode: 0, outputChars: 7000 },
    ]);
    assert.deepEqual(cards[0], {
      kind: 'command',
      id: 'tu1',
      toolUseId: 'tu1',
      command: 'grep -n TODO app.py',
      status: 'failed',
      exitCode: 1,
      output: 'nothing',
      truncated: false,
      step: { todoId: '2', label: 'Plan item #2 · Format the code' },
    });
    assert.ok(cards[1]?.kind === 'command' && cards[1].exitCode === 0 && cards[1].truncated && !('step' in cards[1]));
  });

  it('a sandboxed command with the hosts it reached for; a network question keeps its host', () => {
    const builder = new ConversationBuilder(steps);
    builder.accept({ kind: 'toolCall', toolUseId: 'n', name: 'bash', summary: 'pip install requests', todoId: null });
    builder.ask({
      sessionId: 's',
      toolUseId: 'n',
      todoId: null,
      kind: 'network',
      message: 'Allow network access to `pypi.org` (from `pip install requests`)? It stays in the sandbox.',
      command: 'pip install requests',
      host: 'pypi.org',
      options: ['allow', 'allowSession', 'allowAlways', 'deny'],
    });
    const question = builder.card('approval:n');
    assert.ok(question?.kind === 'approval' && question.ask?.host === 'pypi.org' && question.ask.options.includes('allowAlways'));
    builder.accept({
      kind: 'toolResult',
      toolUseId: 'n',
      name: 'bash',
      ok: true,
      output: 'Successfully installed\n[network: pypi.org allowed]\n[exit status 0]',
      todoId: null,
      exitCode: 0,
      sandboxed: true,
      network: [{ host: 'pypi.org', allowed: true }, { host: 'evil.example', allowed: false }],
    });
    const card = builder.card('n');
    assert.ok(card?.kind === 'command');
    assert.deepEqual(card.network, [{ host: 'pypi.org', allowed: true }, { host: 'evil.example', allowed: false }]);
    builder.accept({ kind: 'toolCall', toolUseId: 'm', name: 'bash', summary: 'ls', todoId: null });
    builder.accept({ kind: 'toolResult', toolUseId: 'm', name: 'bash', ok: true, output: 'a\n[exit status 0]', todoId: null, exitCode: 0 });
    const plain = builder.card('m');
    assert.ok(plain?.kind === 'command' && !('network' in plain), 'no network line without hosts');
  });

  it('thinking as one folded card, timed live, and whole from the history with its seconds', () => {
    let clock = 1_000;
    const builder = new ConversationBuilder(steps, () => clock);
    builder.accept({ kind: 'runStart', prompt: 'Think first' });
    builder.accept({ kind: 'thinking', text: 'The user wants ' });
    clock += 2_000;
    builder.accept({ kind: 'thinking', text: 'a plan.' });
    const live = builder.cards[1];
    assert.ok(live?.kind === 'thought' && live.streaming && live.text === 'The user wants a plan.');
    clock += 4_000;
    builder.accept({ kind: 'text', text: 'Here is the plan.' });
    assert.deepEqual(builder.card(live.id), { kind: 'thought', id: live.id, text: 'The user wants a plan.', streaming: false, seconds: 6 });
    assert.deepEqual(builder.cards.map((c) => c.kind), ['prompt', 'thought', 'text']);

    const replayed = build([
      { kind: 'runStart', prompt: 'Think first', seq: 0, run: 1 },
      { kind: 'thinking', text: 'The user wants a plan.', seconds: 6.2, seq: 1, run: 1 },
      { kind: 'text', text: 'Here is the plan.', seq: 2, run: 1 },
    ]);
    assert.ok(replayed[1]?.kind === 'thought' && !replayed[1].streaming && replayed[1].seconds === 6.2);
  });

  it('a read as one line with its range, an edit with the files it changed', () => {
    const cards = build([
      { kind: 'toolCall', toolUseId: 'r', name: 'read_file', summary: 'src/app.py offset=10 limit=31', todoId: '1' },
      { kind: 'toolResult', toolUseId: 'r', name: 'read_file', ok: true, output: 'x'.repeat(100), todoId: '1' },
      { kind: 'toolCall', toolUseId: 'e', name: 'edit_file', summary: 'NOTES.md', todoId: '1' },
      {
        kind: 'toolResult',
        toolUseId: 'e',
        name: 'edit_file',
        ok: true,
        output: 'edited',
        todoId: '1',
        changes: [{ path: 'NOTES.md', change: 'modified', additions: 2, deletions: 1 }],
      },
    ]);
    assert.ok(cards[0]?.kind === 'read' && cards[0].path === 'src/app.py' && cards[0].range === 'lines 10–40' && cards[0].status === 'ok');
    assert.ok(!JSON.stringify(cards[0]).includes('xxxx'), 'a read does not carry the file');
    assert.ok(cards[1]?.kind === 'edit' && cards[1].verb === 'edit' && cards[1].files[0]?.additions === 2);
  });

  it('never shows the reminder; notices and errors are quiet rows, retries a row of their own; a retry drops the cut-off text', () => {
    const cards = build([
      { kind: 'text', text: 'Half an ans' },
      { kind: 'retry', attempt: 1, maxAttempts: 4, delaySeconds: 4, reason: 'rate limited', message: 'retrying in 4.0s (rate limited, 429)' },
      { kind: 'reminder', text: '<reminder>Update your todos.</reminder>' },
      { kind: 'text', text: 'A whole answer.' },
      { kind: 'notice', message: 'compacted the conversation' },
      { kind: 'error', message: 'the API key was refused' },
    ]);
    assert.deepEqual(cards.map((c) => [c.kind, c.kind === 'notice' ? c.tone : '']), [
      ['retry', ''],
      ['text', ''],
      ['notice', 'info'],
      ['notice', 'error'],
    ]);
    assert.ok(!JSON.stringify(cards).includes('reminder'));
    assert.ok(!JSON.stringify(cards).includes('Half an ans'));
  });

  it('history text entries are whole messages: two in a row are two cards', () => {
    const entries: HistoryEntry[] = [
      { kind: 'text', text: 'First.', seq: 0, run: 1 },
      { kind: 'text', text: 'Second.', seq: 1, run: 1 },
    ];
    const cards = build(entries);
    assert.equal(cards.length, 2);
    assert.ok(cards.every((c) => c.kind === 'text' && !c.streaming));
  });

  it('an approval asked here, then answered: the card stays, without its buttons', () => {
    const builder = new ConversationBuilder(steps);
    builder.accept({ kind: 'toolCall', toolUseId: 'tu', name: 'bash', summary: 'rm -rf build', todoId: '2' });
    builder.ask({
      sessionId: 's',
      toolUseId: 'tu',
      todoId: '2',
      kind: 'bash',
      message: 'Workspace Agent wants to run `rm -rf build`.',
      command: 'rm -rf build',
      destructive: 'deletes files recursively (rm -r)',
      options: ['allow', 'allowSession', 'deny'],
    });
    builder.accept({ kind: 'approval', toolUseId: 'tu', todoId: '2', status: 'waiting', message: 'Workspace Agent wants to run `rm -rf build`.' });
    let card = builder.card('approval:tu');
    assert.ok(card?.kind === 'approval' && card.ask?.destructive === 'deletes files recursively (rm -r)', 'the waiting event keeps the question');
    builder.answered('tu', 'denied', 'not the build folder');
    card = builder.card('approval:tu');
    assert.ok(card?.kind === 'approval' && card.status === 'denied' && card.reason === 'not the build folder' && !card.ask);
    assert.deepEqual(builder.cards.map((c) => c.id), ['approval:tu', 'tu']);
  });

  it('a review question keeps being one once answered (the card says Accepted / Rejected)', () => {
    const builder = new ConversationBuilder(steps);
    const message = 'Workspace Agent wants to edit app.py: replace 1 line with 2.';
    builder.ask({ sessionId: 's', toolUseId: 'tw', todoId: null, kind: 'write', message, review: true, diff: { path: 'app.py', before: 'a', after: 'b\nc', line: 3 }, options: ['allow', 'deny'] });
    builder.answered('tw', 'allowed');
    let card = builder.card('approval:tw');
    assert.ok(card?.kind === 'approval' && card.review === true && card.status === 'allowed' && !card.ask);
    builder.accept({ kind: 'approval', toolUseId: 'tw', todoId: null, status: 'allowed', message });
    card = builder.card('approval:tw');
    assert.ok(card?.kind === 'approval' && card.review === true, 'the answer event keeps it a review');
  });

  it('readRange words', () => {
    assert.deepEqual(readRange('a.py'), { path: 'a.py' });
    assert.deepEqual(readRange('a.py offset=5'), { path: 'a.py', range: 'from line 5' });
    assert.deepEqual(readRange('a.py limit=20'), { path: 'a.py', range: 'lines 1–20' });
  });

  it('finds the first card of a step in the newest run that has one', () => {
    const builder = new ConversationBuilder(steps);
    for (const event of [
      { kind: 'runStart', prompt: 'one' },
      { kind: 'toolCall', toolUseId: 'a', name: 'bash', summary: 'ls', todoId: '1' },
      { kind: 'runStart', prompt: 'two' },
      { kind: 'toolCall', toolUseId: 'b', name: 'bash', summary: 'ls', todoId: '1' },
      { kind: 'toolCall', toolUseId: 'c', name: 'bash', summary: 'pwd', todoId: '1' },
    ] satisfies ConversationEvent[]) {
      builder.accept(event);
    }
    assert.equal(builder.firstCardOfStep('1'), 'b');
    assert.equal(builder.firstCardOfStep('9'), undefined);
  });
});

describe('the conversation store', () => {
  const page = (entries: HistoryEntry[], before: string | null) => ({ sessionId: 's', entries, before, total: 10 });

  it('loads the newest page, then older pages in front (a call and its result across two pages)', () => {
    const store = new ConversationStore(steps);
    const reset = store.reset('s', page(
      [
        { kind: 'toolResult', toolUseId: 't', name: 'bash', ok: true, output: 'ok', todoId: null, exitCode: 0, seq: 2, run: 1 },
        { kind: 'text', text: 'Done.', seq: 3, run: 1 },
      ],
      'c2',
    ));
    assert.ok(reset.type === 'reset' && reset.earlier && reset.cards.length === 2);
    const older = store.prepend(page(
      [
        { kind: 'runStart', prompt: 'go', seq: 0, run: 1 },
        { kind: 'toolCall', toolUseId: 't', name: 'bash', summary: 'make', todoId: null, seq: 1, run: 1 },
      ],
      null,
    ));
    assert.ok(older?.type === 'reset' && !older.earlier);
    assert.deepEqual(store.cards.map((c) => c.kind), ['prompt', 'command', 'text']);
    const command = store.cards[1];
    assert.ok(command?.kind === 'command' && command.command === 'make' && command.exitCode === 0 && command.status === 'ok');
    assert.equal(store.prepend({ ...page([], null), sessionId: 'other' }), undefined);
  });

  it('shows the prompt of the run a page begins inside, once, until the page with its start is loaded (issue 50 item 10)', () => {
    const store = new ConversationStore(steps);
    const runStart: HistoryEntry = { kind: 'runStart', prompt: 'tidy the imports', seq: 0, run: 1 };
    store.reset('s', { ...page([
      { kind: 'toolResult', toolUseId: 't', name: 'bash', ok: true, output: 'ok', todoId: null, exitCode: 0, seq: 2, run: 1 },
      { kind: 'text', text: 'Done.', seq: 3, run: 1 },
    ], 'c2'), runStart });
    assert.deepEqual(store.cards.map((c) => c.kind), ['prompt', 'command', 'text']);
    const prompt = store.cards[0];
    assert.ok(prompt?.kind === 'prompt' && prompt.text === 'tidy the imports');
    store.prepend(page([runStart, { kind: 'toolCall', toolUseId: 't', name: 'bash', summary: 'make', todoId: null, seq: 1, run: 1 }], null));
    assert.deepEqual(store.cards.map((c) => c.kind), ['prompt', 'command', 'text'], 'the prompt once, in its place');
    assert.equal(store.cards.filter((c) => c.kind === 'prompt').length, 1);
    store.reset('s', page([{ kind: 'text', text: 'Done.', seq: 3, run: 1 }], 'c3'));
    assert.deepEqual(store.cards.map((c) => c.kind), ['text'], 'no runStart from the server: none shown');
  });

  const cutShort: HistoryEntry[] = [
    { kind: 'runStart', prompt: 'clean up', seq: 0, run: 1 },
    { kind: 'toolCall', toolUseId: 'r', name: 'read_file', summary: 'app.py', todoId: null, seq: 1, run: 1 },
    { kind: 'approval', toolUseId: 'b', todoId: null, status: 'waiting', message: 'run `ls build`?', seq: 2, run: 1 },
    { kind: 'toolCall', toolUseId: 'b', name: 'bash', summary: 'ls build', todoId: null, seq: 3, run: 1 },
  ];

  it('shows a run its server left unfinished as cut short, once no run of the session goes on here', () => {
    const store = new ConversationStore(steps);
    const reset = store.reset('s', page(cutShort, null), true);
    assert.ok(reset.type === 'reset');
    assert.deepEqual(store.cards.map((c) => c.kind), ['prompt', 'read', 'approval', 'command', 'notice']);
    const [, read, approval, command, notice] = store.cards;
    assert.ok(read?.kind === 'read' && read.status === 'failed' && read.error === 'the run ended before this finished');
    assert.ok(approval?.kind === 'approval' && approval.unanswered === true && approval.status === 'waiting');
    assert.ok(command?.kind === 'command' && command.status === 'failed' && command.exitCode === null, 'shown as stopped');
    assert.ok(notice?.kind === 'notice' && notice.tone === 'warning' && notice.text === INTERRUPTED_WORDS);
    // Older pages rebuild it the same way.
    store.prepend(page([], null));
    assert.equal(store.cards.filter((c) => c.kind === 'notice').length, 1);
  });

  it('leaves a run that goes on in this window as it is, and a finished run without a note', () => {
    const live = new ConversationStore(steps);
    live.reset('s', page(cutShort, null), false);
    const approval = live.cards.find((c) => c.kind === 'approval');
    assert.ok(approval?.kind === 'approval' && approval.unanswered === undefined);
    assert.ok(!live.cards.some((c) => c.kind === 'notice'));
    const finished = new ConversationStore(steps);
    finished.reset('s', page([
      { kind: 'runStart', prompt: 'go', seq: 0, run: 1 },
      { kind: 'runEnd', stopReason: 'end_turn', usage, seq: 1, run: 1 },
    ], null), true);
    assert.deepEqual(finished.cards.map((c) => c.kind), ['prompt', 'end']);
  });

  it('closes a run left open when the next one starts: the note goes before the new prompt', () => {
    const cards = build([
      ...cutShort,
      { kind: 'runStart', prompt: 'try again' },
      { kind: 'toolCall', toolUseId: 'c', name: 'bash', summary: 'ls', todoId: null },
    ]);
    assert.deepEqual(cards.map((c) => c.kind), ['prompt', 'read', 'approval', 'command', 'notice', 'prompt', 'command']);
    const live = cards[6];
    assert.ok(live?.kind === 'command' && live.status === 'running', 'the new run is live');
  });

  it('keeps a question that waits across a rebuild', () => {
    const store = new ConversationStore(steps);
    store.reset('s', page([], 'c'));
    store.ask({ sessionId: 's', toolUseId: 'q', todoId: null, kind: 'bash', message: 'run it?', options: ['allow', 'deny'] });
    store.prepend(page([{ kind: 'runStart', prompt: 'go', seq: 0, run: 1 }], null));
    const card = store.cards.find((c) => c.kind === 'approval');
    assert.ok(card?.kind === 'approval' && card.ask?.options.length === 2);
  });

  it('checks what the webview sends', () => {
    assert.ok(isFromWebview({ type: 'send', text: 'hi' }));
    assert.ok(isFromWebview({ type: 'answer', toolUseId: 'q', decision: 'deny', reason: 'no' }));
    assert.ok(isFromWebview({ type: 'answer', toolUseId: 'q', decision: 'allowToolSession' })); // an MCP tool alone
    assert.ok(!isFromWebview({ type: 'answer', toolUseId: 'q', decision: 'yes' }));
    assert.ok(!isFromWebview({ type: 'send' }));
    const png = { data: 'iVBORw0KGgo=', mediaType: 'image/png' };
    assert.ok(isFromWebview({ type: 'send', text: 'what is this?', images: [png] }));
    assert.ok(!isFromWebview({ type: 'send', text: 'x', images: [{ data: 'AAAA', mediaType: 'text/html' }] }));
    assert.ok(!isFromWebview({ type: 'send', text: 'x', images: [{ mediaType: 'image/png' }] }));
    assert.ok(!isFromWebview({ type: 'send', text: 'x', images: png }));
    assert.ok(!isFromWebview({ type: 'send', text: 'x', images: Array.from({ length: 21 }, () => png) }));
    assert.ok(isFromWebview({ type: 'runQueued', id: 2 }));
    assert.ok(!isFromWebview({ type: 'runQueued', id: '2' }));
    assert.ok(!isFromWebview({ type: 'runShell', command: 'rm' }));
    assert.ok(!isFromWebview(null));
  });
});

describe('where a question goes', () => {
  it('just before the card of the call it asks about, and a plan update reads as one', () => {
    const builder = new ConversationBuilder(steps);
    builder.accept({ kind: 'toolCall', toolUseId: 'a', name: 'todo', summary: '{}', todoId: null });
    builder.accept({ kind: 'toolCall', toolUseId: 'b', name: 'bash', summary: 'make', todoId: null });
    const update = builder.accept({ kind: 'approval', toolUseId: 'b', todoId: null, status: 'waiting', message: 'run `make`?' });
    assert.deepEqual(builder.cards.map((c) => c.id), ['a', 'approval:b', 'b']);
    assert.equal(update.upserts[0]?.before, 'b', 'the view is told where to draw it');
    const plan = builder.card('a');
    assert.ok(plan?.kind === 'tool' && plan.name === 'Plan' && plan.summary === 'updated');
  });
});

describe('errors, retries and limits on their cards', () => {
  const retry = (attempt: number, delaySeconds = 3.6) =>
    ({ kind: 'retry', attempt, maxAttempts: 5, delaySeconds, reason: 'overloaded, 529', message: `retrying in ${delaySeconds}s (overloaded, 529)` }) as const;
  const none = { inputTokens: 0, outputTokens: 0 };

  it('folds the retries of a model call into one live row, then says how it went', () => {
    const builder = new ConversationBuilder(steps);
    builder.accept({ kind: 'runStart', prompt: 'Go' });
    builder.accept(retry(1, 1));
    builder.accept(retry(2, 2));
    const update = builder.accept(retry(3));
    const rows = builder.cards.filter((c) => c.kind === 'retry');
    assert.equal(rows.length, 1, 'one row for the four retries');
    assert.deepEqual(update.upserts.map((c) => c.kind === 'retry' && c.text), ['Overloaded (529): retrying 3/4 in 3.6 s']);
    assert.ok(rows[0]?.kind === 'retry' && rows[0].live);
    builder.accept({ kind: 'text', text: 'Here it is.' });
    const settled = builder.cards.find((c) => c.kind === 'retry');
    assert.ok(settled?.kind === 'retry' && !settled.live && settled.text === 'Overloaded (529): answered after 3 retries', JSON.stringify(settled));
    // The next call's retries get a row of their own.
    builder.accept({ kind: 'toolCall', toolUseId: 'tu', name: 'bash', summary: 'ls', todoId: null });
    builder.accept(retry(1, 1));
    assert.equal(builder.cards.filter((c) => c.kind === 'retry').length, 2);
  });

  it('a call that gave up: the retry row goes, the error card says it with Retry; no "0 tokens" row', () => {
    const builder = new ConversationBuilder(steps);
    builder.accept({ kind: 'runStart', prompt: 'Go' });
    builder.accept(retry(1));
    const error = builder.accept({ kind: 'error', message: 'The model API is overloaded (529) (gave up after 5 attempts)' });
    assert.equal(error.removed.length, 1);
    builder.accept({ kind: 'runEnd', stopReason: 'error', usage: none, cost: { usd: 0, model: 'm' } });
    const cards = builder.cards;
    assert.deepEqual(cards.map((c) => c.kind), ['prompt', 'notice'], JSON.stringify(cards));
    const card = cards[1];
    assert.ok(card?.kind === 'notice' && card.tone === 'error');
    assert.deepEqual(card.fixes?.map((f) => f.label), ['Retry']);
    assert.equal(card.prompt, 'Go');
  });

  it('a missing key: Set API Key and Retry on the error card', () => {
    const cards = build([
      { kind: 'runStart', prompt: 'Go' },
      { kind: 'error', message: 'ANTHROPIC_API_KEY is not set: set it …' },
      { kind: 'runEnd', stopReason: 'error', usage: none },
    ]);
    const card = cards.at(-1);
    assert.ok(card?.kind === 'notice');
    assert.deepEqual(card.fixes?.map((f) => f.label), ['Set API Key', 'Retry']);
  });

  it('a run that failed after using tokens keeps its end row, the fixes on the error card', () => {
    const cards = build([
      { kind: 'runStart', prompt: 'Go' },
      { kind: 'error', message: 'Connection error.' },
      { kind: 'runEnd', stopReason: 'error', usage },
    ]);
    assert.deepEqual(cards.map((c) => c.kind), ['prompt', 'notice', 'end']);
    assert.ok(cards[2]?.kind === 'end' && cards[2].text === 'Stopped by an error · 1,234 tokens' && !cards[2].fixes);
  });

  it('the turn limit: Continue on the end row; the next run takes the buttons off', () => {
    const builder = new ConversationBuilder(steps);
    builder.accept({ kind: 'runStart', prompt: 'Go' });
    builder.accept({ kind: 'runEnd', stopReason: 'max_turns', usage });
    const end = builder.cards.at(-1);
    assert.ok(end?.kind === 'end');
    assert.deepEqual(end.fixes?.map((f) => f.label), ['Continue', 'Open Settings']);
    const next = builder.accept({ kind: 'runStart', prompt: 'Continue where you stopped.' });
    const old = builder.card(end.id);
    assert.ok(old?.kind === 'end' && old.fixes === undefined);
    assert.ok(next.upserts.some((c) => c.id === end.id));
  });

  it('a run cancelled while a call was being retried: the row says so; nothing says "0 tokens"', () => {
    const cards = build([
      { kind: 'runStart', prompt: 'Go' },
      retry(2),
      { kind: 'runEnd', stopReason: 'cancelled', usage: none, cost: { usd: 0, model: 'm' } },
    ]);
    assert.ok(cards[1]?.kind === 'retry' && cards[1].text === 'Overloaded (529): stopped while retrying (2/4)');
    assert.ok(cards[2]?.kind === 'end' && cards[2].text === 'Cancelled', JSON.stringify(cards[2]));
  });

  it('a request that failed without an answer: a card with its fixes, found by its id', () => {
    const store = new ConversationStore(steps);
    store.reset('s');
    const message = store.failure('The run failed: the server stopped', [{ label: 'Retry', action: 'retry' }, { label: 'Restart Server', action: 'restartServer' }], 'Go');
    assert.ok(message.type === 'update');
    const id = message.upserts[0]?.id ?? '';
    assert.deepEqual(store.fixOf(id, 'restartServer'), { fix: { label: 'Restart Server', action: 'restartServer' }, prompt: 'Go' });
    assert.equal(store.fixOf(id, 'setApiKey'), undefined);
    assert.ok(isFromWebview({ type: 'fix', cardId: id, action: 'retry' }));
    assert.ok(!isFromWebview({ type: 'fix', cardId: id, action: 'rm -rf' }));
  });
});

describe('an error card rebuilt from the history (a window reload, a server restart)', () => {
  // Each error as the server words it, and the entries it records for a run that failed:
  // what the reloaded view draws must be the live card, its buttons and its run's prompt.
  const errors = [
    'ANTHROPIC_API_KEY is not set: set it in the environment, or with the editor\'s \'Set API Key\' command, then run again.',
    'The model API (http://127.0.0.1:1) refused the API key (401): set a valid key with Set API Key, then Retry.',
    'The model API (http://127.0.0.1:1) is overloaded (529); this is not your setup. Retry, or try again in a minute. The API said "Overloaded". (gave up after 4 attempts)',
    'The model API (http://127.0.0.1:1) has no model claude-nope (404): choose another in workspaceAgent.model.',
    'Vertex AI needs a region: set workspaceAgent.vertex.region.',
    'The request is too large for the model API (413).',
  ];
  type Tokens = { inputTokens: number; outputTokens: number };
  const events = (error: string, usage: Tokens): ConversationEvent[] => [
    { kind: 'runStart', prompt: 'Earlier task' },
    { kind: 'text', text: 'Done before.' },
    { kind: 'runEnd', stopReason: 'end_turn', usage },
    { kind: 'runStart', prompt: 'Summarize the notes' },
    { kind: 'error', message: error },
    { kind: 'runEnd', stopReason: 'error', usage, cost: { usd: 0, model: 'm' } },
  ];
  const entries = (error: string, usage: Tokens): HistoryEntry[] =>
    events(error, usage).map((event, seq) => ({ ...event, seq, run: seq < 3 ? 1 : 2 }));

  for (const error of errors.filter((text) => !text.includes('(413)'))) {
    for (const usage of [{ inputTokens: 0, outputTokens: 0 }, { inputTokens: 900, outputTokens: 12 }]) {
      it(`the same card and buttons: ${error.slice(0, 48)}… (${usage.inputTokens ? 'after tokens' : 'no tokens'})`, () => {
        const live = new ConversationStore(steps);
        live.reset('s');
        for (const event of events(error, usage)) {
          live.accept(event);
        }
        const reloaded = new ConversationStore(steps);
        const reset = reloaded.reset('s', { sessionId: 's', entries: entries(error, usage), before: null, total: 6 }, true);
        assert.ok(reset.type === 'reset');
        assert.deepEqual(reset.cards, live.shownCards(), 'the reloaded view draws the live cards');
        const card = reset.cards.find((c) => c.kind === 'notice' && c.tone === 'error');
        assert.ok(card?.kind === 'notice' && card.fixes?.length, JSON.stringify(reset.cards));
        assert.equal(card.prompt, 'Summarize the notes', 'Retry runs the failed task, not the one before');
        for (const fix of card.fixes) {
          assert.deepEqual(reloaded.fixOf(card.id, fix.action), { fix, prompt: 'Summarize the notes' }, 'a click finds its fix');
        }
      });
    }
  }

  it('the buttons each error gets (the live card\'s, see errorFixes.ts)', () => {
    const labels = errors.map((error) => {
      const store = new ConversationStore(steps);
      const reset = store.reset('s', { sessionId: 's', entries: entries(error, { inputTokens: 0, outputTokens: 0 }), before: null, total: 6 }, true);
      assert.ok(reset.type === 'reset');
      const card = reset.cards.at(-1);
      return card?.kind === 'notice' ? card.fixes?.map((f) => (f.action === 'openSettings' ? `Open Settings ${f.setting}` : f.label)) : undefined;
    });
    assert.deepEqual(labels, [
      ['Set API Key', 'Retry'],
      ['Set API Key', 'Retry'],
      ['Retry'],
      ['Open Settings workspaceAgent.model', 'Retry'],
      ['Open Settings workspaceAgent.vertex.region', 'Retry'],
      undefined, // 413: the same request fails the same way; the transcript is the card itself
    ]);
  });
});

describe('a Retry kept through Set API Key', () => {
  const failed: ConversationEvent[] = [
    { kind: 'runStart', prompt: 'Say hello' },
    { kind: 'error', message: 'ANTHROPIC_API_KEY is not set' },
    { kind: 'runEnd', stopReason: 'error', usage: { inputTokens: 0, outputTokens: 0 } },
  ];

  it('the server restarted and forgot the unsaved session: the empty view still offers Retry, until a run starts', () => {
    const store = new ConversationStore(steps);
    store.reset('s1');
    for (const event of failed) store.accept(event);
    const card = store.cards.at(-1);
    assert.ok(card?.kind === 'notice');
    store.carryRetry(card.id);
    const empty = store.reset(undefined);
    assert.ok(empty.type === 'reset');
    const kept = empty.cards.at(-1);
    assert.ok(kept?.kind === 'notice' && kept.tone === 'info' && kept.prompt === 'Say hello', JSON.stringify(empty.cards));
    assert.deepEqual(kept.fixes?.map((f) => f.label), ['Retry']);
    store.reset('s2');
    assert.equal(store.cards.length, 0, 'another session: not there');
  });

  it('the session was saved: its history has the error card with its buttons, nothing is added', () => {
    const store = new ConversationStore(steps);
    store.reset('s1');
    for (const event of failed) store.accept(event);
    store.carryRetry(store.cards.at(-1)?.id ?? '');
    const page = { sessionId: 's1', entries: failed.map((e, seq) => ({ ...e, seq, run: 1 })) as HistoryEntry[], before: null, total: 3 };
    const back = store.reset('s1', page, true);
    assert.ok(back.type === 'reset');
    assert.equal(back.cards.filter((c) => c.kind === 'notice').length, 1);
    store.accept({ kind: 'runStart', prompt: 'Say hello' });
    const after = store.reset(undefined);
    assert.ok(after.type === 'reset' && after.cards.length === 0, 'a run started: the Retry is gone');
  });
});

describe('an error card\'s words', () => {
  it('what went wrong first, the details and what to do after', () => {
    assert.deepEqual(errorParts('ANTHROPIC_API_KEY is not set: set it in the environment, then run again.'), {
      headline: 'ANTHROPIC_API_KEY is not set',
      rest: 'set it in the environment, then run again.',
    });
    assert.deepEqual(errorParts('Connection error.'), { headline: 'Connection error.', rest: '' });
    const late = `${'x'.repeat(90)}: y`;
    assert.deepEqual(errorParts(late), { headline: late, rest: '' });
    // No early colon: the first sentence is the headline (an API status in plain words).
    assert.deepEqual(errorParts('The model API (http://127.0.0.1:9) is overloaded (529); this is not your setup. Retry, or try again in a minute.'), {
      headline: 'The model API (http://127.0.0.1:9) is overloaded (529); this is not your setup',
      rest: 'Retry, or try again in a minute.',
    });
  });
});

describe('web cards', () => {
  it('a web search shows its results as links, a fetch its page, a failure its reason', () => {
    const search = 'Web search for `pygls` (1 search, 2 results):\n1. pygls 2.0 released (March 3, 2025)\n   https://pygls.example/2.0\n2. javascript page\n   javascript:alert(1)\n\nSummary:\nIt is out.';
    const cards = build([
      { kind: 'runStart', prompt: 'look it up' },
      { kind: 'toolCall', toolUseId: 's', name: 'web_search', summary: 'pygls', todoId: null },
      { kind: 'toolResult', toolUseId: 's', name: 'web_search', ok: true, output: search, todoId: null },
      { kind: 'toolCall', toolUseId: 'f', name: 'web_fetch', summary: 'http://127.0.0.1:8000/moved', todoId: null },
      { kind: 'toolResult', toolUseId: 'f', name: 'web_fetch', ok: true, output: 'http://localhost:8000/docs (HTTP 200, text/html, 288 bytes)\nRedirected from http://127.0.0.1:8000/moved.\n\n# Install', todoId: null },
      { kind: 'toolCall', toolUseId: 'x', name: 'web_fetch', summary: 'http://169.254.169.254/', todoId: null },
      { kind: 'toolResult', toolUseId: 'x', name: 'web_fetch', ok: false, output: 'network access to 169.254.169.254 was refused: an instance-metadata address', todoId: null },
    ]);
    const web = cards.filter((c) => c.kind === 'web');
    assert.deepEqual(
      web.map((c) => (c.kind === 'web' ? [c.verb, c.summary, c.status, c.links, c.error ?? ''] : [])),
      [
        ['search', 'pygls', 'ok', [{ title: 'pygls 2.0 released (March 3, 2025)', url: 'https://pygls.example/2.0' }], ''],
        ['fetch', 'http://127.0.0.1:8000/moved', 'ok', [{ title: 'http://localhost:8000/docs', url: 'http://localhost:8000/docs' }], ''],
        ['fetch', 'http://169.254.169.254/', 'failed', [], 'network access to 169.254.169.254 was refused: an instance-metadata address'],
      ],
    );
  });
});
