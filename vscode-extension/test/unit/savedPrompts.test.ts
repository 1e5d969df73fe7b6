import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isContract } from '../../src/contract';
import { commandPicks, problemsMessage, slashPrompt } from '../../src/core/savedPrompts';
import type { CommandsResult } from '../../src/protocol';

// As the server lists them: built-ins first, then the saved prompts by name.
const listed: CommandsResult = {
  commands: [
    { name: 'plan', description: 'plan first', argumentHint: 'TASK', source: 'built-in' },
    { name: 'compact', description: 'shorten the conversation now', source: 'built-in' },
    { name: 'clear', description: 'start a new session', source: 'built-in' },
    { name: 'cost', description: "the session's tokens", source: 'built-in' },
    {
      name: 'review',
      description: 'Review a file',
      argumentHint: 'FILE [FOCUS]',
      source: 'workspace',
      path: '/w/.workspace-agent/commands/review.md',
    },
    { name: 'tidy', description: 'Tidy up', source: 'claude', path: '/w/.claude/commands/tidy.md' },
  ],
  problems: [],
};

describe('Run Saved Prompt… (the server’s slash commands as a QuickPick)', () => {
  it('lists the saved prompts first, with their argument hint and where they come from', () => {
    assert.deepEqual(commandPicks(listed), [
      {
        name: 'review',
        label: '/review',
        description: 'FILE [FOCUS]',
        detail: 'Review a file (.workspace-agent/commands)',
        argumentHint: 'FILE [FOCUS]',
      },
      { name: 'tidy', label: '/tidy', description: '', detail: 'Tidy up (.claude/commands)' },
      { name: 'compact', label: '/compact', description: '', detail: 'shorten the conversation now (built in)' },
      { name: 'cost', label: '/cost', description: '', detail: "the session's tokens (built in)" },
    ]);
  });

  it('gives the input\'s `/` list every built-in, /plan and /clear too', () => {
    assert.deepEqual(
      commandPicks(listed, true).map((pick) => pick.label),
      ['/review', '/tidy', '/plan', '/compact', '/clear', '/cost'],
    );
    const plan = commandPicks(listed, true).find((pick) => pick.name === 'plan');
    assert.deepEqual(plan, { name: 'plan', label: '/plan', description: 'TASK', detail: 'plan first (built in)', argumentHint: 'TASK' });
  });

  it('sends /NAME with the arguments the user gave, or alone', () => {
    assert.equal(slashPrompt('review', '  src/app.py errors '), '/review src/app.py errors');
    assert.equal(slashPrompt('review', ''), '/review');
    assert.equal(slashPrompt('cost'), '/cost');
  });

  it('accepts only a result of the promised shape', () => {
    assert.equal(isContract('CommandsResult', listed), true);
    assert.equal(isContract('CommandsResult', { commands: [{ name: 'x' }], problems: [] }), false);
    assert.equal(isContract('CommandsResult', { commands: [] }), false);
    assert.equal(isContract('CommandsResult', null), false);
  });

  it('names the files that cannot be used, a few at a time', () => {
    const problems = ['a.md:2: bad front matter', 'b.md: not UTF-8', 'c.md: empty', 'd.md: empty'];
    assert.equal(
      problemsMessage(problems),
      'Workspace Agent: some saved prompts cannot be used: a.md:2: bad front matter; b.md: not UTF-8; ' +
        'c.md: empty (and 1 more, in the log)',
    );
  });
});
