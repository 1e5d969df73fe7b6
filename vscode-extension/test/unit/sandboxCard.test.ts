import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConversationBuilder } from '../../src/core/conversation';
import { isFromWebview } from '../../src/core/conversationStore';
import { blockLines, hostVerdict, offerableFolder, sandboxMark, withHost } from '../../src/core/sandboxCard';

describe('the sandbox on a command card', () => {
  it('marks where a command ran, and nothing for one that never ran', () => {
    assert.equal(sandboxMark(true), 'sandboxed');
    assert.equal(sandboxMark(false), 'outside the sandbox');
    assert.equal(sandboxMark(undefined), undefined);
  });

  it('says what became of each host, and why one was refused without a question', () => {
    assert.equal(hostVerdict({ host: 'pypi.org', allowed: true }), 'allowed');
    assert.equal(hostVerdict({ host: 'evil.example', allowed: false }), 'blocked');
    assert.equal(
      hostVerdict({ host: '169.254.169.254', allowed: false, refused: 'metadata' }),
      'refused (metadata address)',
    );
    assert.equal(
      hostVerdict({ host: 'example.com', allowed: false, refused: 'unattended' }),
      'refused (--yes opens no host)',
    );
  });

  it('says each wall in the user\'s words, with the fix where a setting is one', () => {
    const lines = blockLines([
      { kind: 'write', target: '~/.cache/pip', setting: 'sandbox.realCaches' },
      { kind: 'network', target: 'example.com', setting: 'sandbox.allowedDomains' },
      { kind: 'write', target: '~/elsewhere.txt' },
      { kind: 'network' },
      { kind: 'socket' },
    ]);
    assert.deepEqual(lines.map((line) => line.text), [
      'Blocked by the sandbox: writing ~/.cache/pip',
      'Blocked by the sandbox: network to example.com',
      'Blocked by the sandbox: writing ~/elsewhere.txt',
      'Blocked by the sandbox: network access',
      'Blocked by the sandbox: connecting to a Unix socket outside the sandbox',
    ]);
    assert.deepEqual(lines.map((line) => line.fix?.label), ['Allow this folder…', 'Allow host…', undefined, undefined, undefined]);
    assert.equal(lines[1]?.fix?.value, 'example.com');
    assert.match(lines[1]?.fix?.confirm ?? '', /adds it to your sandbox\.allowedDomains/);
    assert.match(lines[0]?.fix?.confirm ?? '', /sandbox\.realCaches/);
    assert.deepEqual(blockLines(undefined), []);
  });

  it('offers "Allow this folder…" for a blocked write elsewhere, naming the folder', () => {
    const [line] = blockLines([{ kind: 'write', target: '~/builds/out/app.js', setting: 'sandbox.writablePaths', folder: '~/builds/out' }]);
    assert.equal(line?.text, 'Blocked by the sandbox: writing ~/builds/out/app.js');
    assert.equal(line?.fix?.label, 'Allow this folder…');
    assert.equal(line?.fix?.setting, 'sandbox.writablePaths');
    assert.equal(line?.fix?.value, '~/builds/out');
    assert.match(line?.fix?.confirm ?? '', /^Let sandboxed commands write ~\/builds\/out and everything in it/);
    assert.match(line?.fix?.confirm ?? '', /adds it to your sandbox\.writablePaths setting \(user settings/);
    // without a folder the server would accept, no button
    assert.equal(blockLines([{ kind: 'write', target: '/x/y', setting: 'sandbox.writablePaths' }])[0]?.fix, undefined);
  });

  it('never offers a folder that would open the sandbox, whatever the server says', () => {
    for (const folder of ['~/', '/', 'builds', '~/../x', '/home', '/home/ann', '/Users/ann', '/root', '~/.ssh', '~/.ssh/keys', '~/.config', '~/.config/gh', '~/.config/workspace-agent/x', '~/.aws']) {
      assert.equal(offerableFolder(folder), false, folder);
      assert.equal(blockLines([{ kind: 'write', target: `${folder}/f`, setting: 'sandbox.writablePaths', folder }])[0]?.fix, undefined, folder);
    }
    for (const folder of ['~/builds', '/srv/shared-out', '/home/ann/src/sibling', '~/.config/some-tool', '~/.sshfs-mounts']) {
      assert.equal(offerableFolder(folder), true, folder);
    }
  });

  it('adds a host to the list once', () => {
    assert.deepEqual(withHost(['pypi.org'], 'example.com'), ['pypi.org', 'example.com']);
    assert.deepEqual(withHost(['example.com'], 'example.com'), ['example.com']);
  });

  it('the card keeps sandboxed and blocked from the result', () => {
    const builder = new ConversationBuilder();
    builder.accept({ kind: 'toolCall', toolUseId: 'c', name: 'bash', summary: 'pip install x', todoId: null });
    builder.accept({
      kind: 'toolResult', toolUseId: 'c', name: 'bash', ok: true, output: 'Read-only file system\n[exit status 1]', todoId: null, exitCode: 1,
      sandboxed: true, blocked: [{ kind: 'write', target: '~/.cache/pip', setting: 'sandbox.realCaches' }],
    });
    const card = builder.card('c');
    assert.ok(card?.kind === 'command' && card.sandboxed === true && card.blocked?.[0]?.target === '~/.cache/pip');
  });

  it('the webview may ask for a fix only with what it needs', () => {
    assert.ok(isFromWebview({ type: 'allowSandbox', toolUseId: 'c', setting: 'sandbox.allowedDomains', value: 'example.com' }));
    assert.ok(isFromWebview({ type: 'allowSandbox', toolUseId: 'c', setting: 'sandbox.realCaches' }));
    assert.ok(isFromWebview({ type: 'allowSandbox', toolUseId: 'c', setting: 'sandbox.writablePaths', value: '~/builds' }));
    assert.ok(!isFromWebview({ type: 'allowSandbox', toolUseId: 'c', setting: 'sandbox.writablePaths' }));
    assert.ok(!isFromWebview({ type: 'allowSandbox', toolUseId: 'c', setting: 'sandbox.allowedDomains' }));
    assert.ok(!isFromWebview({ type: 'allowSandbox', toolUseId: 'c', setting: 'sandbox.mode', value: 'off' }));
  });
});

describe('a call that waits for an answer', () => {
  const ask = (builder: ConversationBuilder): void => {
    builder.accept({ kind: 'toolCall', toolUseId: 'tu', name: 'bash', summary: 'git clean -fdx', todoId: null });
    builder.accept({ kind: 'approval', toolUseId: 'tu', todoId: null, status: 'waiting', message: 'run `git clean -fdx`?' });
  };

  it('waits for you until answered, then runs', () => {
    const builder = new ConversationBuilder();
    ask(builder);
    let card = builder.card('tu');
    assert.ok(card?.kind === 'command' && card.status === 'running' && card.waiting === true);
    builder.accept({ kind: 'approval', toolUseId: 'tu', todoId: null, status: 'allowed', message: '' });
    card = builder.card('tu');
    assert.ok(card?.kind === 'command' && card.status === 'running' && card.waiting === undefined);
    builder.accept({ kind: 'toolResult', toolUseId: 'tu', name: 'bash', ok: true, output: 'x\n[exit status 0]', todoId: null, exitCode: 0, sandboxed: false });
    card = builder.card('tu');
    assert.ok(card?.kind === 'command' && card.exitCode === 0 && card.denied === undefined && card.sandboxed === false);
  });

  it('denied: not run, with the reason and no output', () => {
    const builder = new ConversationBuilder();
    ask(builder);
    builder.accept({ kind: 'approval', toolUseId: 'tu', todoId: null, status: 'denied', message: '', reason: 'keep my build' });
    builder.accept({
      kind: 'toolResult', toolUseId: 'tu', name: 'bash', ok: false, output: 'the user declined to let the agent run `git clean -fdx`', todoId: null, exitCode: null,
    });
    const card = builder.card('tu');
    assert.ok(card?.kind === 'command');
    assert.equal(card.denied, 'keep my build');
    assert.equal(card.output, undefined);
    assert.equal(card.exitCode, undefined);
    assert.equal(card.waiting, undefined);
  });

  it('a denied host of a command that ran is no "not run"', () => {
    const builder = new ConversationBuilder();
    ask(builder);
    builder.accept({ kind: 'approval', toolUseId: 'tu', todoId: null, status: 'denied', message: 'reach evil.example?' });
    builder.accept({
      kind: 'toolResult', toolUseId: 'tu', name: 'bash', ok: true, output: 'curl: (56)\n[exit status 56]', todoId: null, exitCode: 56, sandboxed: true,
      network: [{ host: 'evil.example', allowed: false }],
    });
    const card = builder.card('tu');
    assert.ok(card?.kind === 'command' && card.denied === undefined && card.exitCode === 56 && card.output === 'curl: (56)');
  });

  it('an MCP tool denied without a reason; another one\'s result is kept', () => {
    const builder = new ConversationBuilder();
    builder.accept({ kind: 'toolCall', toolUseId: 'm', name: 'mcp__time__now', summary: 'time: now', todoId: null });
    builder.accept({ kind: 'approval', toolUseId: 'm', todoId: null, status: 'waiting', message: 'use time?' });
    assert.ok(builder.card('m')?.kind === 'tool' && (builder.card('m') as { waiting?: true }).waiting === true);
    builder.answered('m', 'denied');
    builder.accept({ kind: 'toolResult', toolUseId: 'm', name: 'mcp__time__now', ok: false, output: 'the user declined', todoId: null, exitCode: null });
    const denied = builder.card('m');
    assert.ok(denied?.kind === 'tool' && denied.denied === '' && denied.output === undefined);

    builder.accept({ kind: 'toolCall', toolUseId: 'n', name: 'mcp__time__now', summary: 'time: now', todoId: null });
    builder.accept({ kind: 'toolResult', toolUseId: 'n', name: 'mcp__time__now', ok: true, output: '2026-12-03T12:00:00Z\n', todoId: null, exitCode: null, outputChars: 21 });
    const shown = builder.card('n');
    assert.ok(shown?.kind === 'tool' && shown.output === '2026-12-03T12:00:00Z' && shown.truncated === undefined);
  });

  it('a long MCP result is marked cut; the plan tool\'s result stays hidden', () => {
    const builder = new ConversationBuilder();
    builder.accept({ kind: 'toolCall', toolUseId: 'm', name: 'mcp__docs__fetch', summary: 'docs: fetch', todoId: null });
    builder.accept({ kind: 'toolResult', toolUseId: 'm', name: 'mcp__docs__fetch', ok: true, output: 'head … tail', todoId: null, exitCode: null, outputChars: 9000 });
    assert.ok(builder.card('m')?.kind === 'tool' && (builder.card('m') as { truncated?: boolean }).truncated === true);
    builder.accept({ kind: 'toolCall', toolUseId: 'p', name: 'todo', summary: '', todoId: null });
    builder.accept({ kind: 'toolResult', toolUseId: 'p', name: 'todo', ok: true, output: '[ ] one', todoId: null, exitCode: null });
    const plan = builder.card('p');
    assert.ok(plan?.kind === 'tool' && plan.output === undefined);
  });
});
