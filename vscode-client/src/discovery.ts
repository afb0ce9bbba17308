// Finding the pi-lsp server: the `pi.server.command` setting, else `pi-lsp` in the workspace's
// Python environment (the Python extension's interpreter, then `.venv/bin/pi-lsp`), else on
// PATH. The core is pure (file checks injected) so unit tests cover every branch.

import * as path from 'path';

export interface DiscoveryInput {
  /** `pi.server.command` (a path or a command name; empty = unset). */
  setting: string;
  /** `pi.server.args`. */
  settingArgs: string[];
  /** The Python extension's selected interpreter for the workspace, when known. */
  pythonInterpreter?: string;
  workspaceFolders: string[];
  /** The PATH environment variable. */
  pathEnv: string;
  platform: NodeJS.Platform;
  isExecutable(file: string): boolean;
}

export type Discovery =
  | { found: true; command: string; args: string[]; source: 'setting' | 'python' | 'venv' | 'path' | 'bundled' | 'managed' }
  | { found: false; message: string; installCommand: string };

export function discover(input: DiscoveryInput): Discovery {
  const exe = input.platform === 'win32' ? 'pi-lsp.exe' : 'pi-lsp';
  const binDir = input.platform === 'win32' ? 'Scripts' : 'bin';
  if (input.setting.trim()) {
    const cmd = input.setting.trim();
    const resolved = cmd.includes('/') || cmd.includes('\\') ? cmd : onPath(cmd, input);
    if (resolved && input.isExecutable(resolved)) {
      return { found: true, command: resolved, args: input.settingArgs, source: 'setting' };
    }
    return {
      found: false,
      message: `pi: the server command \`${cmd}\` from the setting pi.server.command was not found or is not executable.`,
      installCommand: installCommand(input.pythonInterpreter),
    };
  }
  if (input.pythonInterpreter) {
    const candidate = path.join(path.dirname(input.pythonInterpreter), exe);
    if (input.isExecutable(candidate)) return { found: true, command: candidate, args: [], source: 'python' };
  }
  for (const folder of input.workspaceFolders) {
    for (const venv of ['.venv', 'venv']) {
      const candidate = path.join(folder, venv, binDir, exe);
      if (input.isExecutable(candidate)) return { found: true, command: candidate, args: [], source: 'venv' };
    }
  }
  const fromPath = onPath(exe, input);
  if (fromPath) return { found: true, command: fromPath, args: [], source: 'path' };
  const pip = installCommand(input.pythonInterpreter);
  return {
    found: false,
    message: `pi: the pi-lsp server was not found (not in the Python environment, .venv or PATH). Install it with \`${pip}\`, or set pi.server.command.`,
    installCommand: pip,
  };
}

/** The exact command that installs the server into the workspace's Python. */
export function installCommand(interpreter?: string): string {
  const py = interpreter ? quote(interpreter) : 'python3';
  return `${py} -m pip install pi-lsp`;
}

function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function onPath(name: string, input: DiscoveryInput): string | undefined {
  const sep = input.platform === 'win32' ? ';' : ':';
  for (const dir of input.pathEnv.split(sep)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (input.isExecutable(candidate)) return candidate;
  }
  return undefined;
}
