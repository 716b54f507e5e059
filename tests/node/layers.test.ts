import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, importsOf, repoPath, ROOT } from '../support/import-graph';

/**
 * "Dependencies point down" (ARCHITECTURE.md, docs/DEVELOPING.md "Layout"), held on every import of src/ and
 * durable-objects/, type-only imports included. A file may import its own layer and any layer below it, never one
 * above. Two same-layer imports are refused as well: a strategy never imports another strategy (only the registry,
 * src/strategies/index.ts, names them all), and mcp never imports api (both are doors onto the run service, and the HTTP
 * routes are not MCP's library). And a run's storage migrations never import a strategy: each strategy upgrades its own
 * stored state (Strategy.upgradeState). Runnable alone: `npx vitest run --project node tests/node/layers.test.ts`.
 */

/** Top to bottom. A unit is a folder of src/ (`api`), a file directly in src/ (`index.ts`), or `durable-objects`. */
const LAYERS: string[][] = [
  ['index.ts', 'app.ts'], // the Worker entry: builds the Hono app, exports the Durable Object classes
  ['api', 'mcp'],
  ['runs'], // the one run service that the HTTP routes, the chat facade and MCP call
  ['durable-objects'],
  ['strategies'],
  ['engine', 'eval', 'telemetry', 'storage'],
  ['tools', 'fewshot'],
  ['evidence', 'web', 'vectors'],
  ['llm', 'embeddings'],
  ['config', 'sandbox', 'net', 'text', 'd1', 'generated', 'zod-bundle.ts'],
];

/** The unit a repository path belongs to; the config files (`src/config.ts`, `src/config-*.ts`) are one unit. */
const unitOf = (path: string): string => {
  const parts = path.split('/');
  if (parts[0] === 'durable-objects') return 'durable-objects';
  if (parts.length > 2) return parts[1];
  return /^config(-[\w-]+)?\.ts$/.test(parts[1]) ? 'config' : parts[1];
};
const layerOf = (unit: string) => LAYERS.findIndex((units) => units.includes(unit));
/** The numbered migrations of a run's stored state: they know no strategy (Strategy.upgradeState brings a state up). */
const RUN_MIGRATIONS = 'durable-objects/run/migrations.ts';
/** `hqa` for src/strategies/hqa/…; none for the registry src/strategies/index.ts. */
const strategyOf = (path: string) => (path.startsWith('src/strategies/') && path.split('/').length > 3 ? path.split('/')[2] : undefined);

/** Every import that breaks the order, as `from → to` (repository paths). */
const layerViolations = (edges: Array<[string, string]>): string[] =>
  edges.flatMap(([from, to]) => {
    const [a, b] = [unitOf(from), unitOf(to)];
    const [la, lb] = [layerOf(a), layerOf(b)];
    const edge = `${from} → ${to}`;
    if (la < 0 || lb < 0) return [`${edge} (${la < 0 ? a : b} is in no layer)`];
    if (lb < la) return [`${edge} (${b} is above ${a})`];
    if (a === 'mcp' && b === 'api') return [`${edge} (mcp never imports api)`];
    if (from === RUN_MIGRATIONS && to.startsWith('src/strategies/')) return [`${edge} (run storage upgrades a state through its strategy's upgradeState, never by importing one)`];
    const [sa, sb] = [strategyOf(from), strategyOf(to)];
    if (sa && sb && sa !== sb) return [`${edge} (strategies never import each other)`];
    return [];
  });

const edgesOf = (graph: Map<string, string[]>): Array<[string, string]> =>
  [...graph].flatMap(([from, targets]) => targets.map((to): [string, string] => [repoPath(from), repoPath(to)]));

describe('layer order', () => {
  const edges = edgesOf(importGraph(['src', 'durable-objects']));
  const found = layerViolations(edges);

  it('reads the real imports (the check is not vacuous)', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges).toContainEqual(['durable-objects/run-object.ts', 'src/engine/types.ts']);
    // A wrong import written where it would live: a tool that reaches up into a strategy, as the import-graph reader
    // reads it from source text. Added to the real graph it is the one violation reported.
    const wrongFile = join(ROOT, 'src/tools/fixture-wrong.ts');
    const wrong = importsOf(wrongFile, "import type { AgentState } from '../strategies/hqa/agent-state';\n").map((t): [string, string] => [repoPath(wrongFile), repoPath(t)]);
    expect(layerViolations([...edges, ...wrong]).filter((v) => !found.includes(v))).toEqual([
      'src/tools/fixture-wrong.ts → src/strategies/hqa/agent-state.ts (strategies is above tools)',
    ]);
    // The same-layer refusals and a file outside every layer.
    expect(
      layerViolations([
        ['src/strategies/rag/answer.ts', 'src/strategies/hqa/merge.ts'],
        ['src/strategies/index.ts', 'src/strategies/hqa/index.ts'],
        ['src/mcp/new-tool.ts', 'src/api/route-kit.ts'],
        ['src/api/mcp.ts', 'src/mcp/server.ts'],
        ['src/tools/read.ts', 'src/newfolder/thing.ts'],
        ['durable-objects/run/migrations.ts', 'src/strategies/index.ts'],
        ['durable-objects/run-object.ts', 'src/strategies/index.ts'],
      ]),
    ).toEqual([
      'src/strategies/rag/answer.ts → src/strategies/hqa/merge.ts (strategies never import each other)',
      'src/mcp/new-tool.ts → src/api/route-kit.ts (mcp never imports api)',
      'src/tools/read.ts → src/newfolder/thing.ts (newfolder is in no layer)',
      "durable-objects/run/migrations.ts → src/strategies/index.ts (run storage upgrades a state through its strategy's upgradeState, never by importing one)",
    ]);
  });

  it('every import in src/ and durable-objects/ points down', () => {
    expect(found, 'imports against the layer order').toEqual([]);
  });
});

