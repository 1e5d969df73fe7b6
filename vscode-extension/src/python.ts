/**
 * Chooses the interpreter that runs the server, and installs the server when it lacks it.
 *
 * Order: the `workspaceAgent.python` setting (user or remote settings only: a workspace
 * must not choose the program that starts), else the Python extension's active
 * interpreter, else `python3`. When that interpreter cannot import the server, a private
 * virtual environment in the extension's global storage is used if it has the bundled
 * version; otherwise the user is asked, once per attempt, whether to install the wheel that
 * ships inside the VSIX there, with a progress notification: offered as a setup step (an
 * information message, and the walkthrough's first step), not as an error. An interpreter whose server
 * speaks another protocol version (client.ts checks at `initialize`) is passed over the
 * same way until the next restart.
 */
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  type BundledWheel,
  checkServerPackage,
  describeCheck,
  findBundledWheel,
  installFailureCause,
  installSteps,
  runProcess,
  venvPython,
} from './core/pythonEnv';
import { readPythonSetting } from './settings';

const PYTHON_EXTENSION = 'ms-python.python';
const FALLBACK = 'python3';
const PYTHON_SETTING = 'workspaceAgent.python';
const INSTALL = 'Install Server';
const CHOOSE = 'Set Interpreter…';

/** The install offer's answer: install, choose an interpreter, or dismissed. */
type OfferChoice = 'install' | 'choose' | undefined;

/** The answer a button of the offer (or of its reminder) gives. */
function choiceOf(label: string | undefined): OfferChoice {
  return label === INSTALL ? 'install' : label === CHOOSE ? 'choose' : undefined;
}

/** The part of the Python extension's API that is used here (its `environments` API). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(env: { id: string; path: string } | string): Promise<
      { executable: { uri?: vscode.Uri } } | undefined
    >;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined;
  }
}

/** The Python extension's active interpreter for the first workspace folder, if any. */
async function pythonExtensionInterpreter(log: vscode.LogOutputChannel): Promise<string | undefined> {
  const environments = (await pythonExtensionApi())?.environments;
  if (!environments) {
    return undefined;
  }
  try {
    const active = environments.getActiveEnvironmentPath(vscode.workspace.workspaceFolders?.[0]?.uri);
    const resolved = await environments.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath ?? active.path;
  } catch (error) {
    log.warn(`The Python extension gave no interpreter: ${String(error)}`);
    return undefined;
  }
}

/** Fires when the Python extension's active interpreter changes (a no-op without it). */
export async function onPythonExtensionChange(listener: () => void): Promise<vscode.Disposable> {
  const event = (await pythonExtensionApi())?.environments?.onDidChangeActiveEnvironmentPath;
  return event ? event(listener) : new vscode.Disposable(() => undefined);
}

export class ServerPython {
  private readonly venvDir: string;
  private readonly bundledDir: string;
  private readonly storageDir: string;
  /** Interpreters whose server speaks another protocol version, with the reason. */
  private readonly unusable = new Map<string, string>();
  /** The next start installs a missing server without asking (the walkthrough's Install step). */
  installWithoutAsking = false;
  /** The install offer waiting for the user's answer (in a toast or the notification centre). */
  private offer: { answer: (choice: OfferChoice) => void; actions: string[]; reminded: boolean } | undefined;

  constructor(
    context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.storageDir = context.globalStorageUri.fsPath;
    this.venvDir = path.join(this.storageDir, 'server-venv');
    this.bundledDir = path.join(context.extensionPath, 'bundled');
  }

  /**
   * The server run by `python` speaks another protocol version (`problem` says which):
   * resolve() passes it over, offering the bundled server instead, until forgetUnusable().
   */
  markUnusable(python: string, problem: string): void {
    this.unusable.set(python, problem);
  }

  /** A restart checks every interpreter afresh (the user may have upgraded the server). */
  forgetUnusable(): void {
    this.unusable.clear();
  }

  /**
   * The folder the server process starts in: the extension's own storage, never the
   * workspace, since `python -m` imports from its current folder first (a `workspace_agent/`
   * a sandboxed command wrote there would be what starts).
   */
  async serverCwd(): Promise<string> {
    await mkdir(this.storageDir, { recursive: true });
    return this.storageDir;
  }

  /** An interpreter that imports the server, or undefined when there is none (yet). */
  async resolve(): Promise<string | undefined> {
    const setting = readPythonSetting((problem) => this.log.warn(problem));
    const candidate = setting ?? (await pythonExtensionInterpreter(this.log)) ?? FALLBACK;
    const source = setting ? 'the workspaceAgent.python setting' : candidate === FALLBACK ? 'the default' : 'the Python extension';
    const check = await checkServerPackage(candidate);
    const unusable = this.unusable.get(candidate);
    if (check.ok && !unusable) {
      this.log.info(`Server interpreter: ${candidate} (from ${source}), workspace_agent ${check.version}`);
      return candidate;
    }
    const problem = unusable ?? (check.ok ? `${candidate} cannot be used` : describeCheck(candidate, check));
    this.log.warn(`${problem} (interpreter from ${source})`);

    const wheel = await findBundledWheel(this.bundledDir);
    const privatePython = venvPython(this.venvDir);
    const privateCheck = await checkServerPackage(privatePython);
    if (privateCheck.ok && !this.unusable.has(privatePython) && (!wheel || privateCheck.version === wheel.version)) {
      this.log.info(`Using the private environment: ${privatePython}, workspace_agent ${privateCheck.version}`);
      return privatePython;
    }
    if (!wheel) {
      void vscode.window.showErrorMessage(
        `Workspace Agent: ${problem}. Install it with "pip install workspace-agent" or set workspaceAgent.python.`,
      );
      return undefined;
    }
    if (privateCheck.ok && privateCheck.version !== wheel.version) {
      // The private environment holds another version: bring it to the bundled one.
      this.log.info(`Updating the private environment from ${privateCheck.version} to ${wheel.version}`);
      return this.install(candidate, wheel, false);
    }
    if (privateCheck.ok) {
      // The bundled server itself was refused: installing it again would not help.
      void vscode.window.showErrorMessage(`Workspace Agent: ${this.unusable.get(privatePython) ?? problem}.`);
      return undefined;
    }
    // A machine setting: in a remote window (Remote-SSH, code-server) a value in the local
    // User settings is not seen, and VS Code says so only in its Settings editor.
    const where = !setting && vscode.env.remoteName ? ` (in this remote window ${PYTHON_SETTING} is read from the remote's settings, not your User settings)` : '';
    return this.offerInstall(candidate, `${problem}${where}`, !check.ok && check.reason === 'no-interpreter', wheel);
  }

