import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Card, ConversationBuilder, type ConversationEvent, INTERRUPTED_WORDS, readRange } from '../../src/core/conversation';
import { ConversationStore, isFromWebview } from '../../src/core/conversationStore';
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

  it('never shows the reminder; notices, retries and errors are quiet rows; a retry drops the cut-off text', () => {
    const cards = build([
      { kind: 'text', text: 'Half an ans' },
      { kind: 'retry', attempt: 1, maxAttempts: 4, delaySeconds: 4, reason: 'rate limited', message: 'retrying in 4.0s (rate limited, 429)' },
      { kind: 'reminder', text: '<reminder>Update your todos.</reminder>' },
      { kind: 'text', text: 'A whole answer.' },
      { kind: 'notice', message: 'compacted the conversation' },
      { kind: 'error', message: 'the API key was refused' },
    ]);
    assert.deepEqual(cards.map((c) => [c.kind, c.kind === 'notice' ? c.tone : '']), [
      ['notice', 'warning'],
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
