/**
 * The editor every e2e file drives, set up the same way each time: the project's scripted
 * Messages API server (a test double that replays a fixed script; no real model is called),
 * code-server with the packaged VSIX in a fresh user-data folder, and headless Chromium on
 * the workspace. What differs between the files (the script, their own settings and
 * workspace files, extra environment) stays in each test; what is here must not differ, or
 * one file would be testing a differently configured editor than the others.
 *
 * Needs WA_PYTHON (a Python with the server installed) and WA_CODE_SERVER (the code-server
 * command, run under Node 24); WA_VSIX and WA_CHROMIUM are optional. scripts/ci.sh sets them.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { SuiteContext, TestContext } from 'node:test';
import { type Browser, type Page, chromium } from 'playwright-core';
import { Service, freePort, installExtension, path, requireEnv, scriptedRequests } from './harness';

const EXTENSION_DIR = path.resolve(__dirname, '..', '..');

/**
 * User settings that keep VS Code from doing what no test asked for: a start-up editor, tips,
 * experiments, the secondary side bar, chat, trust prompts, telemetry, update checks, and
 * windows restored from an earlier run. A test's own user settings go over these.
 */
export const QUIET_SETTINGS: Readonly<Record<string, unknown>> = {
  'workbench.startupEditor': 'none',
  // As on the desktop (the web build saves after a delay): the user's edits stay unsaved.
  'files.autoSave': 'off',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'window.restoreWindows': 'none',
};

/** Bound to 127.0.0.1 by the caller; no password, nothing phoning home, no trust prompt. */
const CODE_SERVER_FLAGS = [
  '--auth', 'none',
  '--disable-telemetry',
  '--disable-update-check',
  '--disable-workspace-trust',
  '--disable-getting-started-override',
];

/** Without the background-networking flags Chromium floods the closed network with connection attempts. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface WorkbenchOptions {
  /** This test's user settings, over QUIET_SETTINGS. */
  userSettings?: Record<string, unknown>;
  /** This test's machine settings, over the interpreter (workspaceAgent.python). */
  machineSettings?: Record<string, unknown>;
  /**
   * Variables code-server gets beyond `env`, e.g. an API key as a user's shell would have it
   * (the extension hands it on to the server); installing the extension does not get them.
   */
  codeServerEnv?: NodeJS.ProcessEnv;
  /** Called with the new page before it loads the workbench, to hear its first events. */
  beforeLoad?: (page: Page) => void;
}

/**
 * One e2e file's editor and the processes behind it, in a temporary root that `close()`
 * removes. Create it when the suite is defined (its paths are known from then on), start
 * the scripted model(s) and `open()` it in `before()`, `close()` it in `after()`.
 */
export class Workbench {
  readonly python = requireEnv('WA_PYTHON');
  readonly codeServer = requireEnv('WA_CODE_SERVER');
  readonly vsix = path.resolve(process.env.WA_VSIX ?? path.join(EXTENSION_DIR, 'dist', 'workspace-agent.vsix'));
  readonly root: string;
  readonly workspace: string;
  readonly userData: string;
  readonly extensions: string;
  /** The environment of every child: neither a real key nor a real endpoint may leak in from the user's. */
  readonly env: NodeJS.ProcessEnv = { ...process.env };
  private readonly services: Service[] = [];
  private readonly modelUrls: string[] = [];
  private browser: Browser | undefined;
  private page: Page | undefined;

