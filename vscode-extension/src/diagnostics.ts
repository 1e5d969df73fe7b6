/**
 * Answers workspaceAgent/diagnostics: after the agent changed files, the server asks for
 * their problems, to tell the agent which ones its change introduced. With `wait`, the
 * answer waits until the language servers have reported on the changed open documents
 * (core/settle.ts), or `workspaceAgent.diagnostics.waitSeconds` (default 1.5 s) passed,
 * or the server gave up; without it, it is what VS Code has right now. With `all` (a
 * prompt's `@problems`), every file's problems VS Code knows, the files without any left out.
 */
import * as vscode from 'vscode';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { SettleTracker } from './core/settle';
import type { DiagnosticsParams, DiagnosticsResult } from './protocol';
import { readDiagnosticsWaitSeconds } from './settings';

/** Turns VS Code's diagnostics into LSP ones (the language client's converter). */
export type ToLsp = (diagnostics: vscode.Diagnostic[]) => Diagnostic[];

export class DiagnosticsWatch implements vscode.Disposable {
  private readonly tracker = new SettleTracker();
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      this.changed,
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length) {
          this.tracker.text(event.document.uri.toString());
        }
      }),
      vscode.workspace.onDidCloseTextDocument((document) => this.tracker.forget(document.uri.toString())),
      vscode.languages.onDidChangeDiagnostics((event) => {
        for (const uri of event.uris) {
          this.tracker.problems(uri.toString());
        }
        this.changed.fire();
      }),
    ];
  }

  async answer(params: DiagnosticsParams, toLsp: ToLsp, token: vscode.CancellationToken): Promise<DiagnosticsResult> {
    if (params?.all === true) {
      return vscode.languages
        .getDiagnostics()
        .filter(([, diagnostics]) => diagnostics.length > 0)
        .map(([uri, diagnostics]) => ({ uri: uri.toString(), diagnostics: toLsp(diagnostics) }));
    }
    const uris = Array.isArray(params?.uris) ? params.uris.filter((uri): uri is string => typeof uri === 'string') : [];
    if (params?.wait !== false) {
      await this.settled(uris, readDiagnosticsWaitSeconds() * 1000, token);
    }
    return uris.map((uri) => ({ uri, diagnostics: toLsp(vscode.languages.getDiagnostics(vscode.Uri.parse(uri))) }));
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }

  /** Resolves when every open document among `uris` is settled, or at the timeout. */
  private settled(uris: string[], timeoutMs: number, token: vscode.CancellationToken): Promise<void> {
    const open = new Set(vscode.workspace.textDocuments.map((document) => document.uri.toString()));
    const pending = () => this.tracker.unsettled(uris, (uri) => open.has(uri));
    if (!pending().length || timeoutMs <= 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        listener.dispose();
        cancelled.dispose();
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      const listener = this.changed.event(() => {
        if (!pending().length) {
          done();
        }
      });
      const cancelled = token.onCancellationRequested(done);
    });
  }
}
