import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * "Dependencies point down; no two files import each other" (ARCHITECTURE.md), checked on the real import graph of
 * the Worker code. Type-only imports count too: a cycle of types is still two modules that cannot be read apart.
 * Also runnable alone: `npx vitest run --project node tests/node/import-cycles.test.ts`.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name.endsWith('.d.ts')) return [];
    return statSync(p).isDirectory() ? sources(p) : /\.(ts|mts|mjs|js)$/.test(name) ? [p] : [];
  });

// Static imports and re-exports (`import x from`, `import type {…} from`, `export * from`, `import './side'`) and
// dynamic `import('…')` with a literal specifier. Comments are stripped first so prose cannot add an edge.
const SPECIFIERS = /(?:^|[;\n}])\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\bfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const stripComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const resolveLocal = (from: string, spec: string): string | undefined => {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  const stem = base.replace(/\.(js|mjs)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.mts`, `${base}.mjs`, `${base}.js`, join(base, 'index.ts'), join(base, 'index.mjs')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile() && /\.(ts|mts|mjs|js)$/.test(c));
};

export const importGraph = (roots: string[]): Map<string, string[]> => {
  const graph = new Map<string, string[]>();
  for (const file of roots.flatMap((r) => sources(join(ROOT, r)))) {
    const code = stripComments(readFileSync(file, 'utf8'));
    const targets = new Set<string>();
    for (const m of code.matchAll(SPECIFIERS)) {
      const target = resolveLocal(file, m[1] ?? m[2]);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
};

/** Strongly connected components with more than one file (or a file importing itself): each one is a cycle. */
export const cycles = (graph: Map<string, string[]>): string[][] => {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.map((f) => relative(ROOT, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
};

describe('import graph', () => {
  const graph = importGraph(['src', 'durable-objects']);

  it('reads the real imports (the check is not vacuous)', () => {
    const agentRunImports = [...graph.entries()].find(([f]) => f.endsWith(join('durable-objects', 'run-object.ts')))?.[1] ?? [];
    expect(agentRunImports.map((f) => relative(ROOT, f))).toContain(join('src', 'engine', 'types.ts'));
    expect(graph.size).toBeGreaterThan(100);
  });

  it('has no import cycle in src/ and durable-objects/', () => {
    expect(cycles(graph), 'files that import each other, directly or through others').toEqual([]);
  });

  it('keeps the engine ignorant of the strategies', () => {
    const engineToStrategies = [...graph.entries()]
      .filter(([f]) => relative(ROOT, f).startsWith(join('src', 'engine')))
      .flatMap(([f, targets]) => targets.filter((t) => relative(ROOT, t).startsWith(join('src', 'strategies'))).map((t) => `${relative(ROOT, f)} → ${relative(ROOT, t)}`));
    expect(engineToStrategies).toEqual([]);
  });
});
