import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { isContract } from '../../src/contract';
import {
  runTaskSessionWords,
  ProblemTracker,
  chooseSession,
  formatAge,
  problemsMessage,
  resumedNote,
  sessionPicks,
  unsavedSession,
} from '../../src/core/sessions';
import type { SessionSummary } from '../../src/protocol';
import { REPO_DIR } from './paths';

const summary = (sessionId: string, extra: Partial<SessionSummary> = {}): SessionSummary => ({
  sessionId,
  title: `task of ${sessionId}`,
  updatedAt: '2025-11-29T20:00:00Z',
  messages: 4,
  todos: { completed: 2, total: 5 },
  running: false,
  ...extra,
});

// Newest first, as the server lists them.
const saved = [summary('newest'), summary('older'), summary('oldest')];

describe('chooseSession (which saved session is current once the server started)', () => {
  it('resumes the newest saved session in a window that has none yet', () => {
    assert.equal(chooseSession(saved, { sessionId: undefined, cleared: false }), 'newest');
  });

  it('keeps the current session across a restart when it is saved, even if it is not the newest', () => {
    assert.equal(chooseSession(saved, { sessionId: 'older', cleared: false }), 'older');
  });

  it('starts clean when the current session was never saved', () => {
    assert.equal(chooseSession(saved, { sessionId: 'unsaved', cleared: false }), undefined);
  });

  it('keeps the clean start of New Session', () => {
    assert.equal(chooseSession(saved, { sessionId: undefined, cleared: true }), undefined);
  });

  it('has nothing to resume when nothing is saved', () => {
    assert.equal(chooseSession([], { sessionId: undefined, cleared: false }), undefined);
    assert.equal(chooseSession([], { sessionId: 's1', cleared: false }), undefined);
  });
});

describe('unsavedSession (a window session with nothing saved, still shown with its error card)', () => {
  it('the current session, after a server restart, when it was never saved', () => {
    assert.equal(unsavedSession(saved, { sessionId: 'failed', cleared: false }, undefined), 'failed');
    assert.equal(unsavedSession(saved, { sessionId: 'older', cleared: false }, 'failed'), undefined, 'a saved one is resumed');
  });

  it('the session the window had before a reload, when it was never saved', () => {
    assert.equal(unsavedSession(saved, { sessionId: undefined, cleared: false }, 'failed'), 'failed');
    assert.equal(unsavedSession(saved, { sessionId: undefined, cleared: false }, 'older'), undefined, 'saved: chooseSession resumes as before');
    assert.equal(unsavedSession(saved, { sessionId: undefined, cleared: false }, undefined), undefined);
  });

  it('none after New Session', () => {
    assert.equal(unsavedSession(saved, { sessionId: undefined, cleared: true }, 'failed'), undefined);
  });
});

describe('the contract check of SessionsResult', () => {
  it('accepts the documented shape', () => {
    assert.ok(isContract('SessionsResult', { sessions: saved, problems: ['session file x.jsonl is corrupt at line 2'] }));
    assert.ok(isContract('SessionsResult', { sessions: [], problems: [] }));
  });

  it('refuses anything else', () => {
    for (const bad of [
      null,
      [],
      { sessions: [] },
      { sessions: [{ ...summary('a'), todos: 3 }], problems: [] },
      { sessions: [{ ...summary('a'), running: 'no' }], problems: [] },
      { sessions: [], problems: [1] },
    ]) {
      assert.ok(!isContract('SessionsResult', bad), JSON.stringify(bad));
    }
  });

  it('checks the fields docs/protocol.md lists for workspaceAgent/sessions', () => {
    const doc = readFileSync(path.join(REPO_DIR, 'docs', 'protocol.md'), 'utf8');
    const start = doc.indexOf('### `workspaceAgent/sessions`');
    assert.ok(start >= 0, 'the section is gone from docs/protocol.md');
    const section = doc.slice(start, doc.indexOf('\n## ', start));
    const keys = [...Object.keys({ sessions: 0, problems: 0 }), ...Object.keys(summary('a')), 'completed', 'total'];
    for (const key of keys) {
      assert.match(section, new RegExp(`\\b${key}\\??:`), `${key} is not in the documented result`);
    }
  });
});

