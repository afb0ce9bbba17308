import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { defaultStateDir, ensureConnected, findServer, isAlive, paths, stopServer, workspaceRoot } from '../../src/background';
import { serverModeFor } from '../../src/settings';

describe('pi.server.mode', () => {
  test('background by default where there are sockets and a folder; stdio otherwise', () => {
    assert.equal(serverModeFor(undefined, 'linux', true), 'background');
    assert.equal(serverModeFor('background', 'darwin', true), 'background');
    assert.equal(serverModeFor('stdio', 'linux', true), 'stdio');
    assert.equal(serverModeFor('background', 'win32', true), 'stdio');
    assert.equal(serverModeFor('background', 'linux', false), 'stdio');
  });
});

describe('background server records (the Neovim plugin\'s scheme)', () => {
  test('the key is the first 16 hex digits of sha256(root), as in background.lua', () => {
    const key = createHash('sha256').update('/home/me/proj').digest('hex').slice(0, 16);
    assert.deepEqual(paths('/s', '/home/me/proj'), { record: `/s/${key}.json`, socket: `/s/${key}.sock`, log: `/s/${key}.log` });
  });
  test('the state directory is Neovim\'s stdpath("state")/pi', () => {
    assert.equal(defaultStateDir({ XDG_STATE_HOME: '/x/state' }, '/home/me'), '/x/state/nvim/pi');
    assert.equal(defaultStateDir({}, '/home/me'), '/home/me/.local/state/nvim/pi');
    assert.equal(defaultStateDir({ XDG_STATE_HOME: 'relative' }, '/home/me'), '/home/me/.local/state/nvim/pi');
  });
  test('a workspace root is its folder (several: one a line); none without a folder', () => {
    assert.equal(workspaceRoot(['/a']), '/a');
    assert.equal(workspaceRoot(['/a', '/b']), '/a\n/b');
    assert.equal(workspaceRoot([]), undefined);
  });
});

describe('the real pi-lsp --socket, started, found again, stopped', () => {
  const server = process.env.PI_LSP_SERVER || resolve(__dirname, '..', '..', '..', '.venv', 'bin', 'pi-lsp');
  const scratch = mkdtempSync(join(tmpdir(), 'pi-bg-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  test('one server per root, private files, reused by the next connection, ended by stopServer', async () => {
    assert.ok(existsSync(server), `pi-lsp not found at ${server} (make the repo's .venv or set PI_LSP_SERVER)`);
    const dir = join(scratch, 'state');
    const root = join(scratch, 'ws');
    const opts = { command: server, args: [], dir, root, cwd: scratch, idleTimeout: 60, env: process.env };
    const first = await ensureConnected(opts);
    try {
      assert.equal(first.started, true);
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(statSync(paths(dir, root).record).mode & 0o777, 0o600);
      assert.equal(statSync(first.record.socket).mode & 0o777, 0o600);
      assert.deepEqual(JSON.parse(readFileSync(paths(dir, root).record, 'utf8')), first.record);
      first.socket.destroy();
      const second = await ensureConnected(opts);
      second.socket.destroy();
      assert.equal(second.started, false);
      assert.equal(second.record.pid, first.record.pid);
    } finally {
      assert.equal(await stopServer(dir, root), true);
    }
    assert.equal(isAlive(first.record.pid), false);
    assert.equal(findServer(dir, root), undefined);
  });
});
