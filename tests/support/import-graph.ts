import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The import graph of the Worker code, read from the source text: what tests/node/import-cycles.test.ts and
 * tests/node/layers.test.ts check. Files are named by their path from the repository root with `/` separators.
 * Type-only imports count too: a cycle of types is still two modules that cannot be read apart, and a type imported
 * from a higher layer still makes the lower one depend on it.
 */
export const ROOT = resolve(import.meta.dirname, '../..');

/** Repository-relative with `/` separators, whatever the platform. */
export const repoPath = (file: string) => relative(ROOT, file).split(sep).join('/');

/** Every source file under `dir` (absolute), declaration files aside: they are ambient types that nothing imports. */
export const sources = (dir: string): string[] =>
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

/** The local source files that `code`, written at `file` (absolute, need not exist), imports. */
export const importsOf = (file: string, code: string): string[] => {
  const targets = new Set<string>();
  for (const m of stripComments(code).matchAll(SPECIFIERS)) {
    const target = resolveLocal(file, m[1] ?? m[2]);
    if (target) targets.add(target);
  }
  return [...targets];
};

/** File → the local files it imports, every path absolute, for the source files under `roots` (repository folders). */
export const importGraph = (roots: string[]): Map<string, string[]> =>
  new Map(roots.flatMap((r) => sources(join(ROOT, r))).map((file) => [file, importsOf(file, readFileSync(file, 'utf8'))]));

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

/** Every file reachable by imports from `entry` (absolute), `entry` included. */
export const reachable = (graph: Map<string, string[]>, entry: string): Set<string> => {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...(graph.get(file) ?? []));
  }
  return seen;
};