describe('formatAge', () => {
  const now = new Date('2025-11-29T20:00:00Z');
  it('says how long ago, in words, then the date', () => {
    assert.equal(formatAge('2025-11-29T19:59:30Z', now), 'just now');
    assert.equal(formatAge('2025-11-29T20:00:05Z', now), 'just now', 'a clock slightly ahead');
    assert.equal(formatAge('2025-11-29T19:55:00Z', now), '5 min ago');
    assert.equal(formatAge('2025-11-29T17:00:00Z', now), '3 h ago');
    assert.equal(formatAge('2025-11-28T19:00:00Z', now), 'yesterday');
    assert.equal(formatAge('2025-11-25T20:00:00Z', now), '4 days ago');
    assert.equal(formatAge('2025-10-01T08:00:00Z', now), '2025-10-01');
    assert.equal(formatAge('not a date', now), 'not a date');
  });
});

describe('sessionPicks (the Resume Session… quick pick)', () => {
  const now = new Date('2025-11-29T20:05:00Z');
  it('shows the title, the plan fraction, when it was updated, running and current', () => {
    const picks = sessionPicks(
      [
        summary('a', { title: 'Fix the failing parser test\nwith details', running: true }),
        summary('b', { todos: { completed: 0, total: 0 }, messages: 1, updatedAt: '2025-11-29T17:00:00Z' }),
      ],
      'b',
      now,
    );
    assert.deepEqual(picks, [
      {
        sessionId: 'a',
        label: 'Fix the failing parser test',
        description: '2/5 · updated 5 min ago · running',
        detail: '4 messages',
      },
      { sessionId: 'b', label: 'task of b', description: 'no plan · updated 3 h ago · current', detail: '1 message' },
    ]);
  });

  it('shortens long titles and names untitled sessions', () => {
    const [long, untitled] = sessionPicks([summary('a', { title: 'x'.repeat(200) }), summary('b', { title: '  ' })], undefined, now);
    assert.equal(long?.label.length, 80);
    assert.ok(long?.label.endsWith('…'));
    assert.equal(untitled?.label, '(untitled)');
  });
});

describe('problems of unreadable session files', () => {
  it('are new only once per window', () => {
    const tracker = new ProblemTracker();
    assert.deepEqual(tracker.fresh(['a.jsonl is corrupt']), ['a.jsonl is corrupt']);
    assert.deepEqual(tracker.fresh(['a.jsonl is corrupt']), []);
    assert.deepEqual(tracker.fresh(['a.jsonl is corrupt', 'b.jsonl has no header', 'b.jsonl has no header']), ['b.jsonl has no header']);
  });

  it('make one warning', () => {
    assert.equal(
      problemsMessage(['session file x.jsonl is corrupt at line 2: not JSON']),
      'Workspace Agent: a saved session could not be read: session file x.jsonl is corrupt at line 2: not JSON.',
    );
    assert.equal(problemsMessage(['a', 'b']), 'Workspace Agent: 2 saved sessions could not be read; the log lists them.');
  });
});

describe('resumedNote', () => {
  it('names the session and its plan for the transcript', () => {
    assert.equal(
      resumedNote(summary('a', { title: 'Add a greeting' })),
      '— Resumed session: Add a greeting (plan 2/5); the next task continues it —',
    );
  });
});

describe('runTaskSessionWords: Run Task says where the task goes, truly', () => {
  const base = { running: false, sessionId: undefined, cleared: false, restored: false };
  it('right after a reload (nothing restored yet) it may continue the last session', () => {
    assert.equal(runTaskSessionWords(base), 'What should the agent do? (continues the last session, or starts one if there is none)');
  });
  it('a new session only when none was restored or the user asked for one', () => {
    assert.match(runTaskSessionWords({ ...base, restored: true }), /starts a new session/);
    assert.match(runTaskSessionWords({ ...base, cleared: true }), /starts a new session/);
    assert.match(runTaskSessionWords({ ...base, sessionId: 's1' }), /continues the current session/);
    assert.match(runTaskSessionWords({ ...base, sessionId: 's1', running: true }), /queued/);
  });
});
