// Unit tests: bundle test/unit/*.test.ts with esbuild (no vscode), run them with node:test,
// and print one "N passed, N failed" line at the end.
import * as esbuild from 'esbuild';
import { readdirSync, mkdirSync, rmSync } from 'node:fs';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import path from 'node:path';

const dir = 'test/unit';
const out = 'out/unit';
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts'));
await esbuild
  .build({
  entryPoints: files.map((f) => path.join(dir, f)),
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  logLevel: 'warning',
  external: ['vscode', 'typescript'],
  })
  .catch((err) => {
    console.error(err.message);
    console.log('\n0 passed, 1 failed (the unit tests did not build)');
    process.exit(1);
  });
let passed = 0;
let failed = 0;
let skipped = 0;
const stream = run({ files: files.map((f) => path.join(out, f.replace(/\.ts$/, '.js'))), concurrency: 1 });
stream.on('test:pass', (t) => {
  if (t.details?.type === 'suite') return;
  if (t.skip || t.todo) skipped++;
  else passed++;
});
stream.on('test:fail', (t) => {
  if (t.details?.type === 'suite') return;
  failed++;
});
const reporter = stream.compose(spec);
reporter.pipe(process.stdout, { end: false });
await new Promise((resolve) => reporter.on('end', resolve));
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 ? 1 : 0;
