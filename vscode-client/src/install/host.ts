// The editor side of src/install/: real processes and files for the pure resolveServer and
// installManaged, the extension's own folders, the one-click install with its progress.

import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { isExecutable, pythonInterpreter } from '../server';
import { installManaged, type InstallResult } from './managed';
import { resolveServer, type Resolution } from './sources';

type RunResult = { code: number | null; stdout: string; stderr: string };

function run(command: string, args: string[], timeoutMs: number, onLine?: (line: string) => void): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : null) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (err && code === null ? err.message : '')) });
    });
    if (onLine) {
      child.stdout?.on('data', (d: Buffer) => d.toString().split('\n').filter(Boolean).forEach(onLine));
      child.stderr?.on('data', (d: Buffer) => d.toString().split('\n').filter(Boolean).forEach(onLine));
    }
  });
}

function readFile(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export function managedDir(context: vscode.ExtensionContext): string {
  return path.join(context.globalStorageUri.fsPath, 'venv');
}

export function extensionVersion(context: vscode.ExtensionContext): string {
  const v = (context.extension?.packageJSON as { version?: unknown } | undefined)?.version;
  return typeof v === 'string' ? v : '0.0.0';
}

/** The server to start, in the order of sources.ts. */
export async function resolveFromEditor(context: vscode.ExtensionContext, log: (line: string) => void, skipBundled = false): Promise<Resolution> {
  const cfg = vscode.workspace.getConfiguration('pi');
  return resolveServer({
    setting: cfg.get<string>('server.command') ?? '',
    settingArgs: cfg.get<string[]>('server.args') ?? [],
    pythonInterpreter: await pythonInterpreter(),
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    pathEnv: process.env.PATH ?? '',
    platform: process.platform,
    isExecutable,
    extensionPath: context.extensionPath,
    managedDir: managedDir(context),
    skipBundled,
    exists: (f) => fs.existsSync(f),
    readFile,
    run: (c, a) => run(c, a, 60_000),
    log,
  });
}

/** "Install server": the managed environment, made with `python`, with a progress notification. */
export async function installServer(context: vscode.ExtensionContext, python: string, log: (line: string) => void): Promise<InstallResult> {
  const dir = managedDir(context);
  const version = extensionVersion(context);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `pi: installing pi-lsp ${version}` },
    async (progress) =>
      installManaged(dir, python, version, {
        platform: process.platform,
        exists: (f) => fs.existsSync(f),
        remove: (d) => fs.promises.rm(d, { recursive: true, force: true }),
        writeFile: (f, text) => fs.promises.writeFile(f, text),
        run: (c, a) =>
          run(c, a, 15 * 60_000, (line) => {
            log(line);
            progress.report({ message: line.slice(0, 80) });
          }),
        log: (line) => {
          log(line);
          progress.report({ message: line });
        },
      }),
  );
}

/** The set-up section of the extension's README (shown for "no Python ≥ 3.11"). */
export async function openSetupDocs(context: vscode.ExtensionContext): Promise<void> {
  await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.joinPath(context.extensionUri, 'README.md'));
}
