import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  APPROVAL_KINDS,
  APPROVAL_MODES,
  apiKeyAvailable,
  approvalModes,
  type ApprovalMode,
  type Getter,
  SERVER_DEFAULTS,
  SETTING_KEYS,
  clientSetting,
  configurationAnswer,
  effectiveApprovals,
  pythonSetting,
  serverEnvironment,
  serverSettings,
  settingsChange,
  wrappedSettings,
} from '../../src/core/settings';
import { SERVER_SETTING_DEFAULTS } from '../../src/protocol';
import { EXTENSION_DIR, REPO_DIR } from './paths';

/** Values set in the user's settings only (what `get()` then returns too). */
const user =
  (values: Record<string, unknown>): Getter =>
  (key) => ({ value: values[key], globalValue: values[key] });

/**
 * Values per level, and `get()` as VS Code merges them (folder > workspace > user),
 * as if VS Code did not filter anything: the rules here must hold on their own.
 */
const levels =
  (byLevel: { user?: Record<string, unknown>; workspace?: Record<string, unknown>; folder?: Record<string, unknown> }): Getter =>
  (key) => {
    const [globalValue, workspaceValue, workspaceFolderValue] = [byLevel.user, byLevel.workspace, byLevel.folder].map(
      (values) => values?.[key],
    );
    return { value: workspaceFolderValue ?? workspaceValue ?? globalValue, globalValue, workspaceValue, workspaceFolderValue };
  };

function collect(): { report: (problem: string) => void; problems: string[] } {
  const problems: string[] = [];
  return { report: (problem) => problems.push(problem), problems };
}

describe('settings → what the server receives', () => {
  it('sends only the keys the user set, never the interpreter', () => {
    assert.deepEqual(
      serverSettings(user({ python: '/usr/bin/python3', model: 'claude-x', baseUrl: '', maxTurns: null })),
      { model: 'claude-x' },
    );
  });

  it('keeps numbers, trims strings and drops values of the wrong kind', () => {
    assert.deepEqual(
      serverSettings(
        user({ baseUrl: ' http://127.0.0.1:9 ', maxTurns: 7, maxTokens: 1.5, bashTimeoutSeconds: 2.5, model: 3 }),
      ),
      { baseUrl: 'http://127.0.0.1:9', maxTurns: 7, bashTimeoutSeconds: 2.5 },
    );
  });

  it('passes objects, lists and booleans, and drops empty ones', () => {
    assert.deepEqual(
      serverSettings(user({ approvals: { bash: 'allow' }, secretEnvNames: ['CORP_'], allowWorkspaceBaseUrl: true })),
      { approvals: { bash: 'allow' }, secretEnvNames: ['CORP_'], allowWorkspaceBaseUrl: true },
    );
    assert.deepEqual(serverSettings(user({ approvals: {}, secretEnvNames: [], allowWorkspaceBaseUrl: 'yes' })), {});
  });

  it('wraps them in the workspaceAgent section', () => {
    assert.deepEqual(wrappedSettings(user({ maxTurns: 3 })), { workspaceAgent: { maxTurns: 3 } });
  });

  it('reads the interpreter setting, empty meaning "choose one"', () => {
    assert.equal(pythonSetting(user({ python: ' /opt/py/bin/python ' })), '/opt/py/bin/python');
    assert.equal(pythonSetting(user({ python: '' })), undefined);
  });
});

