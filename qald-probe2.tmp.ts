import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkBudget } from './src/evidence/sparql/budget';
import { prepareQuery } from './src/evidence/sparql/prepare';
import { createOxigraph } from './src/generated/oxigraph/engine.js';
import { estimateCost } from './src/evidence/sparql/cost';
import { parseShape } from './src/evidence/sparql/parse-shape';
import { declaredPrefixes } from './src/evidence/sparql/safety';
import { significant, tokenize } from './src/evidence/sparql/tokenize';
const root = '/work/wt/newcomer/';
const graph = readdirSync(join(root, 'data/snapshot/graph')).filter((f) => f.endsWith('.ttl')).map((f) => readFileSync(join(root, 'data/snapshot/graph', f), 'utf8'));
const ox = createOxigraph(new WebAssembly.Module(readFileSync(join(root, 'src/generated/oxigraph/engine.wasm'))));
const store = new ox.Store();
for (const t of graph) store.load(t, { format: 'text/turtle', base_iri: 'http://www.wikidata.org/entity/' });
const select = (text: string) => JSON.parse(String(store.query(text, { results_format: 'application/sparql-results+json' }))).results.bindings;
const [all] = select('SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?o) AS ?no) WHERE { ?s ?p ?o }');
const stats = { triples: +all.n.value, subjects: +all.ns.value, objects: +all.no.value, predicates: new Map(select('SELECT ?p (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?o) AS ?no) WHERE { ?s ?p ?o } GROUP BY ?p').map((r: any) => [r.p.value, { count: +r.n.value, subjects: +r.ns.value, objects: +r.no.value }])) };
for (const p of ['P159','P31','P131','P279','P17']) console.log(p, stats.predicates.get('http://www.wikidata.org/prop/direct/'+p));
for (const sparql of process.argv.slice(2)) {
  const text = prepareQuery(sparql, { emulateWdqs: true, maxRows: 1000 }).text;
  const sig = significant(tokenize(text));
  const e = estimateCost(parseShape(sig, declaredPrefixes(sig)), stats as any);
  let verdict = 'ok';
  try { checkBudget(text, stats as any); } catch (err: any) { verdict = err.message.slice(0, 200); }
  ox.exports.__fuel.value = 0x7fffffff;
  let n = -1; try { n = JSON.parse(String(store.query(text, { results_format: 'application/sparql-results+json' }))).results.bindings.length; } catch (err: any) { n = -2; }
  console.log(Math.round(e.rows), Math.round(e.work), 'used', 0x7fffffff - (ox.exports.__fuel.value as number), 'rows', n, verdict);
}
