/**
 * A run's progress notification (with its Cancel button), which can go and come back (the
 * Conversation view shown, then hidden): it always shows the run's latest state.
 */
import * as vscode from 'vscode';
import { ProgressTracker } from './core/progress';
import type { TodoItem } from './protocol';

export class ProgressToast implements vscode.Disposable {
  private current: { progress: vscode.Progress<{ message?: string; increment?: number }>; tracker: ProgressTracker; close: () => void } | undefined;
  private opening = false;
  private message = '';
  private items: readonly TodoItem[] = [];

  constructor(private readonly onCancel: () => void) {}

  /** The state to show: a message, or the plan's progress when the run has plan items. */
  set(message: string, items: readonly TodoItem[] = []): void {
    this.message = message;
    this.items = items;
    this.report();
  }

  show(): void {
    if (this.current || this.opening) {
      return;
    }
    this.opening = true;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Workspace Agent', cancellable: true },
      (progress, token) =>
        new Promise<void>((resolve) => {
          this.opening = false;
          const cancelled = token.onCancellationRequested(() => this.onCancel());
          this.current = {
            progress,
            tracker: new ProgressTracker(),
            close: () => {
              cancelled.dispose();
              resolve();
            },
          };
          this.report();
        }),
    );
  }

  hide(): void {
    const current = this.current;
    this.current = undefined;
    current?.close();
  }

  dispose(): void {
    this.hide();
    this.opening = false;
  }

  private report(): void {
    const current = this.current;
    if (current) {
      current.progress.report(this.items.length ? current.tracker.update(this.items) : { message: this.message });
    }
  }
}
