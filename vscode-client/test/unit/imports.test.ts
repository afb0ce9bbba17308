import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

// No import circle in src/, counting `import type` too. `npm run lint`'s import/no-cycle
// (eslint-plugin-import) keeps runtime circles out but does not follow type-only imports; the
// webview's items.ts ↔ cards.ts / assistant.ts circle was one of types (now webview/ctx.ts).

/** The relative modules a source imports or re-exports from (`import type` included). */
function importsOf(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('.'));
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(root)) {
    const deps = importsOf(readFileSync(file, 'utf8')).flatMap((spec) => {
      const base = resolve(dirname(file), spec);
      const found = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
      return found ? [relative(root, found)] : [];
    });
    graph.set(relative(root, file), deps);
  }
  return graph;
}

/** The strongly connected components of more than one module (and self-imports): the circles. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

test('src/ has no import circle, type-only imports included', () => {
  const graph = importGraph('src');
  assert.ok(graph.size > 40, `read ${graph.size} modules`);
  assert.ok(graph.get(join('webview', 'cards.ts'))?.includes(join('webview', 'ctx.ts')), 'type imports are edges');
  assert.deepEqual(circles(graph), []);
});

test('the circle finder sees a circle of type imports (guard the guard)', () => {
  assert.deepEqual(importsOf("import type { Ctx } from './items';\nexport { x } from '../y';\nimport 'z';"), ['./items', '../y']);
  const graph = new Map([
    ['items.ts', ['cards.ts', 'dom.ts']],
    ['cards.ts', ['items.ts']],
    ['dom.ts', []],
    ['self.ts', ['self.ts']],
  ]);
  assert.deepEqual(circles(graph), [['cards.ts', 'items.ts'], ['self.ts']]);
});