describe('what a workspace may decide', () => {
  const HOSTILE = 'http://collector.example:8080';

  it('never sets where the key goes, the interpreter, or allowWorkspaceBaseUrl', () => {
    const { report, problems } = collect();
    const get = levels({
      user: { baseUrl: 'http://127.0.0.1:9' },
      workspace: { baseUrl: HOSTILE, python: '/repo/tools/python', allowWorkspaceBaseUrl: true },
      folder: { baseUrl: `${HOSTILE}/folder` },
    });
    assert.deepEqual(serverSettings(get, report), { baseUrl: 'http://127.0.0.1:9' });
    assert.equal(pythonSetting(get, report), undefined);
    assert.equal(problems.filter((p) => p.includes('read from user settings only')).length, 4, problems.join('\n'));
    // Nothing at the user level: nothing at all, not the workspace's.
    assert.deepEqual(serverSettings(levels({ workspace: { baseUrl: HOSTILE } })), {});
  });

  it('answers a workspace/configuration pull with the same filtered values as a push', () => {
    const get = levels({ user: { model: 'm' }, workspace: { baseUrl: HOSTILE, approvals: { bash: 'allow' } } });
    const pushed = serverSettings(get);
    assert.deepEqual(pushed, { model: 'm' });
    assert.deepEqual(
      configurationAnswer(['workspaceAgent', 'workspaceAgent.model', 'workspaceAgent.baseUrl', 'workspaceAgent.approvals', 'editor', undefined], pushed),
      [pushed, 'm', null, null, null, null],
    );
  });

  it('lets a workspace tighten approvals, never loosen them (deny > ask > allow)', () => {
    const cases: [Record<string, unknown> | undefined, Record<string, unknown> | undefined, unknown][] = [
      // [user, workspace, what the server gets; a kind left out keeps the server's default]
      [undefined, { bash: 'allow' }, undefined], // the default (ask) stands
      [undefined, { write: 'ask' }, { write: 'ask' }],
      [undefined, { bash: 'deny', write: 'allow' }, { bash: 'deny', write: 'allow' }],
      [{ bash: 'allow' }, undefined, { bash: 'allow' }], // the user's own choice
      [{ bash: 'allow' }, { bash: 'ask' }, { bash: 'ask' }],
      [{ bash: 'deny' }, { bash: 'allow' }, { bash: 'deny' }],
      [{ write: 'deny' }, { bash: 'allow', write: 'allow' }, { write: 'deny' }],
      [{ bash: 'ask' }, { bash: 'allow' }, { bash: 'ask' }],
      [undefined, undefined, undefined],
    ];
    for (const [own, workspace, expected] of cases) {
      const get = levels({ user: own ? { approvals: own } : {}, workspace: workspace ? { approvals: workspace } : {} });
      assert.deepEqual(serverSettings(get).approvals, expected, `user ${JSON.stringify(own)}, workspace ${JSON.stringify(workspace)}`);
    }
  });

  it('gives every kind the strictest of user (or default), workspace and folder: all combinations', () => {
    const rank = (mode: ApprovalMode) => APPROVAL_MODES.indexOf(mode);
    for (const kind of APPROVAL_KINDS) {
      const choices = [undefined, ...approvalModes(kind)];
      for (const own of choices) {
        for (const workspace of choices) {
          for (const folder of choices) {
            const at = (mode: ApprovalMode | undefined) => (mode ? { [kind]: mode } : undefined);
            const policy = effectiveApprovals({ globalValue: at(own), workspaceValue: at(workspace), workspaceFolderValue: at(folder) });
            const floor = own ?? SERVER_DEFAULTS.approvals[kind];
            const strictest = [floor, workspace, folder]
              .filter((mode): mode is ApprovalMode => mode !== undefined)
              .reduce((a, b) => (rank(b) > rank(a) ? b : a));
            const label = `${kind}: user ${own}, workspace ${workspace}, folder ${folder}`;
            // Left out: the server's default applies.
            assert.equal(policy?.[kind] ?? SERVER_DEFAULTS.approvals[kind], strictest, label);
            if (own) {
              assert.equal(policy?.[kind], strictest, `${label}: the user's choice is sent`);
            }
          }
        }
      }
    }
  });

  it('passes approvals.mcp on (ask, allow, deny; never sandboxed or review), a workspace only stricter', () => {
    const { report, problems } = collect();
    assert.deepEqual(serverSettings(levels({ user: { approvals: { mcp: 'allow' } } })).approvals, { mcp: 'allow' });
    const policy = effectiveApprovals({ globalValue: { mcp: 'sandboxed' }, workspaceValue: { mcp: 'deny' } }, report);
    assert.deepEqual(policy, { mcp: 'deny' });
    assert.deepEqual(
      effectiveApprovals({ workspaceValue: { mcp: 'allow' } }, report),
      undefined,
      'looser than the default (ask): the server keeps asking',
    );
    assert.deepEqual(problems, [
      'workspaceAgent.approvals in the user settings: "mcp": "sandboxed" is not ask, allow, deny (or sandboxed, for bash; review, for write) for bash, write or mcp: ignored',
      'workspaceAgent.approvals in the workspace settings: mcp: allow is looser than ask: ignored',
    ]);
  });

  it('reports approvals it ignored, and why', () => {
    const { report, problems } = collect();
    const policy = effectiveApprovals(
      { globalValue: { bash: 'sometimes', network: 'allow' }, workspaceValue: { bash: 'allow' }, workspaceFolderValue: 'allow' },
      report,
    );
    assert.equal(policy, undefined, 'nothing valid was set, so the server keeps its default');
    assert.deepEqual(problems, [
      'workspaceAgent.approvals in the user settings: "bash": "sometimes" is not ask, allow, deny (or sandboxed, for bash; review, for write) for bash, write or mcp: ignored',
      'workspaceAgent.approvals in the user settings: "network": "allow" is not ask, allow, deny (or sandboxed, for bash; review, for write) for bash, write or mcp: ignored',
      'workspaceAgent.approvals in the workspace settings: bash: allow is looser than sandboxed: ignored',
      'workspaceAgent.approvals in the folder settings is not an object like {"bash": "ask"}: ignored',
    ]);
  });

  it('adds a workspace\'s secret names to the user\'s, and cannot take any away', () => {
    const { report, problems } = collect();
    const get = levels({
      user: { secretEnvNames: ['CORP_', 'VAULT'] },
      workspace: { secretEnvNames: [] },
      folder: { secretEnvNames: ['VAULT', ' PROJECT_ ', '', 7] },
    });
    assert.deepEqual(serverSettings(get, report).secretEnvNames, ['CORP_', 'VAULT', 'PROJECT_']);
    // A bad entry is dropped alone: the server would refuse the whole list for it.
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.deepEqual(serverSettings(levels({ workspace: { secretEnvNames: ['CI_'] } })).secretEnvNames, ['CI_']);
  });

  it('lets a workspace confine commands more (sandbox.mode), never less, and hide more paths', () => {
    const mode = (own: unknown, workspace: unknown, folder?: unknown) =>
      serverSettings(levels({ user: { 'sandbox.mode': own }, workspace: { 'sandbox.mode': workspace }, folder: { 'sandbox.mode': folder } }))[
        'sandbox.mode'
      ];
    assert.equal(mode(undefined, 'required'), 'required');
    assert.equal(mode(undefined, 'off'), undefined); // looser than the default auto: the default stays
    assert.equal(mode('off', 'auto'), 'auto');
    assert.equal(mode('required', 'off', 'auto'), 'required');
    const { report, problems } = collect();
    serverSettings(levels({ user: { 'sandbox.mode': 'auto' }, workspace: { 'sandbox.mode': 'off' } }), report);
    assert.deepEqual(problems, ['workspaceAgent.sandbox.mode in the workspace settings: off is looser than auto: ignored']);
    const masked = serverSettings(
      levels({ user: { 'sandbox.maskedPaths': ['~/.vault'] }, workspace: { 'sandbox.maskedPaths': ['~/.corp'] } }),
    )['sandbox.maskedPaths'];
    assert.deepEqual(masked, ['~/.vault', '~/.corp']);
    // "sandboxed" is a mode for commands only
    assert.equal(serverSettings(levels({ user: { approvals: { write: 'sandboxed' } } })).approvals, undefined);
  });

  it('lets a workspace lower the user\'s token cap, never raise or remove it', () => {
    const cap = (own: unknown, workspace: unknown, folder?: unknown) =>
      serverSettings(levels({ user: { maxRunTokens: own }, workspace: { maxRunTokens: workspace }, folder: { maxRunTokens: folder } }))
        .maxRunTokens;
    assert.equal(cap(100_000, 50_000), 50_000);
    assert.equal(cap(100_000, 500_000), 100_000);
    assert.equal(cap(100_000, 0), 100_000, '0 (no cap) would lift it');
    assert.equal(cap(undefined, 50_000), 50_000, 'no cap of the user\'s own: a workspace may set one');
    assert.equal(cap(0, 50_000), 50_000);
    assert.equal(cap(undefined, 0), undefined, "nothing to lift: the server's default (no cap)");
    assert.equal(cap(100_000, 50_000, 80_000), 50_000);
    assert.equal(cap(undefined, undefined), undefined);
    assert.equal(cap(100_000, -1), 100_000);
  });

  it('lets a workspace choose what only shapes a run: model, limits, timeouts, caching', () => {
    const get = levels({
      user: { model: 'mine', maxTurns: 10, bashTimeoutSeconds: 30 },
      workspace: { model: 'project', maxTurns: 80, bashTimeoutSeconds: 600, maxFileBytes: 1024, promptCaching: false },
    });
    assert.deepEqual(serverSettings(get), { model: 'project', maxTurns: 80, bashTimeoutSeconds: 600, maxFileBytes: 1024, promptCaching: false });
  });
});