// ---- docs/DEVELOPING.md draws the same layers ----------------------------------------------------------------------

const DEVELOPING = join(ROOT, 'docs/DEVELOPING.md');
/** Rebuilt by cli/build-bundle.mjs before every build and test run, not kept in git; named, its contents not. */
const GENERATED = 'src/generated/';

interface Layout {
  /** Layer groups in the order drawn, each with the paths named in it. */
  groups: Array<{ title: string; paths: string[] }>;
}

/**
 * The fenced block after the `## Layout` heading: `# title` lines start a group (one per layer, then one for the
 * ambient declarations that nothing imports), and a line that starts with `src/` or `durable-objects/` names a path
 * (a folder ends in `/`). Indented lines continue a description.
 */
const parseLayout = (markdown: string): Layout => {
  const section = markdown.split(/^## Layout$/m)[1] ?? '';
  const block = section.match(/^```\n([\s\S]*?)^```$/m)?.[1] ?? '';
  const groups: Layout['groups'] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('# ')) groups.push({ title: line.slice(2).trim(), paths: [] });
    else if (/^(src|durable-objects)\//.test(line) && groups.length) groups.at(-1)!.paths.push(line.split(/\s+/)[0]);
  }
  return { groups };
};

/** Every folder under src/ and durable-objects/ (prompt templates' `prompts/` folders and generated code aside), and the files directly in src/. */
const namesOnDisk = (): string[] => {
  const folders = (dir: string): string[] =>
    readdirSync(join(ROOT, dir))
      .filter((n) => statSync(join(ROOT, dir, n)).isDirectory() && n !== 'prompts')
      .flatMap((n) => {
        const path = `${dir}/${n}/`;
        return path === GENERATED ? [path] : [path, ...folders(path.slice(0, -1))];
      });
  const srcFiles = readdirSync(join(ROOT, 'src')).filter((n) => statSync(join(ROOT, 'src', n)).isFile()).map((n) => `src/${n}`);
  return ['durable-objects/', ...folders('durable-objects'), ...folders('src'), ...srcFiles].sort();
};

/** What the drawing gets wrong: names not on disk, things on disk not named, groups that are not the layers. */
const layoutProblems = ({ groups }: Layout, onDisk: string[]): string[] => {
  const named = groups.flatMap((g) => g.paths);
  const problems = [
    ...onDisk.filter((p) => !named.includes(p)).map((p) => `${p} is not in the layout`),
    ...named.filter((p) => !onDisk.includes(p) && p !== GENERATED).map((p) => `${p} is in the layout but not on disk`),
  ];
  if (groups.length !== LAYERS.length + 1) problems.push(`${groups.length} groups drawn for ${LAYERS.length} layers and the ambient declarations`);
  groups.slice(0, LAYERS.length).forEach((g, i) => {
    const units = [...new Set(g.paths.map((p) => unitOf(p.replace(/\/$/, '/x'))))];
    const expected = LAYERS[i] ?? [];
    if ([...units].sort().join() !== [...expected].sort().join()) problems.push(`group "${g.title}" holds ${units.join(', ')}; layer ${i + 1} is ${expected.join(', ')}`);
  });
  const ambient = groups[LAYERS.length]?.paths ?? [];
  if (!ambient.every((p) => p.endsWith('.d.ts'))) problems.push(`the last group is for ambient declarations only: ${ambient.join(', ')}`);
  return problems;
};

describe('docs/DEVELOPING.md layout', () => {
  const layout = parseLayout(readFileSync(DEVELOPING, 'utf8'));
  const onDisk = namesOnDisk();

  it('names every folder under src/ and durable-objects/ and nothing that is not there, grouped by layer', () => {
    expect(layoutProblems(layout, onDisk)).toEqual([]);
  });

  it('fails for a drawing that is wrong (the check is not vacuous)', () => {
    expect(onDisk).toContain('src/engine/attribution/');
    expect(existsSync(join(ROOT, 'src/engine/attribution'))).toBe(true);
    const wrong: Layout = {
      groups: layout.groups.map((g, i) => ({
        title: g.title,
        // a folder dropped, a folder that does not exist, and the engine drawn among the tools
        paths: [...g.paths.filter((p) => p !== 'src/engine/attribution/' && (i !== LAYERS.findIndex((l) => l.includes('engine')) || p !== 'src/engine/')), ...(i === 6 ? ['src/tools/gone/', 'src/engine/'] : [])],
      })),
    };
    expect(layoutProblems(wrong, onDisk)).toEqual([
      'src/engine/attribution/ is not in the layout',
      'src/tools/gone/ is in the layout but not on disk',
      expect.stringMatching(/^group ".*" holds tools, fewshot, engine; layer 7 is tools, fewshot$/),
    ]);
  });
});
