// Where the server comes from, in order (docs/editors.md#vs-code, README "VS Code"):
//   1. the `pi.server.command` setting;
//   2. the workspace's environment (the Python extension's interpreter, `.venv`, `venv`);
//   3. the server bundled in a platform .vsix (bundled/libs), run with the Python extension's
//      interpreter when it is ≥ 3.11, else a `python3` / `python` ≥ 3.11 on PATH — after a
//      `--check` that imports its compiled parts, so a wheel this machine cannot load falls
//      back to the next source with the reason in the log;
//   4. `pi-lsp` on PATH;
//   5. the managed environment "pi: Install server" made (a venv in the extension's global
//      storage; one whose install stopped half-way is never used).
// Nothing found: a message that says which Python was found and what is needed, or offers the
// one-click install. The core is pure (processes and files injected) so unit tests cover it.

import * as path from 'path';
import { discover, type Discovery, type DiscoveryInput } from '../discovery';
import { managedServer, type ManagedState } from './managed';

export const MIN_PYTHON: readonly [number, number] = [3, 11];

export type Found = Extract<Discovery, { found: true }>;

export interface PythonInfo {
  command: string;
  /** "3.12.1", or undefined when it did not run. */
  version?: string;
}

export type Resolution =
  | Found
  | {
      found: false;
      message: string;
      installCommand: string;
      /** A Python ≥ 3.11 the one-click install can use (none: the message says what is needed). */
      python?: string;
      /** The managed environment exists but its install did not finish (rebuilt on install). */
      brokenManaged?: boolean;
    };

export interface SourcesInput extends DiscoveryInput {
  /** The extension's folder (bundled/launch.py, bundled/libs). */
  extensionPath: string;
  /** The managed environment's folder (global storage). */
  managedDir: string;
  /** Skip the bundled server (it failed to start: the next source is tried). */
  skipBundled?: boolean;
  exists(file: string): boolean;
  readFile(file: string): string | undefined;
  /** Run a command (a short probe, with a timeout); never throws. */
  run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  log(line: string): void;
}

export function bundledLaunch(extensionPath: string): { launch: string; libs: string } {
  const dir = path.join(extensionPath, 'bundled');
  return { launch: path.join(dir, 'launch.py'), libs: path.join(dir, 'libs') };
}

export function parseVersion(text: string): [number, number, number] | undefined {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

export function newEnough(version: string | undefined): boolean {
  const v = version ? parseVersion(version) : undefined;
  return !!v && (v[0] > MIN_PYTHON[0] || (v[0] === MIN_PYTHON[0] && v[1] >= MIN_PYTHON[1]));
}

const VERSION_PROBE = ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'];

/** The Pythons to try, in order: the Python extension's interpreter, then python3 / python
 * on PATH (python.exe / py on Windows). */
export function pythonCandidates(input: Pick<SourcesInput, 'pythonInterpreter' | 'pathEnv' | 'platform' | 'isExecutable'>): string[] {
  const names = input.platform === 'win32' ? ['python.exe', 'py.exe'] : ['python3', 'python'];
  const out: string[] = [];
  if (input.pythonInterpreter) out.push(input.pythonInterpreter);
  const sep = input.platform === 'win32' ? ';' : ':';
  for (const name of names) {
    for (const dir of input.pathEnv.split(sep)) {
      if (!dir) continue;
      const candidate = path.join(dir, name);
      if (input.isExecutable(candidate) && !out.includes(candidate)) {
        out.push(candidate);
        break;
      }
    }
  }
  return out;
}

/** Every candidate Python with its version (probed), in order. */
export async function probePythons(input: SourcesInput): Promise<PythonInfo[]> {
  const found: PythonInfo[] = [];
  for (const command of pythonCandidates(input)) {
    const r = await input.run(command, VERSION_PROBE);
    found.push({ command, version: r.code === 0 ? r.stdout.trim() : undefined });
  }
  return found;
}

/** The first Python ≥ 3.11, or undefined. */
export function pickPython(pythons: PythonInfo[]): string | undefined {
  return pythons.find((p) => newEnough(p.version))?.command;
}

/** "no Python on PATH", or "/usr/bin/python3 3.9.2, /usr/bin/python (did not run)". */
export function describePythons(pythons: PythonInfo[]): string {
  if (pythons.length === 0) return 'no Python was found (neither the Python extension\'s interpreter nor python3 on PATH)';
  return `found ${pythons.map((p) => `${p.command} ${p.version ?? '(did not run)'}`).join(', ')}`;
}

export function noPythonMessage(pythons: PythonInfo[]): string {
  return `pi: pi-lsp needs Python ${MIN_PYTHON.join('.')} or newer, and ${describePythons(pythons)}. Install Python ${MIN_PYTHON.join('.')}+ (or select one with the Python extension), or set pi.server.command to a pi-lsp.`;
}

/** The server to start, or why there is none. */
export async function resolveServer(input: SourcesInput): Promise<Resolution> {
  // 1-2: the setting (its error stands: the user chose it), then the workspace's environment
  if (input.setting.trim()) return discover(input);
  const workspace = discover({ ...input, pathEnv: '' });
  if (workspace.found) return workspace;
  let pythons: PythonInfo[] | undefined;
  // 3: the bundled server, with a Python ≥ 3.11
  const { launch, libs } = bundledLaunch(input.extensionPath);
  if (!input.skipBundled && input.exists(path.join(libs, 'pi_lsp'))) {
    pythons = await probePythons(input);
    const python = pickPython(pythons);
    if (!python) {
      input.log(`the bundled server needs Python ${MIN_PYTHON.join('.')}+: ${describePythons(pythons)}; trying PATH`);
    } else {
      const args = ['-I', launch];
      const check = await input.run(python, [...args, '--check']);
      if (check.code === 0) return { found: true, command: python, args, source: 'bundled' };
      const reason = (check.stderr.trim().split('\n').pop() ?? '') || `exit code ${String(check.code)}`;
      input.log(`the bundled server does not start with ${python} (${reason}); trying the next source`);
    }
  }
  // 4: PATH
  const onPath = discover({ ...input, pythonInterpreter: undefined, workspaceFolders: [] });
  if (onPath.found) return onPath;
  // 5: the managed environment
  const managed: ManagedState = managedServer(input.managedDir, input);
  if (managed.kind === 'ready') return { found: true, command: managed.command, args: [], source: 'managed' };
  if (managed.kind === 'broken') input.log(`the managed environment ${input.managedDir} is incomplete (${managed.reason}); "Install server" rebuilds it`);
  pythons ??= await probePythons(input);
  const python = pickPython(pythons);
  if (!python) return { found: false, message: noPythonMessage(pythons), installCommand: onPath.installCommand };
  return {
    found: false,
    message: `pi: the pi-lsp server was not found (not in the workspace's Python environment, bundled with this extension, on PATH or installed by pi). Install it with one click ("Install server", into a private environment made with ${python}), or with \`${onPath.installCommand}\`, or set pi.server.command.`,
    installCommand: onPath.installCommand,
    python,
    brokenManaged: managed.kind === 'broken',
  };
}
