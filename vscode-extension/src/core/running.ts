/**
 * Background commands (bash's `run_in_background`) as the editor shows them: the rows of
 * the Conversation view's Running section and the status-bar count, kept from the
 * server's `background` events and `workspaceAgent/background` lists; the words each row
 * and the status bar say; what the status bar's menu offers; and Show Output's text as it
 * follows the command's output. No `vscode` here: src/running.ts wires it.
 */
import type { BackgroundCommand, BackgroundOutputResult, BackgroundPort, BackgroundState } from '../protocol';

/** One background command, with the session it belongs to. */
export interface RunningRow {
  sessionId: string;
  id: string;
  command: string;
  state: BackgroundState;
  exitCode: number | null;
  toolUseId: string | null;
  todoId: string | null;
  startedAt: string;
  endedAt?: string;
  ports: BackgroundPort[];
  sandboxed: boolean;
  outputBytes: number;
  note?: string;
}

/** What a row is made from: a `background` event, or an entry of a list. */
export type BackgroundFields = BackgroundCommand;

export class RunningList {
  private readonly rows = new Map<string, RunningRow>();

  /** A `background` event: the command's whole state. */
  accept(sessionId: string, fields: BackgroundFields): void {
    this.rows.set(key(sessionId, fields.id), rowOf(sessionId, fields));
  }

  /** A `backgroundOutput` event: how much it wrote (Show Output reads from there). */
  wrote(sessionId: string, id: string, outputBytes: number): void {
    const row = this.rows.get(key(sessionId, id));
    if (row) {
      row.outputBytes = outputBytes;
    }
  }

  /** `workspaceAgent/background`'s answer: the session's commands as the server has them. */
  replace(sessionId: string, commands: BackgroundFields[]): void {
    for (const [k, row] of this.rows) {
      if (row.sessionId === sessionId) {
        this.rows.delete(k);
      }
    }
    for (const command of commands) {
      this.accept(sessionId, command);
    }
  }

  /** The server stopped: what it ran is gone with it. */
  serverStopped(now: Date): void {
    for (const row of this.rows.values()) {
      if (row.state === 'running') {
        Object.assign(row, { state: 'stopped', ports: [], endedAt: now.toISOString(), note: 'stopped when the server stopped' });
      }
    }
  }

  /** A session's commands, oldest first. */
  of(sessionId: string | undefined): RunningRow[] {
    return [...this.rows.values()].filter((row) => row.sessionId === sessionId).sort(byNumber);
  }

  /** The commands running now, of every session. */
  running(): RunningRow[] {
    return [...this.rows.values()].filter((row) => row.state === 'running').sort(byNumber);
  }

  find(sessionId: string, id: string): RunningRow | undefined {
    return this.rows.get(key(sessionId, id));
  }
}

/** Ended commands the Running section keeps showing (the latest), besides those running. */
export const ENDED_SHOWN = 3;

/** The Running section's rows: every running command, then the latest that ended (their output stays readable). */
export function shownRows(rows: RunningRow[]): RunningRow[] {
  const ended = rows.filter((row) => row.state !== 'running').slice(-ENDED_SHOWN);
  return rows.filter((row) => row.state === 'running' || ended.includes(row));
}

