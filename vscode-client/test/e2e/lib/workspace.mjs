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

/** A free 127.0.0.1 port (for the scripted model server the workspace settings point at). */
export async function freePort() {
  const { createServer } = await import('node:net');
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** The workspace settings of a test run: this checkout's server, the scripted model. */
export function piSettings(server, modelPort) {
  return {
    'pi.server.command': server,
    'pi.provider': 'openai-compatible',
    'pi.baseUrl': `http://127.0.0.1:${modelPort}/v1`,
    'pi.model': 'test-model',
    'files.autoSave': 'off',
  };
}

export function createWorkspace(scratch, name, { settings = {} } = {}) {
  const ws = join(scratch, name);
  mkdirSync(join(ws, '.vscode'), { recursive: true });
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src', 'app.py'), APP_PY);
  writeFileSync(join(ws, 'README.md'), '# demo\n\nA tiny project the pi tests edit.\n');
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  return ws;
}
