/**
 * The tasks waiting for the current run to end, kept in the workspace's storage so a
 * window reload does not lose them.
 *
 * A reload ends the run they waited for (the server goes with the window), so tasks
 * brought back are held: they start only when the user says so (Run, in the
 * Conversation view), never on their own behind a run that did not finish. An entry
 * stored by another version that does not fit is dropped; an attached editor context
 * that does not fit is dropped from its task, which is kept.
 * Pure, for unit tests.
 */
import { problemIn, type RunContext } from '../contract';

/** A task waiting for the current run to end. */
export interface QueuedTask {
  id: number;
  text: string;
  context?: RunContext;
  /** Brought back after a window reload: starts only when the user says so. */
  held?: boolean;
}

/** What the workspace's storage keeps of a task. */
export interface StoredTask {
  text: string;
  context?: RunContext;
}

export class TaskQueue {
  private tasks: QueuedTask[] = [];
  private ids = 0;

  /** The tasks stored before the window reloaded, held. */
  static restore(stored: unknown): TaskQueue {
    const queue = new TaskQueue();
    for (const entry of Array.isArray(stored) ? stored : []) {
      const task = storedTask(entry);
      if (task) {
        queue.tasks.push({ id: ++queue.ids, ...task, held: true });
      }
    }
    return queue;
  }

  /** Oldest first. */
  get items(): readonly QueuedTask[] {
    return this.tasks;
  }

  add(text: string, context?: RunContext): QueuedTask {
    const task: QueuedTask = { id: ++this.ids, text, ...(context ? { context } : {}) };
    this.tasks.push(task);
    return task;
  }

  /** Takes a task off the queue; false when it was not there. */
  remove(id: number): boolean {
    const before = this.tasks.length;
    this.tasks = this.tasks.filter((task) => task.id !== id);
    return this.tasks.length !== before;
  }

  /** A held task may start in its turn; false when there is no such held task. */
  release(id: number): boolean {
    const task = this.tasks.find((candidate) => candidate.id === id);
    if (!task?.held) {
      return false;
    }
    delete task.held;
    return true;
  }

  /** Takes the first task that is not held off the queue. */
  takeNext(): QueuedTask | undefined {
    const index = this.tasks.findIndex((task) => !task.held);
    return index < 0 ? undefined : this.tasks.splice(index, 1)[0];
  }

  /** What to keep in the workspace's storage: every task, held or not. */
  stored(): StoredTask[] {
    return this.tasks.map(({ text, context }) => ({ text, ...(context ? { context } : {}) }));
  }
}

function storedTask(entry: unknown): StoredTask | undefined {
  if (typeof entry !== 'object' || entry === null) {
    return undefined;
  }
  const { text, context } = entry as { text?: unknown; context?: unknown };
  if (typeof text !== 'string' || !text.trim()) {
    return undefined;
  }
  if (context === undefined) {
    return { text };
  }
  return problemIn('RunContext', context) === undefined ? { text, context: context as RunContext } : { text };
}
