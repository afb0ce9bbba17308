// Where the server comes from (src/install/sources.ts) and the managed environment
// (src/install/managed.ts): every source in order, the bundled server's Python and its
// fallback, the "no Python ≥ 3.11" message, a half-installed venv never used and rebuilt.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { installManaged, managedServer, MARKER } from '../../src/install/managed';
import { newEnough, resolveServer, type SourcesInput } from '../../src/install/sources';
import { protocolWarning, REQUIRED_PROTOCOL } from '../../src/install/version';

type Run = { code: number | null; stdout: string; stderr: string };

/** A machine: executables, files, and what each Python answers. */
function machine(opts: {
  exe?: string[];
  files?: Record<string, string>;
  pythons?: Record<string, string>;
  check?: Run;
  over?: Partial<SourcesInput>;
}) {
  const exe = new Set(opts.exe ?? []);
  const files = opts.files ?? {};
  const logs: string[] = [];
  const calls: string[][] = [];
  const input: SourcesInput = {
    setting: '',
    settingArgs: [],
    workspaceFolders: ['/ws'],
    pathEnv: '/usr/bin:/opt/bin',
    platform: 'linux',
    isExecutable: (f) => exe.has(f),
    extensionPath: '/ext',
    managedDir: '/storage/venv',
    exists: (f) => f in files || exe.has(f) || Object.keys(files).some((k) => k.startsWith(f + '/')),
    readFile: (f) => files[f],
    run: async (command, args) => {
      calls.push([command, ...args]);
      if (args.includes('--check')) return opts.check ?? { code: 0, stdout: 'pi-lsp 0.1.0 (bundled)', stderr: '' };
      const v = (opts.pythons ?? {})[command];
      return v ? { code: 0, stdout: `${v}\n`, stderr: '' } : { code: 1, stdout: '', stderr: 'no' };
    },
    log: (l) => logs.push(l),
    ...opts.over,
  };
  return { input, logs, calls };
}

const BUNDLED = { '/ext/bundled/libs/pi_lsp/__init__.py': '', '/ext/bundled/launch.py': '' };

describe('server sources, in order', () => {
  test('the setting first, then the workspace environment, both before the bundled server', async () => {
    const m = machine({ exe: ['/x/pi-lsp', '/ws/.venv/bin/pi-lsp', '/usr/bin/python3'], files: BUNDLED, pythons: { '/usr/bin/python3': '3.12.1' } });
    m.input.setting = '/x/pi-lsp';
    assert.equal(((await resolveServer(m.input)) as { source: string }).source, 'setting');
    m.input.setting = '';
    assert.equal(((await resolveServer(m.input)) as { source: string }).source, 'venv');
  });
  test('the bundled server runs isolated with the Python extension\'s interpreter when it is ≥ 3.11', async () => {
    const m = machine({
      exe: ['/env/bin/python', '/usr/bin/python3', '/usr/bin/pi-lsp'],
      files: BUNDLED,
      pythons: { '/env/bin/python': '3.11.7', '/usr/bin/python3': '3.13.0' },
      over: { pythonInterpreter: '/env/bin/python' },
    });
    assert.deepEqual(await resolveServer(m.input), { found: true, command: '/env/bin/python', args: ['-I', '/ext/bundled/launch.py'], source: 'bundled' });
  });
  test('an interpreter older than 3.11 gives way to python3 on PATH', async () => {
    const m = machine({
      exe: ['/env/bin/python', '/usr/bin/python3'],
      files: BUNDLED,
      pythons: { '/env/bin/python': '3.9.18', '/usr/bin/python3': '3.12.1' },
      over: { pythonInterpreter: '/env/bin/python' },
    });
    assert.equal(((await resolveServer(m.input)) as { command: string }).command, '/usr/bin/python3');
  });
  test('a bundled server that fails its check falls back to PATH, the reason in the log', async () => {
    const m = machine({
      exe: ['/usr/bin/python3', '/opt/bin/pi-lsp'],
      files: BUNDLED,
      pythons: { '/usr/bin/python3': '3.12.1' },
      check: { code: 1, stdout: '', stderr: 'Traceback …\nImportError: /lib/libc.so.6: version `GLIBC_2.28\' not found' },
    });
    const r = await resolveServer(m.input);
    assert.deepEqual(r, { found: true, command: '/opt/bin/pi-lsp', args: [], source: 'path' });
    assert.ok(m.logs.some((l) => l.includes('the bundled server does not start with /usr/bin/python3') && l.includes('GLIBC_2.28')), m.logs.join('\n'));
  });
  test('skipBundled (it failed to start): the next source', async () => {
    const m = machine({ exe: ['/usr/bin/python3', '/opt/bin/pi-lsp'], files: BUNDLED, pythons: { '/usr/bin/python3': '3.12.1' }, over: { skipBundled: true } });
    assert.equal(((await resolveServer(m.input)) as { source: string }).source, 'path');
    assert.ok(!m.calls.some((c) => c.includes('--check')));
  });
  test('a universal .vsix (nothing bundled) keeps the PATH discovery', async () => {
    const m = machine({ exe: ['/usr/bin/pi-lsp'] });
    assert.equal(((await resolveServer(m.input)) as { source: string }).source, 'path');
  });
  test('the managed environment last, when its install finished', async () => {
    const m = machine({ exe: ['/storage/venv/bin/pi-lsp'], files: { [`/storage/venv/${MARKER}`]: '{"version":"0.1.0"}' } });
    assert.deepEqual(await resolveServer(m.input), { found: true, command: '/storage/venv/bin/pi-lsp', args: [], source: 'managed' });
  });
});