describe('settingsChange', () => {
  const affects = (...keys: string[]) => (key: string) => keys.includes(key);

  it('pushes a server setting to the running server', () => {
    assert.equal(settingsChange(affects('workspaceAgent.model')), 'push');
    assert.equal(settingsChange(affects('workspaceAgent.bashTimeoutSeconds')), 'push');
  });

  it('restarts the server when the interpreter changes', () => {
    assert.equal(settingsChange(affects('workspaceAgent.python', 'workspaceAgent.model')), 'restart');
  });

  it('ignores other settings, and the ones the extension reads itself', () => {
    assert.equal(settingsChange(affects('editor.fontSize')), 'none');
    assert.equal(settingsChange(affects('workspaceAgent.context.attachActiveEditor')), 'none');
    assert.equal(settingsChange(affects('workspaceAgent.diagnostics.waitSeconds')), 'none');
  });

  it('pushes the dotted server settings', () => {
    assert.equal(settingsChange(affects('workspaceAgent.context.maxChars')), 'push');
    assert.equal(settingsChange(affects('workspaceAgent.codeActions.enabled')), 'push');
    assert.equal(settingsChange(affects('workspaceAgent.followAgent')), 'push');
  });
});

describe('clientSetting', () => {
  it('reads the extension\'s own settings, with the fallback when unset or of the wrong kind', () => {
    const get = levels({ user: { 'diagnostics.waitSeconds': 3 }, workspace: { 'context.attachActiveEditor': false } });
    assert.equal(clientSetting(get, 'diagnostics.waitSeconds', 1.5), 3);
    assert.equal(clientSetting(get, 'context.attachActiveEditor', true), false);
    assert.equal(clientSetting(levels({}), 'context.maxChars', 20000), 20000);
    assert.equal(clientSetting(user({ 'context.maxChars': 'lots' }), 'context.maxChars', 20000), 20000);
  });

  it('never sends them to the server, which gets the dotted keys it reads', () => {
    const get = user({ 'context.attachActiveEditor': false, 'diagnostics.waitSeconds': 3, 'context.maxChars': 500, followAgent: true });
    assert.deepEqual(serverSettings(get), { 'context.maxChars': 500, followAgent: true });
  });
});

