// Packages the extension for release (docs/release.md):
//
//   node scripts/package.mjs --target universal|linux-x64|linux-arm64|darwin-x64|darwin-arm64|win32-x64
//                            [--wheel dist/pi_lsp-X-py3-none-any.whl] [--out DIR]
//
// universal: the extension alone; it finds a pi-lsp the user installed (src/install/sources.ts).
// A platform target also carries the server: pi-lsp and its dependencies installed with
// `pip install --target bundled/libs --platform … --only-binary=:all:` once per supported
// CPython (3.11, 3.12, 3.13) and merged — the pure-Python files are the same, the compiled
// modules' names carry their Python version (`_pydantic_core.cpython-312-…so`), so one folder
// serves every version — and `vsce package --target`. The wheel is the one `python -m build`
// made (else pi-lsp==<version> from the index). Prints `vsix <file> <bytes>` per package.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const PYTHONS = ['3.11', '3.12', '3.13'];
const linux = (arch) => ['manylinux2014', 'manylinux_2_17', 'manylinux_2_24', 'manylinux_2_27', 'manylinux_2_28'].map((t) => `${t}_${arch}`);
const mac = (arch) => ['10_9', '10_12', '10_13', '10_15', '11_0', '12_0', '13_0', '14_0']
  .flatMap((v) => [`macosx_${v}_${arch}`, `macosx_${v}_universal2`]);
export const PLATFORMS = {
  'linux-x64': linux('x86_64'),
  'linux-arm64': linux('aarch64'),
  'darwin-x64': mac('x86_64'),
  'darwin-arm64': mac('arm64'),
  'win32-x64': ['win_amd64'],
};

const argv = process.argv.slice(2);
const option = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const target = option('--target', 'universal');
const wheel = option('--wheel');
const out = resolve(option('--out', '.'));
const python = process.env.PI_PACKAGE_PYTHON || 'python3';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const LIBS = join('bundled', 'libs');

function sh(cmd, args, env = {}) {
  execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
}

/** Copy `from` into `to`, keeping what is there (the first Python's files win; the compiled
 * modules of the others have their own names). */
function merge(from, to) {
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    const dst = join(to, name);
    if (statSync(src).isDirectory()) {
      if (!existsSync(dst)) cpSync(src, dst, { recursive: true });
      else merge(src, dst);
    } else if (!existsSync(dst)) {
      cpSync(src, dst);
    }
  }
}

function prune(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === '__pycache__' || (dir === LIBS && name === 'bin')) rmSync(p, { recursive: true, force: true });
    else if (statSync(p).isDirectory()) prune(p);
  }
}

const PIP = ['-m', 'pip', 'install', '--quiet', '--no-compile', '--no-warn-conflicts', '--root-user-action=ignore'];

/** What the dependencies depend on: the wheel's Requires-Dist lines (or the spec). */
function requirements(spec) {
  if (!wheel) return spec;
  return execFileSync(python, ['-c', [
    'import sys, zipfile',
    'z = zipfile.ZipFile(sys.argv[1])',
    'meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))',
    'print("\\n".join(l for l in z.read(meta).decode().splitlines() if l.startswith("Requires-Dist")))',
  ].join('\n'), spec], { encoding: 'utf8' });
}

/** Is `name` (a top-level entry of bundled/libs) pi-lsp's own? */
const isPiLsp = (name) => name === 'pi_lsp' || /^pi_lsp-.*\.dist-info$/.test(name);

function bundle(platform) {
  const tags = PLATFORMS[platform];
  if (!tags) throw new Error(`unknown target ${platform} (one of universal, ${Object.keys(PLATFORMS).join(', ')})`);
  const spec = wheel ? resolve(wheel) : `pi-lsp==${pkg.version}`;
  rmSync(LIBS, { recursive: true, force: true });
  // PI_VSIX_DEPS_CACHE (.ci/release.sh: ~/.cache/pi-lsp-ci/vsix-deps): the dependencies of a
  // target, kept per dependency list, so a rebuild installs only the pi-lsp wheel (no network)
  const key = createHash('sha256').update(JSON.stringify({ platform, tags, PYTHONS, req: requirements(spec) })).digest('hex').slice(0, 16);
  const cached = process.env.PI_VSIX_DEPS_CACHE ? join(process.env.PI_VSIX_DEPS_CACHE, `${platform}-${key}`) : undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'pi-bundle-'));
  try {
    if (cached && existsSync(join(cached, '.complete'))) {
      cpSync(cached, LIBS, { recursive: true });
      rmSync(join(LIBS, '.complete'));
      sh(python, [...PIP, '--no-deps', '--target', join(scratch, 'own'), spec]);
      merge(join(scratch, 'own'), LIBS);
      console.log(`dependencies from ${cached}`);
    } else {
      for (const version of PYTHONS) {
        const dir = join(scratch, version);
        sh(python, [...PIP, '--target', dir, ...tags.flatMap((t) => ['--platform', t]), '--python-version', version,
          '--implementation', 'cp', '--only-binary=:all:', spec]);
        if (!existsSync(LIBS)) cpSync(dir, LIBS, { recursive: true });
        else merge(dir, LIBS);
      }
    }
    prune(LIBS);
    if (platform.startsWith('linux-')) strip(LIBS);
    if (cached && !existsSync(join(cached, '.complete'))) {
      const partial = `${cached}.partial`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      for (const name of readdirSync(LIBS).filter((n) => !isPiLsp(n))) cpSync(join(LIBS, name), join(partial, name), { recursive: true });
      writeFileSync(join(partial, '.complete'), `${new Date().toISOString()}\n`);
      rmSync(cached, { recursive: true, force: true });
      renameSync(partial, cached);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The compiled modules' debug symbols (uvloop's are ≈ 14 MB a Python version) are no use to
 * users: GNU strip drops them where it knows the architecture; elsewhere they stay. */
function strip(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) strip(p);
    else if (name.endsWith('.so')) {
      try {
        execFileSync('strip', ['--strip-unneeded', p], { stdio: 'ignore' });
      } catch {
        console.log(`kept the symbols of ${p} (strip could not handle it)`);
      }
    }
  }
}

function main() {
  sh('node', ['scripts/build.mjs', '--production']);
  const file = join(out, `pi-lsp-${target}-${pkg.version}.vsix`);
  try {
    if (target === 'universal') rmSync(LIBS, { recursive: true, force: true });
    else bundle(target);
    const vsce = join('node_modules', '.bin', 'vsce');
    sh(vsce, ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license',
      ...(target === 'universal' ? [] : ['--target', target]), '-o', file]);
  } finally {
    // the checkout stays as it was: `npm run package` (universal) never picks up bundled/libs
    rmSync(LIBS, { recursive: true, force: true });
  }
  console.log(`vsix ${file} ${statSync(file).size}`);
}

main();
