// A scratch workspace: a tiny Python project and the pi settings the tests start from.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const APP_PY = `def greet(name):
    return "Hello, " + name


def add(a, b):
    return a + b


if __name__ == "__main__":
    print(greet("world"))
`;

export function createWorkspace(scratch, name, { server, fixture = false, settings = {} } = {}) {
  const ws = join(scratch, name);
  mkdirSync(join(ws, '.vscode'), { recursive: true });
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src', 'app.py'), APP_PY);
  writeFileSync(join(ws, 'README.md'), '# demo\n\nA tiny project the pi tests edit.\n');
  const base = fixture ? {} : {
    'pi.server.command': server,
    'pi.provider': 'faux',
    'files.autoSave': 'off',
  };
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ ...base, ...settings }, null, 2));
  return ws;
}
