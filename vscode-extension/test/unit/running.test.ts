import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConversationBuilder, type Card } from '../../src/core/conversation';
import { isFromWebview } from '../../src/core/conversationStore';
import {
  OutputFollower,
  RunningList,
  type BackgroundFields,
  elapsed,
  portLabel,
  runningChoices,
  runningStatus,
  shownRows,
  stateWords,
} from '../../src/core/running';

const started = '2026-12-07T09:00:00Z';
const now = new Date('2026-12-07T09:02:05Z');

function command(id: string, extra: Partial<BackgroundFields> = {}): BackgroundFields {
  return {
    id,
    command: 'npm run dev',
    state: 'running',
    exitCode: null,
    toolUseId: `toolu_${id}`,
    todoId: '2',
    startedAt: started,
    ports: [],
    sandboxed: true,
    outputBytes: 0,
    ...extra,
  };
}

const vite = { port: 5173, hostPort: 5173, url: 'http://localhost:5173', forwarded: true };

describe('background commands: the Running section and the status bar', () => {
  it('keeps each session\'s commands from their events, and a list replaces a session\'s', () => {
    const list = new RunningList();
    list.accept('s1', command('b2'));
    list.accept('s1', command('b1', { ports: [vite] }));
    list.accept('s2', command('b1', { command: 'make watch' }));
    assert.deepEqual(list.of('s1').map((row) => row.id), ['b1', 'b2']);
    assert.deepEqual(list.running().map((row) => `${row.sessionId}/${row.id}`), ['s1/b1', 's2/b1', 's1/b2']);

    list.accept('s1', command('b1', { state: 'exited', exitCode: 0, endedAt: '2026-12-07T09:01:00Z' }));
    assert.equal(list.find('s1', 'b1')?.ports.length, 0);
    list.replace('s2', []);
    assert.deepEqual(list.running().map((row) => `${row.sessionId}/${row.id}`), ['s1/b2']);

    list.serverStopped(now);
    const [, b2] = list.of('s1');
    assert.equal(b2.state, 'stopped');
    assert.equal(b2.note, 'stopped when the server stopped');
  });

  it('says how long each has run and how it ended', () => {
    assert.equal(elapsed({ startedAt: started }, now), '2 min 5 s');
    assert.equal(elapsed({ startedAt: started }, new Date('2026-12-07T09:00:09Z')), '9 s');
    assert.equal(elapsed({ startedAt: started }, new Date('2026-12-07T11:07:00Z')), '2 h 7 min');
    const list = new RunningList();
    list.accept('s', command('b1'));
    list.accept('s', command('b2', { state: 'exited', exitCode: 3, endedAt: '2026-12-07T09:00:12Z' }));
    list.accept('s', command('b3', { state: 'stopped', exitCode: 143, endedAt: '2026-12-07T09:00:12Z', note: 'stopped by the user' }));
    assert.deepEqual(list.of('s').map((row) => stateWords(row, now)), ['running for 2 min 5 s', 'exited with status 3 after 12 s', 'stopped by the user']);
  });

  it('shows every running command and the last three that ended', () => {
    const list = new RunningList();
    for (let n = 1; n <= 6; n++) {
      list.accept('s', command(`b${n}`, n % 2 ? { state: 'exited', exitCode: 0, endedAt: started } : {}));
    }
    list.accept('s', command('b7', { state: 'exited', exitCode: 1, endedAt: started }));
    assert.deepEqual(shownRows(list.of('s')).map((row) => row.id), ['b2', 'b3', 'b4', 'b5', 'b6', 'b7']);
  });

  it('counts what runs in the status bar and offers its ports, outputs and stops', () => {
    assert.equal(runningStatus([]), undefined);
    const list = new RunningList();
    list.accept('s', command('b1', { ports: [vite] }));
    list.accept('s', command('b2', { command: 'pytest -f --looponfail tests/', ports: [] }));
    const status = runningStatus(list.running());
    assert.equal(status?.text, '$(server-process) 2');
    assert.equal(status?.tooltip, '2 background commands run:\nb1 npm run dev (localhost:5173)\nb2 pytest -f --looponfail tests/\nClick to open a port, show the output or stop one.');
    assert.deepEqual(runningChoices(list.running()).map((item) => item.label), [
      '$(globe) Open http://localhost:5173',
      '$(output) Show Output of b1',
      '$(debug-stop) Stop b1',
      '$(output) Show Output of b2',
      '$(debug-stop) Stop b2',
      '$(debug-stop) Stop All',
    ]);
    assert.deepEqual(portLabel({ ...vite, hostPort: 40001 }), {
      text: 'localhost:40001',
      title: 'Open http://localhost:5173 in the browser (the host\'s port 40001 leads to port 5173 in the sandbox)',
    });
  });

  it('follows an output from its offset, saying what was no longer kept', () => {
    const follower = new OutputFollower('npm run dev', 40);
    follower.accept({ text: 'ready in 312 ms\n', offset: 16, dropped: 0, state: 'running', exitCode: null });
    assert.equal(follower.content(), '$ npm run dev\nready in 312 ms\n');
    follower.accept({ text: 'GET /\n', offset: 2000, dropped: 1978, state: 'running', exitCode: null });
    assert.equal(follower.offset, 2000);
    assert.ok(follower.text.endsWith('(only the last 10 MB are) …]\nGET /\n'), follower.text);
    assert.ok(follower.text.length <= 40);
  });

  it('links the card of the call that started it, and takes only its own messages from the page', () => {
    const builder = new ConversationBuilder(() => undefined);
    builder.accept({ kind: 'toolCall', toolUseId: 't1', name: 'bash', summary: 'npm run dev', todoId: null });
    builder.accept({ kind: 'toolResult', toolUseId: 't1', name: 'bash', ok: true, output: 'id: b1\nready', todoId: null, exitCode: null, outputChars: 12, changes: [], sandboxed: true, background: 'b1' });
    const card = builder.cards[0] as Extract<Card, { kind: 'command' }>;
    assert.equal(card.background, 'b1');

    assert.ok(isFromWebview({ type: 'background', action: 'open', id: 'b1', url: 'http://localhost:5173' }));
    assert.ok(isFromWebview({ type: 'background', action: 'stopAll' }));
    assert.ok(isFromWebview({ type: 'background', action: 'stop', id: 'b1' }));
    assert.ok(!isFromWebview({ type: 'background', action: 'open', id: 'b1', url: 'https://evil.example/' }));
    assert.ok(!isFromWebview({ type: 'background', action: 'open', id: 'b1', url: 'file:///etc/passwd' }));
    assert.ok(!isFromWebview({ type: 'background', action: 'kill', id: 'b1' }));
    assert.ok(!isFromWebview({ type: 'background', action: 'output' }));
  });
});