describe('serverEnvironment', () => {
  it('adds the stored key as ANTHROPIC_API_KEY and keeps the rest', () => {
    const env = serverEnvironment({ PATH: '/bin', ANTHROPIC_API_KEY: 'old', EMPTY: undefined }, 'sk-new');
    assert.deepEqual(env, { PATH: '/bin', ANTHROPIC_API_KEY: 'sk-new' });
  });

  it('leaves an inherited key alone when none is stored', () => {
    assert.equal(serverEnvironment({ ANTHROPIC_API_KEY: 'inherited' }, undefined).ANTHROPIC_API_KEY, 'inherited');
  });

  it('counts a key the server inherits as given, so the Plan view does not ask for one', () => {
    assert.ok(apiKeyAvailable({ ANTHROPIC_API_KEY: 'inherited' }, undefined));
    assert.ok(apiKeyAvailable({}, 'sk-stored'));
    assert.ok(!apiKeyAvailable({ ANTHROPIC_API_KEY: '  ' }, undefined));
    assert.ok(!apiKeyAvailable({ PATH: '/bin' }, undefined));
  });
});

describe('one list of keys', () => {
  const manifest = JSON.parse(readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8'));
  const properties: Record<string, { type: string | string[] }> = manifest.contributes.configuration.properties;

  it('matches the settings package.json contributes', () => {
    assert.deepEqual(
      Object.keys(properties).sort(),
      SETTING_KEYS.map(({ key }) => `workspaceAgent.${key}`).sort(),
    );
  });

  it('declares the user-only settings with the scope the list gives, and no other setting with one', () => {
    for (const setting of SETTING_KEYS) {
      const declared = (properties[`workspaceAgent.${setting.key}`] as { scope?: string }).scope;
      assert.equal(declared, setting.workspace === 'ignored' ? setting.scope : undefined, setting.key);
    }
  });

  it('declares the approval kinds and modes the list checks', () => {
    const approvals = properties['workspaceAgent.approvals'] as unknown as {
      properties: Record<string, { enum: string[] }>;
    };
    assert.deepEqual(Object.keys(approvals.properties).sort(), [...APPROVAL_KINDS].sort());
    for (const kind of APPROVAL_KINDS) {
      assert.deepEqual([...(approvals.properties[kind]?.enum ?? [])].sort(), [...approvalModes(kind)].sort());
    }
  });

  it('compares workspaces with the server\'s own defaults (the contract\'s, which tests/test_contract.py checks against config.py)', () => {
    assert.deepEqual(SERVER_SETTING_DEFAULTS.approvals, SERVER_DEFAULTS.approvals);
    assert.equal(SERVER_SETTING_DEFAULTS.maxRunTokens, SERVER_DEFAULTS.maxRunTokens);
    assert.equal(SERVER_SETTING_DEFAULTS['sandbox.mode'], SERVER_DEFAULTS.sandboxMode);
  });

  it('declares each setting with the kind the list reads', () => {
    for (const { key, kind } of SETTING_KEYS) {
      const declared = ([] as string[]).concat(properties[`workspaceAgent.${key}`]?.type ?? []);
      assert.ok(declared.includes(kind), `workspaceAgent.${key} is declared as ${declared.join('|')}, read as ${kind}`);
    }
  });

  it('are the rows of one table in the Settings section of docs/protocol.md', () => {
    const doc = readFileSync(path.join(REPO_DIR, 'docs', 'protocol.md'), 'utf8');
    const section = doc.slice(doc.indexOf('\n## Settings\n'), doc.indexOf('\n## ', doc.indexOf('\n## Settings\n') + 1));
    // A table ends at its first line that is not a row: a paragraph inside it would leave
    // the rows below it as plain text.
    const table = /^\| key \|.*\n\| --- .*\n((?:\|.*\n)+)/m.exec(section)?.[1] ?? '';
    const rows = [...table.matchAll(/^\| `([\w.]+)` \|/gm)].map((match) => match[1]);
    assert.deepEqual(
      rows.sort(),
      SETTING_KEYS.filter(({ target }) => target === 'server')
        .map(({ key }) => key)
        .sort(),
    );
  });

  it('sends exactly the editor keys the server reads (the contract\'s, which tests/test_contract.py checks against config.py)', () => {
    const source = JSON.parse(readFileSync(path.join(REPO_DIR, 'contract', 'workspace-agent.json'), 'utf8')) as {
      settings: { key: string; field?: string }[];
    };
    const editorKeys = source.settings.filter(({ field }) => field !== undefined).map(({ key }) => key);
    assert.ok(editorKeys.length > 0, 'no server settings in contract/workspace-agent.json');
    assert.deepEqual(
      SETTING_KEYS.filter(({ target }) => target === 'server')
        .map(({ key }) => key)
        .sort(),
      editorKeys.sort(),
    );
  });
});