describe('nothing found', () => {
  test('no Python ≥ 3.11 anywhere: says which Python was found and what is needed', async () => {
    const m = machine({ exe: ['/usr/bin/python3'], files: BUNDLED, pythons: { '/usr/bin/python3': '3.9.2' } });
    const r = await resolveServer(m.input);
    assert.equal(r.found, false);
    assert.equal(
      (r as { message: string }).message,
      'pi: pi-lsp needs Python 3.11 or newer, and found /usr/bin/python3 3.9.2. Install Python 3.11+ (or select one with the Python extension), or set pi.server.command to a pi-lsp.',
    );
    assert.equal((r as { python?: string }).python, undefined);
  });
  test('no Python at all', async () => {
    const r = await resolveServer(machine({}).input);
    assert.match((r as { message: string }).message, /needs Python 3\.11 or newer, and no Python was found/);
  });
  test('a Python ≥ 3.11 but no server: the one-click install, with that Python', async () => {
    const m = machine({ exe: ['/usr/bin/python3'], pythons: { '/usr/bin/python3': '3.11.7' } });
    const r = await resolveServer(m.input);
    assert.equal(r.found, false);
    assert.equal((r as { python?: string }).python, '/usr/bin/python3');
    assert.match((r as { message: string }).message, /Install server/);
  });
  test('a half-installed managed environment is not used, and said so', async () => {
    const m = machine({ exe: ['/usr/bin/python3', '/storage/venv/bin/pi-lsp'], files: { '/storage/venv/pyvenv.cfg': '' }, pythons: { '/usr/bin/python3': '3.11.7' } });
    const r = await resolveServer(m.input);
    assert.equal(r.found, false);
    assert.equal((r as { brokenManaged?: boolean }).brokenManaged, true);
    assert.ok(m.logs.some((l) => l.includes('is incomplete')));
  });
  test('version comparison', () => {
    assert.equal(newEnough('3.11.0'), true);
    assert.equal(newEnough('3.10.13'), false);
    assert.equal(newEnough('4.0'), true);
    assert.equal(newEnough(undefined), false);
  });
});

