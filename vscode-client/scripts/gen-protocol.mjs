// Regenerates the wire types from the server's pydantic models, the one source of truth:
//   1. `python -m pi_lsp.lsp.protocol.schema` writes ../docs/protocol.schema.json
//   2. json-schema-to-typescript turns that file into src/protocol/generated.ts
// Both outputs are checked in. Usage (from vscode-client/):
//   npm run gen:protocol          both steps (Python: $PI_LSP_PYTHON, else ../.venv/bin/python, else python3)
//   node scripts/gen-protocol.mjs --check
//                                 step 2 into memory only; exit 1 when generated.ts differs from the
//                                 checked-in schema's output (the pytest suite runs this)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const here = dirname(fileURLToPath(import.meta.url));
const client = join(here, '..');
const repo = join(client, '..');
const schemaPath = join(repo, 'docs', 'protocol.schema.json');
const tsPath = join(client, 'src', 'protocol', 'generated.ts');
const check = process.argv.includes('--check');

const BANNER = `// GENERATED FILE: do not edit. The wire types of the pi/* protocol, from
// docs/protocol.schema.json (itself generated from pi_lsp/lsp/protocol/models.py, contract.py).
// Regenerate with \`cd vscode-client && npm run gen:protocol\`.`;

function python() {
  if (process.env.PI_LSP_PYTHON) return process.env.PI_LSP_PYTHON;
  const venv = join(repo, '.venv', 'bin', 'python');
  return existsSync(venv) ? venv : 'python3';
}

if (!check) {
  const py = python();
  const r = spawnSync(py, ['-m', 'pi_lsp.lsp.protocol.schema', schemaPath], { cwd: repo, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`gen-protocol: ${py} -m pi_lsp.lsp.protocol.schema failed (status ${r.status ?? r.error})`);
    process.exit(1);
  }
}

const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const ts = await compile(schema, 'PiProtocol', {
  bannerComment: BANNER,
  // the models' fields are the contract; no `[k: string]: unknown` on every interface
  additionalProperties: false,
  unreachableDefinitions: true,
  strictIndexSignatures: true,
  format: true,
  style: { singleQuote: true, printWidth: 120 },
});

if (check) {
  const current = existsSync(tsPath) ? readFileSync(tsPath, 'utf8') : '';
  if (current !== ts) {
    console.error(
      'gen-protocol: src/protocol/generated.ts is not what docs/protocol.schema.json generates; ' +
        'run `cd vscode-client && npm run gen:protocol` and commit the result',
    );
    process.exit(1);
  }
  console.log('gen-protocol: src/protocol/generated.ts is current');
} else {
  writeFileSync(tsPath, ts);
  console.log(`gen-protocol: wrote ${schemaPath} and ${tsPath}`);
}
