import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, ROOT } from '../support/import-graph';

/**
 * "Dependencies point down; no two files import each other" (ARCHITECTURE.md), checked on the real import graph of
 * the Worker code. Type-only imports count too: a cycle of types is still two modules that cannot be read apart.
 * The graph is read by tests/support/import-graph.ts; the layer order itself is tests/node/layers.test.ts.
 * Also runnable alone: `npx vitest run --project node tests/node/import-cycles.test.ts`.
 */
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