  /** An install offer waits for the user's answer: the server's start (and every task) waits with it. */
  get offerPending(): boolean {
    return this.offer !== undefined;
  }

  /**
   * Answers the waiting install offer as its buttons would (the walkthrough's Install step);
   * with no interpreter to install from, Install is not offered: the interpreter setting opens.
   */
  answerOffer(choice: OfferChoice): void {
    const offer = this.offer;
    offer?.answer(choice === 'install' && !offer.actions.includes(INSTALL) ? 'choose' : choice);
  }

  /**
   * A task was sent while the install offer waits, perhaps unseen in the notification
   * centre: say so once per offer, with the offer's own buttons, rather than wait silently.
   */
  async remindOffer(): Promise<void> {
    const offer = this.offer;
    if (!offer || offer.reminded) {
      return;
    }
    offer.reminded = true;
    const answer = await vscode.window.showWarningMessage(
      'Workspace Agent: your task waits for the server, which is not installed yet: install it, or set the interpreter that has it.',
      ...offer.actions,
    );
    if (answer && this.offer === offer) {
      offer.answer(choiceOf(answer));
    }
  }

  private async offerInstall(
    candidate: string,
    problem: string,
    noInterpreter: boolean,
    wheel: BundledWheel,
  ): Promise<string | undefined> {
    if (this.installWithoutAsking && !noInterpreter) {
      return this.install(candidate, wheel, true);
    }
    const actions = noInterpreter ? [CHOOSE] : [INSTALL, CHOOSE];
    // A setup step, not a failure: an information message with the step as its button.
    let answered!: (choice: OfferChoice) => void;
    const elsewhere = new Promise<OfferChoice>((resolve) => (answered = resolve));
    this.offer = { answer: answered, actions, reminded: false };
    const shown = vscode.window
      .showInformationMessage(
        noInterpreter
          ? `Workspace Agent: ${problem}. Set workspaceAgent.python to a Python 3.10+ interpreter.`
          : `Workspace Agent: ${problem}. Install the server (${wheel.version}, shipped with this extension) into a private environment? pip downloads its dependencies.`,
        ...actions,
      )
      .then(choiceOf);
    const choice = await Promise.race([shown, elsewhere]).finally(() => {
      this.offer = undefined;
    });
    if (choice === 'choose') {
      // A machine setting: in a remote window it lives in the remote's settings.
      await (vscode.env.remoteName
        ? vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query: PYTHON_SETTING })
        : vscode.commands.executeCommand('workbench.action.openSettings', PYTHON_SETTING));
      return undefined;
    }
    return choice === 'install' ? this.install(candidate, wheel, true) : undefined;
  }

  private async install(basePython: string, wheel: BundledWheel, createVenv: boolean): Promise<string | undefined> {
    await mkdir(path.dirname(this.venvDir), { recursive: true });
    const steps = installSteps(basePython, this.venvDir, wheel.file, { createVenv });
    const failure = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Workspace Agent: installing the server' },
      async (progress) => {
        for (const [index, step] of steps.entries()) {
          progress.report({ message: `${step.title} (${index + 1}/${steps.length})`, increment: index ? 100 / steps.length : 0 });
          this.log.info(`$ ${step.command} ${step.args.join(' ')}`);
          const result = await runProcess(step.command, step.args, { timeoutMs: 15 * 60_000 });
          this.log.info(result.stdout.trim());
          if (result.code !== 0 || result.spawnError) {
            this.log.error(result.stderr.trim() || result.spawnError || `exit code ${result.code}`);
            return `${step.title} failed: ${installFailureCause(result.stderr || result.spawnError || '')}`;
          }
        }
        return undefined;
      },
    );
    if (failure) {
      const show = 'Show Log';
      if ((await vscode.window.showErrorMessage(`Workspace Agent: ${failure}`, show)) === show) {
        this.log.show();
      }
      return undefined;
    }
    const python = venvPython(this.venvDir);
    const check = await checkServerPackage(python);
    if (!check.ok) {
      void vscode.window.showErrorMessage(`Workspace Agent: the install finished but ${describeCheck(python, check)}.`);
      return undefined;
    }
    void vscode.window.showInformationMessage(`Workspace Agent: server ${check.version} installed in a private environment.`);
    return python;
  }
}
