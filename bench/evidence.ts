/**
 * Evidence benchmark: p50/p99 of a one-hop SPARQL query and of a page search on the static snapshot.
 * Run: `npx tsx --import ./bench/register-text-loader.mjs bench/evidence.ts`
 *
 * How it measures, and why:
 * - SPARQL: workerd's clock does not advance during synchronous code, so an in-Worker timer around the (synchronous)
 *   oxigraph query reads 0. We time the same engine version (oxigraph 0.5.11, its Node build) in Node over the real
 *   snapshot graph, running each query through the same `prepareQuery` rewrite (prefixes, label service, LIMIT).
 * - Search: D1 FTS5 runs in Miniflare's local workerd/SQLite, driven from Node through the D1 binding proxy with the
 *   same `searchCorpus` code. Each call includes a local HTTP round trip to workerd, so the figure is an upper bound
 *   of what the Worker sees.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import oxigraph from 'oxigraph';
import { checkBudget } from '../src/evidence/sparql/budget';
import { prepareQuery } from '../src/evidence/sparql/prepare';
import { createOxigraph } from '../src/generated/oxigraph/engine.js';
import { searchCorpus } from '../src/evidence/static/corpus';
import { parsePage } from '../src/evidence/static/pages';

const root = new URL('..', import.meta.url).pathname;
const files = (dir: string, ext: string) =>
  existsSync(join(root, dir)) ? readdirSync(join(root, dir)).filter((f) => f.endsWith(ext)).map((f) => ({ file: `${dir}/${f}`, text: readFileSync(join(root, dir, f), 'utf8') })) : [];

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const report = (name: string, xs: number[]) =>
  console.log(`${name.padEnd(44)} p50 ${pct(xs, 50).toFixed(3)} ms   p99 ${pct(xs, 99).toFixed(3)} ms   (n=${xs.length})`);

const time = async (n: number, f: () => unknown) => {
  for (let i = 0; i < 20; i++) await f();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    xs.push(performance.now() - t);
  }
  return xs;
};

const graph = files('data/snapshot/graph', '.ttl');
const snapshotPages = files('data/snapshot/pages', '.md');
// Until the snapshot pages land, the search figure uses the test fixture pages (said so in the output).
const pageFiles = snapshotPages.length ? snapshotPages : (await import('../tests/evidence/fixture')).fixtureBundle.pages;
const pages = pageFiles.map(parsePage);
console.log(`snapshot: ${graph.length} graph files, ${pages.length} pages${snapshotPages.length ? '' : ' (test fixture pages: data/snapshot/pages is empty)'}`);

const store = new oxigraph.Store();
for (const f of graph) store.load(f.text, { format: 'text/turtle' });
console.log(`triples: ${store.size}`);

const oneHop = 'SELECT ?place ?placeLabel WHERE { wd:Q42 wdt:P19 ?place . SERVICE wikibase:label { bd:serviceParam wikibase:language "en". } }';
const plain = 'SELECT ?place WHERE { wd:Q42 wdt:P19 ?place }';
for (const [name, q] of [['SPARQL one-hop (plain)', plain], ['SPARQL one-hop + label service', oneHop]] as const) {
  report(name, await time(500, () => store.query(prepareQuery(q, { emulateWdqs: true, maxRows: 1000 }).text, { results_format: 'application/sparql-results+json' })));
}

// The engine the Worker really runs: the same oxigraph with the work meter and memory cap compiled in
// (cli/build-oxigraph.mjs), and the pre-run budget check (parse + estimate) that every static query passes.
const metered = createOxigraph(new WebAssembly.Module(readFileSync(join(root, 'src/generated/oxigraph/engine.wasm'))));
const meteredStore = new metered.Store();
for (const f of graph) meteredStore.load(f.text, { format: 'text/turtle' });
const select = (text: string) => JSON.parse(String(meteredStore.query(text, { results_format: 'application/sparql-results+json' }))).results.bindings;
const [all] = select('SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?o) AS ?no) WHERE { ?s ?p ?o }');
const stats = {
  triples: Number(all.n.value),
  subjects: Number(all.ns.value),
  objects: Number(all.no.value),
  predicates: new Map<string, { count: number; subjects: number; objects: number }>(
    select('SELECT ?p (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?o) AS ?no) WHERE { ?s ?p ?o } GROUP BY ?p').map(
      (r: Record<string, { value: string }>) => [r.p.value, { count: Number(r.n.value), subjects: Number(r.ns.value), objects: Number(r.no.value) }],
    ),
  ),
};
for (const [name, q] of [['metered engine: one-hop (plain)', plain], ['metered engine: one-hop + label service', oneHop]] as const) {
  const text = prepareQuery(q, { emulateWdqs: true, maxRows: 1000 }).text;
  report(name, await time(500, () => {
    metered.exports.__fuel.value = 20_000_000;
    return meteredStore.query(text, { results_format: 'application/sparql-results+json' });
  }));
  report(`budget check (parse + estimate): ${name.slice(16)}`, await time(500, () => checkBudget(text, stats)));
}

if (pages.length) {
  const mf = new Miniflare({ modules: true, script: 'export default { fetch() { return new Response(null) } }', d1Databases: ['DB'] });
  const db = (await mf.getD1Database('DB')) as unknown as D1Database;
  await searchCorpus(db, pages, 'warm up', 5);
  const queries = ['Douglas Adams', 'who directed the film', 'capital city river', 'band album released', 'company founded headquarters'];
  report('D1 proxy baseline (SELECT 1, subtract)', await time(300, () => db.prepare('SELECT 1').first()));
  let i = 0;
  report('search (D1 FTS5 via Miniflare proxy)', await time(300, () => searchCorpus(db, pages, queries[i++ % queries.length], 5)));
  await mf.dispose();
} else console.log('search: skipped (data/snapshot/pages is empty)');
