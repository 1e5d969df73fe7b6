/**
 * When the problems of a file are up to date after the agent changed it: the editor's
 * language servers report (again) some time after the text changes. A file is settled
 * once its problems changed after its text last did, or when it is not open in the
 * editor (language servers look at open documents; nothing more will come for it).
 *
 * Pure: diagnostics.ts feeds it VS Code's change events with a clock and waits on it.
 */
export class SettleTracker {
  private readonly textChanged = new Map<string, number>();
  private readonly problemsChanged = new Map<string, number>();
  private tick = 0;

  /** The document's text changed (typed, edited by the agent, reloaded from disk). */
  text(uri: string): void {
    this.textChanged.set(uri, ++this.tick);
  }

  /** A language server reported the document's problems (possibly the same ones). */
  problems(uri: string): void {
    this.problemsChanged.set(uri, ++this.tick);
  }

  /** The URIs among `uris` still waiting for their problems. */
  unsettled(uris: readonly string[], isOpen: (uri: string) => boolean): string[] {
    return uris.filter((uri) => isOpen(uri) && (this.textChanged.get(uri) ?? 0) > (this.problemsChanged.get(uri) ?? 0));
  }

  /** Forget a closed document. */
  forget(uri: string): void {
    this.textChanged.delete(uri);
    this.problemsChanged.delete(uri);
  }
}