  /** Empties `artifacts` (each file keeps only its last run's) and makes an empty workspace. */
  constructor(
    tempPrefix: string,
    readonly artifacts: string,
  ) {
    for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'MODEL_ID', 'VSCODE_IPC_HOOK_CLI']) {
      delete this.env[name];
    }
    this.root = mkdtempSync(path.join(tmpdir(), tempPrefix));
    this.workspace = path.join(this.root, 'workspace');
    this.userData = path.join(this.root, 'user-data');
    this.extensions = path.join(this.root, 'extensions');
    rmSync(artifacts, { recursive: true, force: true });
    mkdirSync(artifacts, { recursive: true });
    mkdirSync(this.workspace, { recursive: true });
  }

  /**
   * The interpreter is a machine setting: code-server is a remote window, so it is read from
   * the remote's settings (Machine/), not from the browser side's User/.
   */
  get machineSettingsFile(): string {
    return path.join(this.userData, 'Machine', 'settings.json');
  }

  get userSettingsFile(): string {
    return path.join(this.userData, 'User', 'settings.json');
  }

  /**
   * Starts the scripted model server on a free port with `script`, and returns its URL. Its
   * output goes to "<name>.log" in the artifacts ("scripted model" → scripted-model.log).
   */
  async startScriptedModel(script: unknown, name = 'scripted model'): Promise<string> {
    const base = name.replace(/\s+/g, '-');
    const scriptFile = path.join(this.root, `${base}.json`);
    writeFileSync(scriptFile, JSON.stringify(script, null, 2));
    const model = new Service(name, this.python, ['-m', 'workspace_agent.testing.scripted_model', '--script', scriptFile, '--port', '0'], {
      env: this.env,
      logFile: path.join(this.artifacts, `${base}.log`),
    });
    this.services.push(model);
    const url = (await model.waitForOutput(/scripted model listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    this.modelUrls.push(url);
    return url;
  }

  /**
   * Writes the settings, installs the VSIX, starts code-server on a free port and opens the
   * workspace in headless Chromium; returns the page once the workbench is on it.
   */
  async open(options: WorkbenchOptions = {}): Promise<Page> {
    const config = path.join(this.root, 'code-server.yaml');
    writeSettings(this.machineSettingsFile, { 'workspaceAgent.python': this.python, ...options.machineSettings });
    writeSettings(this.userSettingsFile, { ...QUIET_SETTINGS, ...options.userSettings });
    installExtension(this.codeServer, this.vsix, { userData: this.userData, extensions: this.extensions, config }, this.env);

    const port = await freePort();
    const editor = new Service(
      'code-server',
      this.codeServer,
      [
        '--bind-addr', `127.0.0.1:${port}`,
        '--config', config,
        '--user-data-dir', this.userData,
        '--extensions-dir', this.extensions,
        ...CODE_SERVER_FLAGS,
        this.workspace,
      ],
      { env: { ...this.env, ...options.codeServerEnv }, logFile: path.join(this.artifacts, 'code-server.log') },
    );
    this.services.push(editor);
    await editor.waitForOutput(/HTTP server listening on/);

    this.browser = await chromium.launch({ executablePath: process.env.WA_CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const page = await this.browser.newPage({ viewport: { width: 1280, height: 800 } });
    this.page = page;
    page.setDefaultTimeout(30_000);
    options.beforeLoad?.(page);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(this.workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    return page;
  }

  /**
   * For `afterEach`: a screenshot of the page as a test that failed left it, and the end of
   * the extension's logs (its server's and the transcript) and the scripted model's printed,
   * so a failure on a CI machine whose artifacts are out of reach still says what happened.
   */
  async screenshotIfFailed(t: TestContext | SuiteContext): Promise<void> {
    if (!('passed' in t) || t.passed) {
      return;
    }
    if (this.page) {
      const name = `failed-${t.name.replace(/[^\w]+/g, '-').slice(0, 60)}.png`;
      await this.page.screenshot({ path: path.join(this.artifacts, name) }).catch(() => undefined);
    }
    console.error(`-- after the failure of "${t.name}" --\n${this.logTails()}\n${await this.requestsSeen()}`);
  }

  /** What the scripted models were asked so far: each request's message count and last words. */
  async requestsSeen(): Promise<string> {
    const lines: string[] = [];
    for (const url of this.modelUrls) {
      const requests = await scriptedRequests(url).catch((error: unknown) => String(error));
      if (typeof requests === 'string') {
        lines.push(`${url}: ${requests}`);
        continue;
      }
      lines.push(`${url}: ${requests.length} request(s)`);
      for (const request of requests) {
        const last = JSON.stringify(request.body.messages?.at(-1) ?? null);
        lines.push(`  ${request.body.messages?.length ?? 0} messages, the last: ${last.slice(0, 160)}`);
      }
    }
    return lines.join('\n');
  }

  /** The last lines of the extension's output channels and of the scripted models' logs. */
  logTails(lines = 25): string {
    const tail = (file: string): string => `${path.basename(file)}:\n${readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')}`;
    const logs = path.join(this.userData, 'logs');
    const found: string[] = [];
    const walk = (folder: string): void => {
      for (const entry of existsSync(folder) ? readdirSync(folder, { withFileTypes: true }) : []) {
        const full = path.join(folder, entry.name);
        if (entry.isDirectory()) {
          walk(full);
        } else if (full.includes('workspace-agent.workspace-agent') && entry.name.endsWith('.log')) {
          found.push(full);
        }
      }
    };
    // One folder per window load (a reload starts another): the newest says what happened last.
    const loads = existsSync(logs) ? readdirSync(logs).sort() : [];
    if (loads.length) {
      walk(path.join(logs, loads[loads.length - 1] ?? ''));
    }
    const models = readdirSync(this.artifacts).filter((name) => name.startsWith('scripted-model') && name.endsWith('.log'));
    return [...found, ...models.map((name) => path.join(this.artifacts, name))].map(tail).join('\n') || '(no logs)';
  }

  /**
   * Ends what was started, the last first (the browser, code-server, the models), after a
   * last screenshot; keeps code-server's logs (the extension host's output channels among
   * them) in the artifacts and removes the root. Also right after a failed or partial start.
   */
  async close(): Promise<void> {
    if (this.browser) {
      if (this.page) {
        await this.page.screenshot({ path: path.join(this.artifacts, 'last.png') }).catch(() => undefined);
        await this.page.close().catch(() => undefined);
      }
      await this.browser.close().catch(() => undefined);
    }
    for (const service of this.services.reverse()) {
      await service.stop();
    }
    cpSync(path.join(this.userData, 'logs'), path.join(this.artifacts, 'code-server-logs'), { recursive: true, force: true });
    rmSync(this.root, { recursive: true, force: true });
  }
}

function writeSettings(file: string, settings: Record<string, unknown>): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(settings, null, 2));
}