/** "12 s", "3 min 5 s", "2 h 7 min": how long it has run (or ran). */
export function elapsed(row: Pick<RunningRow, 'startedAt' | 'endedAt'>, now: Date): string {
  const end = row.endedAt ? Date.parse(row.endedAt) : now.getTime();
  const seconds = Math.max(0, Math.floor((end - Date.parse(row.startedAt)) / 1000));
  if (seconds < 60) {
    return `${seconds} s`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ${seconds % 60} s`;
  }
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** How it stands, in words: "running for 2 min 3 s", "exited with status 1", "stopped by the user". */
export function stateWords(row: RunningRow, now: Date): string {
  if (row.state === 'running') {
    return `running for ${elapsed(row, now)}`;
  }
  if (row.state === 'exited') {
    return `exited with status ${row.exitCode ?? 'unknown'} after ${elapsed(row, now)}`;
  }
  return row.note ?? 'stopped';
}

/** A port as its link shows it: "localhost:5173", with where it leads in its title. */
export function portLabel(port: BackgroundPort): { text: string; title: string } {
  const text = `localhost:${port.hostPort}`;
  const title = port.forwarded
    ? `Open ${port.url} in the browser (the host's port ${port.hostPort} leads to port ${port.port} in the sandbox)`
    : `Open ${port.url} in the browser`;
  return { text, title };
}

/** The status bar's count (undefined: nothing runs, the item hides). */
export function runningStatus(running: RunningRow[]): { text: string; tooltip: string; label: string } | undefined {
  if (!running.length) {
    return undefined;
  }
  const lines = running.map((row) => {
    const ports = row.ports.map((port) => `localhost:${port.hostPort}`).join(', ');
    return `${row.id} ${shortCommand(row.command)}${ports ? ` (${ports})` : ''}`;
  });
  const many = running.length === 1 ? 'background command runs' : 'background commands run';
  return {
    text: `$(server-process) ${running.length}`,
    tooltip: `${running.length} ${many}:\n${lines.join('\n')}\nClick to open a port, show the output or stop one.`,
    label: `${running.length} ${many}`,
  };
}

export type RunningChoice =
  | { action: 'open'; row: RunningRow; url: string }
  | { action: 'output'; row: RunningRow }
  | { action: 'stop'; row: RunningRow }
  | { action: 'stopAll' };

/** The status bar's menu: each port to open, each output to show, each command to stop, Stop All. */
export function runningChoices(running: RunningRow[]): { label: string; description?: string; choice: RunningChoice }[] {
  const items: { label: string; description?: string; choice: RunningChoice }[] = [];
  for (const row of running) {
    for (const port of row.ports) {
      items.push({ label: `$(globe) Open ${port.url}`, description: `${row.id} ${shortCommand(row.command)}`, choice: { action: 'open', row, url: port.url } });
    }
    items.push({ label: `$(output) Show Output of ${row.id}`, description: shortCommand(row.command), choice: { action: 'output', row } });
    items.push({ label: `$(debug-stop) Stop ${row.id}`, description: shortCommand(row.command), choice: { action: 'stop', row } });
  }
  if (running.length > 1) {
    items.push({ label: '$(debug-stop) Stop All', description: `${running.length} background commands`, choice: { action: 'stopAll' } });
  }
  return items;
}

/** Show Output's text: what was read so far, following the command's output (the last `cap` characters). */
export class OutputFollower {
  text = '';
  offset = 0;

  constructor(
    readonly title: string,
    private readonly cap = 2_000_000,
  ) {}

  /** An answer of workspaceAgent/backgroundOutput, read from `offset`. */
  accept(result: BackgroundOutputResult): void {
    if (result.dropped) {
      this.text += `\n[… ${result.dropped.toLocaleString('en-US')} bytes no longer kept (only the last 10 MB are) …]\n`;
    }
    this.text += result.text;
    this.offset = result.offset;
    if (this.text.length > this.cap) {
      this.text = this.text.slice(this.text.length - this.cap);
    }
  }

  /** The document's content: the command, then its output. */
  content(): string {
    return `$ ${this.title}\n${this.text}`;
  }
}

function rowOf(sessionId: string, fields: BackgroundFields): RunningRow {
  const row: RunningRow = {
    sessionId,
    id: fields.id,
    command: fields.command,
    state: fields.state,
    exitCode: fields.exitCode,
    toolUseId: fields.toolUseId,
    todoId: fields.todoId,
    startedAt: fields.startedAt,
    ports: [...fields.ports],
    sandboxed: fields.sandboxed,
    outputBytes: fields.outputBytes,
  };
  if (fields.endedAt !== undefined) {
    row.endedAt = fields.endedAt;
  }
  if (fields.note !== undefined) {
    row.note = fields.note;
  }
  return row;
}

export function shortCommand(command: string, limit = 60): string {
  const one = command.split(/\s+/).join(' ').trim();
  return one.length <= limit ? one : `${one.slice(0, limit - 1)}…`;
}

function key(sessionId: string, id: string): string {
  return `${sessionId}\u0000${id}`;
}

function byNumber(a: RunningRow, b: RunningRow): number {
  return number(a.id) - number(b.id) || a.sessionId.localeCompare(b.sessionId);
}

function number(id: string): number {
  const found = /^b(\d+)$/.exec(id);
  return found ? Number(found[1]) : 0;
}
