/**
 * Where every task goes in: run now, or queued while a run goes (the Conversation view's
 * input box, Run Task…, Ask About…, a fix's Retry) and started when the run ends. The queue
 * is shown in the Conversation view, where a queued task can be removed; it outlives a
 * window reload, held until the user runs its tasks (core/taskQueue.ts). What the user sent
 * is remembered for the input box's Up/Down (core/promptHistory.ts).
 */
import * as vscode from 'vscode';
import { promptHistory } from './core/promptHistory';
import { shorten } from './core/status';
import { type QueuedTask, TaskQueue } from './core/taskQueue';
import type { RunOrigin } from './core/toasts';
import { activeEditorContext } from './editorContext';
import type { PromptImage, RunContext } from './protocol';
import { readAttachActiveEditor } from './settings';
import type { Transcript } from './transcript';

const HISTORY_KEY = 'workspaceAgent.promptHistory';
const QUEUE_KEY = 'workspaceAgent.queuedTasks';

/** What the queue needs of the runs (runs.ts): whether one goes, starting one, and when it is free. */
export interface QueueRuns {
  readonly busy: boolean;
  start(prompt: string, context?: RunContext, images?: PromptImage[], origin?: RunOrigin): Promise<void>;
  readonly onDidFree: vscode.Event<void>;
}

export class RunQueue implements vscode.Disposable {
  private readonly queue: TaskQueue;
  /** Queued tasks sent from the Conversation view (by id): they run as the view's. */
  private readonly fromView = new Set<number>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** A task was queued, taken off, or released. */
  readonly onDidChange = this.changed.event;
  private readonly freed: vscode.Disposable;

  constructor(
    private readonly runs: QueueRuns,
    private readonly memento: vscode.Memento,
    private readonly transcript: Transcript,
  ) {
    this.queue = TaskQueue.restore(memento.get<unknown>(QUEUE_KEY));
    if (this.queue.items.length) {
      this.transcript.note(
        `${this.queue.items.length} queued task(s) kept from before the window reloaded: ` +
          'run or remove them in the Conversation view.',
      );
    }
    this.freed = runs.onDidFree(() => this.next());
  }

  /** The tasks queued behind the current run, oldest first (held ones included). */
  get queued(): readonly QueuedTask[] {
    return this.queue.items;
  }

  /** What the user sent before, oldest first (the input box's Up/Down). */
  get history(): string[] {
    const saved = this.memento.get<unknown>(HISTORY_KEY);
    return Array.isArray(saved) ? saved.filter((entry): entry is string => typeof entry === 'string') : [];
  }

  /**
   * A task from the Conversation view's input box (or, `origin` elsewhere, a saved prompt
   * picked in the palette): run now, or queued behind the run.
   */
  send(text: string, images: PromptImage[] = [], origin: RunOrigin = 'view'): void {
    const prompt = text.trim();
    if (!prompt) {
      return;
    }
    const context = readAttachActiveEditor() ? activeEditorContext() : undefined;
    if (images.length) {
      // Not queued: a queued task is kept in the workspace's storage, images are too big for it.
      if (this.runs.busy) {
        void vscode.window.showWarningMessage('Workspace Agent: a task with images can be sent once the current run ends.');
        return;
      }
      void this.memento.update(HISTORY_KEY, promptHistory(this.history, prompt));
      void this.runs.start(prompt, context, images, origin);
      return;
    }
    this.submit(prompt, context, origin);
  }

  /** Runs the task now, or queues it while a run goes. */
  submit(prompt: string, context?: RunContext, origin: RunOrigin = 'elsewhere'): void {
    void this.memento.update(HISTORY_KEY, promptHistory(this.history, prompt));
    if (this.runs.busy) {
      const task = this.queue.add(prompt, context);
      if (origin === 'view') {
        this.fromView.add(task.id);
      }
      this.transcript.note(`Queued: ${shorten(prompt, 80)}`);
      this.queueChanged();
      return;
    }
    void this.runs.start(prompt, context, [], origin);
  }

  /** Takes a queued task off the queue. */
  unqueue(id: number): void {
    this.fromView.delete(id);
    if (this.queue.remove(id)) {
      this.queueChanged();
    }
  }

  /** Run, on a task kept from before a window reload: now, or in its turn behind the run. */
  runQueued(id: number): void {
    if (!this.queue.release(id)) {
      return;
    }
    this.fromView.add(id); // its Run is in the Conversation view
    if (this.runs.busy) {
      this.queueChanged();
    } else {
      this.next(); // takes it off the queue (nothing else waits unheld while idle) and says so
    }
  }

  dispose(): void {
    this.freed.dispose();
    this.changed.dispose();
  }

  /** The next queued task that is not held, once nothing runs. */
  private next(): void {
    const task = this.queue.takeNext();
    if (task) {
      const origin: RunOrigin = this.fromView.delete(task.id) ? 'view' : 'elsewhere';
      this.queueChanged();
      void this.runs.start(task.text, task.context, [], origin);
    }
  }

  /** Keeps the queue in the workspace's storage (a reload must not lose it) and says so. */
  private queueChanged(): void {
    void this.memento.update(QUEUE_KEY, this.queue.stored());
    this.changed.fire();
  }
}
