/**
 * Finding a Python that can run the server, and installing the server when it cannot.
 *
 * Node-only (child_process, fs), no `vscode`: the checks run real interpreters in unit
 * tests. python.ts adds the editor side (the Python extension's interpreter, the offer to
 * install, the progress notification).
 */
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';

/** The module the extension launches with `python -m`. */
export const SERVER_MODULE = 'workspace_agent';

/** Prints the installed server version; fails with ModuleNotFoundError when it is absent. */
/**
 * `-c` puts the current folder first on sys.path: dropped before the import, so that a
 * module a sandboxed command wrote into the workspace is never what the check runs.
 */
export const CHECK_CODE = `import sys; del sys.path[0]; import ${SERVER_MODULE}; print(${SERVER_MODULE}.__version__)`;

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started at all (ENOENT, EACCES, timeout). */
  spawnError?: string;
}

/** Runs a program without a shell and collects its output; never throws. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        timeout: options.timeoutMs ?? 30_000,
        env: options.env ?? process.env,
        cwd: options.cwd,
        maxBuffer: 16 * 1024 * 1024,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        const spawnError =
          error && typeof error.code === 'string'
            ? `${error.code}: ${error.message}`
            : error?.killed
              ? `timed out: ${error.message}`
              : undefined;
        resolve({ code, stdout: String(stdout), stderr: String(stderr), ...(spawnError ? { spawnError } : {}) });
      },
    );
  });
}

export type ServerCheck =
  | { ok: true; version: string }
  | { ok: false; reason: 'no-interpreter' | 'missing-package' | 'broken-package'; detail: string };

/** Does `python` run, and can it import the server package? */
export async function checkServerPackage(python: string): Promise<ServerCheck> {
  const result = await runProcess(python, ['-c', CHECK_CODE]);
  if (result.spawnError) {
    return { ok: false, reason: 'no-interpreter', detail: result.spawnError };
  }
  if (result.code === 0) {
    return { ok: true, version: result.stdout.trim() };
  }
  const detail = lastLines(result.stderr || result.stdout, 5);
  const missing = new RegExp(`No module named '?${SERVER_MODULE}'?`).test(result.stderr);
  return { ok: false, reason: missing ? 'missing-package' : 'broken-package', detail };
}

/** The interpreter of a virtual environment, on this platform. */
export function venvPython(venvDir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32'
    ? path.join(venvDir, 'Scripts', 'python.exe')
    : path.join(venvDir, 'bin', 'python');
}

export interface BundledWheel {
  file: string;
  version: string;
}

const WHEEL_NAME = /^workspace_agent-([^-]+)-.*\.whl$/;

/** The server wheel shipped in the VSIX (bundled/), or undefined when there is none. */
export function pickWheel(dir: string, files: readonly string[]): BundledWheel | undefined {
  for (const name of [...files].sort().reverse()) {
    const match = WHEEL_NAME.exec(name);
    if (match?.[1]) {
      return { file: path.join(dir, name), version: match[1] };
    }
  }
  return undefined;
}

export async function findBundledWheel(dir: string): Promise<BundledWheel | undefined> {
  try {
    return pickWheel(dir, await readdir(dir));
  } catch {
    return undefined;
  }
}

export interface InstallStep {
  title: string;
  command: string;
  args: string[];
}

/**
 * Create the private environment (unless it exists) and install the wheel into it; pip
 * fetches the server's dependencies from the package index as usual.
 */
export function installSteps(
  basePython: string,
  venvDir: string,
  wheel: string,
  options: { createVenv: boolean; platform?: NodeJS.Platform },
): InstallStep[] {
  const python = venvPython(venvDir, options.platform);
  const steps: InstallStep[] = [];
  if (options.createVenv) {
    steps.push({ title: 'Creating a private Python environment', command: basePython, args: ['-m', 'venv', venvDir] });
  }
  steps.push({
    title: 'Installing the Workspace Agent server and its dependencies',
    command: python,
    args: ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--upgrade', wheel],
  });
  return steps;
}

/** How to tell the user what is wrong with an interpreter, in one sentence. */
export function describeCheck(python: string, check: Exclude<ServerCheck, { ok: true }>): string {
  switch (check.reason) {
    case 'no-interpreter':
      return `the Python interpreter "${python}" could not be started (${check.detail})`;
    case 'missing-package':
      return `the Python interpreter "${python}" does not have the Workspace Agent server package (${SERVER_MODULE})`;
    case 'broken-package':
      return `the Python interpreter "${python}" fails to import the Workspace Agent server: ${check.detail}`;
  }
}

/**
 * Why a pip step failed, for the error toast: pip's own `ERROR:` lines (the cause: "No
 * matching distribution found for anthropic>=2.10"), else the last lines that are not its
 * `WARNING:`s (a closed network fills stderr with retry and index warnings).
 */
export function installFailureCause(stderr: string, count = 3): string {
  const lines = stderr.trim().split(/\r?\n/).filter((line) => line.trim());
  const errors = lines.filter((line) => /^ERROR:/.test(line.trim()));
  const chosen = errors.length ? errors : lines.filter((line) => !/^WARNING:/.test(line.trim()));
  return (chosen.length ? chosen : lines).slice(-count).join('\n');
}

export function lastLines(text: string, count: number): string {
  return text.trim().split(/\r?\n/).slice(-count).join('\n');
}
