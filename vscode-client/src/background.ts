// The per-workspace background server (`pi.server.mode: "background"`): one
// `pi-lsp --socket PATH --idle-timeout S` per workspace root, detached from VS Code, so a run
// goes on through a window reload and the next window re-attaches to it.
//
// The scheme is the Neovim plugin's `server.tcp = "auto"` (editors/neovim/lua/pi/background.lua),
// so either editor finds the workspace's server: in the state directory (mode 0700),
// `<key>.json` (mode 0600) records `{root, socket, pid}`, `<key>.sock` is the server's Unix
// domain socket (created 0600 by the server: no other user can connect) and `<key>.log` its
// log; `<key>` is the first 16 hex digits of sha256(root). Node only (no vscode): unit-tested.

import { spawn } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

export interface Record_ {
  root: string;
  socket: string;
  pid: number;
}

/** Where Neovim's plugin keeps its records by default: `stdpath("state")/pi`. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(home, '.local', 'state');
  return path.join(state, 'nvim', 'pi');
}

/** The workspace root a server serves: the folder (several folders: their paths, one a line). */
export function workspaceRoot(folders: string[]): string | undefined {
  return folders.length === 0 ? undefined : folders.join('\n');
}

export function paths(dir: string, root: string): { record: string; socket: string; log: string } {
  const key = createHash('sha256').update(root).digest('hex').slice(0, 16);
  const base = path.join(dir, key);
  return { record: `${base}.json`, socket: `${base}.sock`, log: `${base}.log` };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The recorded server of this root when it still runs, else undefined. */
export function findServer(dir: string, root: string): Record_ | undefined {
  const p = paths(dir, root);
  let rec: Partial<Record_>;
  try {
    rec = JSON.parse(fs.readFileSync(p.record, 'utf8')) as Partial<Record_>;
  } catch {
    return undefined;
  }
  if (rec.root !== root || typeof rec.pid !== 'number' || typeof rec.socket !== 'string') return undefined;
  if (!isAlive(rec.pid) || !fs.existsSync(rec.socket)) return undefined;
  return rec as Record_;
}

export interface StartOptions {
  command: string;
  args: string[];
  dir: string;
  root: string;
  /** The workspace folder the server runs in. */
  cwd: string;
  idleTimeout: number;
  env: NodeJS.ProcessEnv;
  /** How long to wait for the socket (ms). */
  timeoutMs?: number;
}

/** Make the state directory ours and private (0700); refuse one of another user. */
export function privateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new Error(`${dir} belongs to another user`);
  }
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

/** Start this root's background server; resolves with its record once it listens. */
export async function startServer(o: StartOptions): Promise<Record_> {
  privateDir(o.dir);
  const p = paths(o.dir, o.root);
  fs.rmSync(p.socket, { force: true }); // left by a server that died (findServer saw none)
  const args = [...o.args, '--socket', p.socket, '--log-file', p.log, '--idle-timeout', String(o.idleTimeout)];
  // Detached, stdio ignored: it outlives this window and never writes to a closed pipe.
  const child = spawn(o.command, args, { cwd: o.cwd, detached: true, stdio: 'ignore', env: o.env });
  let exited: string | undefined;
  child.on('exit', (code, signal) => {
    exited = `exit ${code ?? signal}`;
  });
  child.on('error', (err) => {
    exited = err.message;
  });
  child.unref();
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  while (!fs.existsSync(p.socket)) {
    if (exited !== undefined) throw new Error(`pi-lsp --socket did not start (${exited}; log: ${p.log})`);
    if (Date.now() > deadline) throw new Error(`pi-lsp --socket did not listen within ${(o.timeoutMs ?? 30_000) / 1000} s (log: ${p.log})`);
    await new Promise((r) => setTimeout(r, 25));
  }
  if (child.pid === undefined) throw new Error(`pi-lsp --socket did not start (log: ${p.log})`);
  const rec: Record_ = { root: o.root, socket: p.socket, pid: child.pid };
  fs.writeFileSync(p.record, JSON.stringify(rec), { mode: 0o600 });
  fs.chmodSync(p.record, 0o600);
  return rec;
}

export function connectSocket(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(socketPath);
    sock.once('connect', () => {
      sock.removeListener('error', reject);
      resolve(sock);
    });
    sock.once('error', reject);
  });
}

/** Connect to this root's server: the running one, else one started now. */
export async function ensureConnected(o: StartOptions): Promise<{ socket: net.Socket; record: Record_; started: boolean }> {
  const found = findServer(o.dir, o.root);
  if (found) {
    try {
      return { socket: await connectSocket(found.socket), record: found, started: false };
    } catch {
      // it is going away (idle exit) or hung: start another below
    }
  }
  const record = await startServer(o);
  return { socket: await connectSocket(record.socket), record, started: true };
}

/** Stop this root's server (SIGTERM: its runs are aborted and saved) and wait for it to go. */
export async function stopServer(dir: string, root: string, timeoutMs = 10_000): Promise<boolean> {
  const rec = findServer(dir, root);
  if (!rec) return false;
  try {
    process.kill(rec.pid, 'SIGTERM');
  } catch {
    return false;
  }
  const deadline = Date.now() + timeoutMs;
  while (isAlive(rec.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return !isAlive(rec.pid);
}
