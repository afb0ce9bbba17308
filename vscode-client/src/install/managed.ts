// The managed environment: a venv in the extension's global storage that "pi: Install server"
// makes with a Python ≥ 3.11 and fills with the pi-lsp of this extension's version. A marker
// file written last says the install finished: a venv without it (the install stopped
// half-way: no network, a full disk, VS Code closed) is never used, and the next install
// removes and rebuilds it. Processes and files are injected so unit tests cover every step.

import * as path from 'path';

export const MARKER = 'pi-install.json';

export type ManagedState =
  | { kind: 'none' }
  | { kind: 'ready'; command: string; version?: string }
  | { kind: 'broken'; reason: string };

export function managedPaths(dir: string, platform: NodeJS.Platform): { python: string; server: string; marker: string } {
  const bin = platform === 'win32' ? 'Scripts' : 'bin';
  const exe = platform === 'win32' ? '.exe' : '';
  return {
    python: path.join(dir, bin, `python${exe}`),
    server: path.join(dir, bin, `pi-lsp${exe}`),
    marker: path.join(dir, MARKER),
  };
}

export function managedServer(
  dir: string,
  io: { exists(file: string): boolean; readFile(file: string): string | undefined; isExecutable(file: string): boolean; platform: NodeJS.Platform },
): ManagedState {
  if (!io.exists(dir)) return { kind: 'none' };
  const p = managedPaths(dir, io.platform);
  const text = io.readFile(p.marker);
  if (text === undefined) return { kind: 'broken', reason: `no ${MARKER}: the install did not finish` };
  let version: string | undefined;
  try {
    const v = (JSON.parse(text) as { version?: unknown }).version;
    version = typeof v === 'string' ? v : undefined;
  } catch {
    return { kind: 'broken', reason: `${MARKER} is not JSON` };
  }
  if (!io.isExecutable(p.server)) return { kind: 'broken', reason: `${p.server} is missing` };
  return { kind: 'ready', command: p.server, version };
}

export interface InstallIO {
  platform: NodeJS.Platform;
  exists(file: string): boolean;
  remove(dir: string): Promise<void>;
  writeFile(file: string, text: string): Promise<void>;
  /** Run a command to its end, each output line to `log`; never throws. */
  run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  log(line: string): void;
}

export type InstallResult = { ok: true; command: string } | { ok: false; message: string };

/** `pi-lsp==<version>`: the server this extension was released with. */
export function installSpec(version: string): string {
  return `pi-lsp==${version}`;
}

/** Make (or rebuild) the managed environment with `python` and install the server into it. */
export async function installManaged(dir: string, python: string, version: string, io: InstallIO): Promise<InstallResult> {
  const p = managedPaths(dir, io.platform);
  const fail = (step: string, r: { code: number | null; stderr: string; stdout: string }): InstallResult => {
    const detail = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-3).join(' ');
    return { ok: false, message: `pi: installing the server failed at "${step}" (exit ${String(r.code)}): ${detail}` };
  };
  if (io.exists(dir)) {
    io.log(`removing ${dir} (a new install replaces what is there, finished or not)`);
    await io.remove(dir);
  }
  io.log(`making ${dir} with ${python}`);
  let r = await io.run(python, ['-m', 'venv', dir]);
  if (r.code !== 0) return fail(`${python} -m venv`, r);
  const spec = installSpec(version);
  io.log(`installing ${spec}`);
  r = await io.run(p.python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', spec]);
  if (r.code !== 0) return fail(`pip install ${spec}`, r);
  r = await io.run(p.server, ['--version']);
  if (r.code !== 0 || r.stdout.trim() !== `pi-lsp ${version}`) return fail(`${p.server} --version`, r);
  await io.writeFile(p.marker, JSON.stringify({ version, python }) + '\n');
  io.log(`installed ${r.stdout.trim()} in ${dir}`);
  return { ok: true, command: p.server };
}