describe('the managed environment', () => {
  const io = () => {
    const ops: string[] = [];
    const files: Record<string, string> = {};
    let present = new Set<string>();
    let failPip = false;
    return {
      ops,
      files,
      setPresent: (p: string[]) => (present = new Set(p)),
      failPipOnce: () => (failPip = true),
      io: {
        platform: 'linux' as NodeJS.Platform,
        exists: (f: string) => present.has(f),
        remove: async (d: string) => {
          ops.push(`rm ${d}`);
          present.delete(d);
        },
        writeFile: async (f: string, t: string) => {
          ops.push(`write ${f}`);
          files[f] = t;
        },
        run: async (c: string, a: string[]): Promise<Run> => {
          ops.push([c, ...a].join(' '));
          if (a.includes('pip') && failPip) {
            failPip = false;
            return { code: 1, stdout: '', stderr: 'ERROR: Could not find a version that satisfies the requirement pi-lsp==0.1.0' };
          }
          if (a[0] === '--version') return { code: 0, stdout: 'pi-lsp 0.1.0\n', stderr: '' };
          return { code: 0, stdout: '', stderr: '' };
        },
        log: () => undefined,
      },
    };
  };
  test('venv, pip install of this version, a check, then the marker (written last)', async () => {
    const t = io();
    const r = await installManaged('/s/venv', '/usr/bin/python3', '0.1.0', t.io);
    assert.deepEqual(r, { ok: true, command: '/s/venv/bin/pi-lsp' });
    assert.deepEqual(t.ops, [
      '/usr/bin/python3 -m venv /s/venv',
      '/s/venv/bin/python -m pip install --disable-pip-version-check --no-input pi-lsp==0.1.0',
      '/s/venv/bin/pi-lsp --version',
      `write /s/venv/${MARKER}`,
    ]);
  });
  test('a failed install leaves no marker (never used), and the next install rebuilds from scratch', async () => {
    const t = io();
    t.failPipOnce();
    const r = await installManaged('/s/venv', '/usr/bin/python3', '0.1.0', t.io);
    assert.equal(r.ok, false);
    assert.match((r as { message: string }).message, /failed at "pip install pi-lsp==0\.1\.0" \(exit 1\): ERROR: Could not find/);
    assert.equal(Object.keys(t.files).length, 0);
    const state = managedServer('/s/venv', { exists: (f) => f === '/s/venv', readFile: () => undefined, isExecutable: () => true, platform: 'linux' });
    assert.equal(state.kind, 'broken');
    t.setPresent(['/s/venv']);
    t.ops.length = 0;
    assert.equal((await installManaged('/s/venv', '/usr/bin/python3', '0.1.0', t.io)).ok, true);
    assert.equal(t.ops[0], 'rm /s/venv');
  });
  test('a marker that is not JSON or a missing server is broken too', () => {
    const base = { exists: () => true, isExecutable: () => true, platform: 'linux' as NodeJS.Platform };
    assert.equal(managedServer('/s/venv', { ...base, readFile: () => 'oops' }).kind, 'broken');
    assert.equal(managedServer('/s/venv', { ...base, readFile: () => '{}', isExecutable: () => false }).kind, 'broken');
    assert.deepEqual(managedServer('/s/venv', { ...base, readFile: () => '{"version":"0.1.0"}' }), { kind: 'ready', command: '/s/venv/bin/pi-lsp', version: '0.1.0' });
  });
});

describe('protocol version', () => {
  test('a server older than the extension needs gets a warning naming both', () => {
    assert.equal(protocolWarning(REQUIRED_PROTOCOL, '0.1.0', '0.1.0'), undefined);
    assert.match(protocolWarning(2, '0.0.9', '0.1.0') ?? '', /pi-lsp 0\.0\.9\) speaks pi protocol v2; this extension \(0\.1\.0\) needs v3/);
    assert.match(protocolWarning(null, undefined, '0.1.0') ?? '', /v1/);
  });
});
