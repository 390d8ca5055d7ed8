// The console's terminals: login shells in pseudo-terminals (node-pty) whose
// environment points etcdctl and kubectl at the embedded cluster, so a person
// can type `etcdctl member list` with no flags. Output is batched per terminal
// (one terminalData event per flush interval, not one per read) because a busy
// command can produce thousands of small reads a second, and each event
// crosses IPC or a WebSocket.

import { basename } from 'node:path';
import * as pty from 'node-pty';
import type { EventSink, TerminalInfo } from '../../preload/contract';
import { missingToolHints } from './terminalTools';

export interface TerminalServiceOptions {
  /** Added to the inherited environment: KUBECONFIG, the ETCDCTL_* variables. */
  env: Record<string, string>;
  cwd: string;
  events: EventSink;
  /** Default: $SHELL, else /bin/bash. */
  shell?: string;
  /** Open terminals at most (default 8): each is a process and a pty. */
  maxTerminals?: number;
  /** Output batching interval in ms (default 16, about one frame). */
  flushMs?: number;
}

interface OpenTerminal {
  id: string;
  proc: pty.IPty;
  pending: string;
  timer?: NodeJS.Timeout;
  exited: Promise<void>;
}

const MAX_DIMENSION = 1000;
const DISPOSE_GRACE_MS = 3000;

function checkSize(cols: unknown, rows: unknown): { cols: number; rows: number } {
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_DIMENSION;
  if (!ok(cols) || !ok(rows)) throw new Error(`invalid terminal size ${String(cols)}x${String(rows)}: cols and rows must be integers in 1..${MAX_DIMENSION}`);
  return { cols, rows };
}

/** The inherited environment, minus what would confuse a shell started by Electron, plus ours. */
export function terminalEnv(base: NodeJS.ProcessEnv, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  // Set for our own child processes under Electron; a shell's node would misbehave with it.
  delete env.ELECTRON_RUN_AS_NODE;
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  return { ...env, ...extra };
}

export class TerminalService {
  private readonly terminals = new Map<string, OpenTerminal>();
  private readonly shell: string;
  private readonly max: number;
  private readonly flushMs: number;
  private counter = 0;
  private disposed = false;

  constructor(private readonly opts: TerminalServiceOptions) {
    this.shell = opts.shell ?? process.env.SHELL ?? '/bin/bash';
    this.max = opts.maxTerminals ?? 8;
    this.flushMs = opts.flushMs ?? 16;
  }

  open(req: { cols: number; rows: number }): TerminalInfo {
    if (this.disposed) throw new Error('the terminal service is shut down');
    const { cols, rows } = checkSize(req?.cols, req?.rows);
    if (this.terminals.size >= this.max) throw new Error(`too many terminals (${this.max} open); close one first`);
    const env = terminalEnv(process.env, this.opts.env);
    const name = basename(this.shell);
    // A login shell reads the user's profile, as a terminal emulator's would.
    const args = name === 'bash' || name === 'zsh' ? ['-l'] : [];
    const proc = pty.spawn(this.shell, args, { name: 'xterm-256color', cols, rows, cwd: this.opts.cwd, env });
    const id = `t${++this.counter}`;
    let resolveExit!: () => void;
    const term: OpenTerminal = { id, proc, pending: '', exited: new Promise((r) => (resolveExit = r)) };
    this.terminals.set(id, term);
    proc.onData((data) => this.buffer(term, data));
    proc.onExit(({ exitCode, signal }) => {
      this.flush(term);
      this.terminals.delete(id);
      // A signal death reads as the shell reports it: 128 + signal number.
      const code = signal ? 128 + signal : exitCode;
      this.opts.events.emit('terminalExit', { id, code });
      resolveExit();
    });
    return { id, title: `${name} ${this.counter}`, missingTools: missingToolHints(env.PATH ?? '') };
  }

  input(req: { id: string; data: string }): void {
    if (typeof req?.data !== 'string') throw new Error('terminal input must be a string');
    this.get(req.id).proc.write(req.data);
  }

  resize(req: { id: string; cols: number; rows: number }): void {
    const { cols, rows } = checkSize(req?.cols, req?.rows);
    this.get(req.id).proc.resize(cols, rows);
  }

  /** Hang up the shell's process group; idempotent (closing a finished terminal is fine). */
  close(req: { id: string }): void {
    const term = this.terminals.get(req?.id);
    if (term) signalTerminal(term, 'SIGHUP');
  }

  /** Hang up every terminal, wait for them to exit, SIGKILL what remains after a grace period. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const open = [...this.terminals.values()];
    for (const term of open) signalTerminal(term, 'SIGHUP');
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((r) => (timer = setTimeout(r, DISPOSE_GRACE_MS)));
    await Promise.race([Promise.all(open.map((t) => t.exited)), grace]);
    clearTimeout(timer);
    for (const term of this.terminals.values()) signalTerminal(term, 'SIGKILL');
    await Promise.race([Promise.all(open.map((t) => t.exited)), new Promise((r) => setTimeout(r, 500))]);
  }

  /** How many terminals are open (for tests and the overview). */
  get size(): number {
    return this.terminals.size;
  }

  private get(id: string): OpenTerminal {
    const term = this.terminals.get(id);
    if (!term) throw new Error(`terminal ${String(id)} not found`);
    return term;
  }

  private buffer(term: OpenTerminal, data: string): void {
    term.pending += data;
    term.timer ??= setTimeout(() => this.flush(term), this.flushMs);
  }

  private flush(term: OpenTerminal): void {
    clearTimeout(term.timer);
    term.timer = undefined;
    if (!term.pending) return;
    const data = term.pending;
    term.pending = '';
    this.opts.events.emit('terminalData', { id: term.id, data });
  }
}

/** Signal the shell's process group (the pty made the shell a session and group leader), else the shell alone. */
function signalTerminal(term: OpenTerminal, signal: NodeJS.Signals): void {
  try {
    process.kill(-term.proc.pid, signal);
  } catch {
    try {
      process.kill(term.proc.pid, signal);
    } catch {
      // Already gone: onExit follows or has run.
    }
  }
}
