#!/usr/bin/env node
// The SPARQL cases of bench/hostile (issue 14): hostile queries through `POST /v1/tools/runQuery` of a real
// `npm run dev`, each measured next to a normal tool call in the same run. Per case it prints the time to an answer,
// the workerd process's RSS before, at its peak during, and after the case (VmRSS from /proc), the slowest /healthz
// answer while the case ran, and whether the Wikidata tools work right after it (getLabel Q64, getWikidataID Berlin).
//
//   node bench/hostile/sparql.mjs            # starts its own dev server on free ports
//   BENCH_URL=http://127.0.0.1:8787 node bench/hostile/sparql.mjs   # against a running one (RSS only if it is our child)
//
// As a module: `runSparqlCases({ url, pid })` returns the rows, so a bench/hostile driver can print them with its own.
import { fileURLToPath } from 'node:url';
import { workerdOf } from '../../tests/support/workerd-watch.mjs';
import { measureCase, printRows } from './measure.mjs';

const nested = (n) => `SELECT * WHERE ${'{'.repeat(n)}${'}'.repeat(n)}`;
const doubling = `SELECT (STRLEN(?s30) AS ?n) WHERE { BIND("xxxxxxxx" AS ?s0) ${Array.from({ length: 30 }, (_, k) => `BIND(CONCAT(?s${k}, ?s${k}) AS ?s${k + 1})`).join(' ')} }`;

/** The three measured queries first, then the variations an attacker tries next. */
export const sparqlCases = [
  { name: '3-way cartesian COUNT (issue)', query: 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }' },
  { name: 'ORDER BY over cartesian (issue)', query: 'SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?a ?d' },
  { name: '{ x1000 nesting (issue)', query: nested(1000) },
  { name: 'cartesian in subqueries', query: 'SELECT * WHERE { { SELECT * WHERE { ?a ?b ?c } } { SELECT * WHERE { ?d ?e ?f } } } ORDER BY ?a' },
  { name: 'closure from every node', query: 'SELECT (COUNT(*) AS ?n) WHERE { ?a (wdt:P31|!wdt:P31)* ?b }' },
  { name: 'closure x wide pattern', query: 'SELECT * WHERE { ?a wdt:P279* ?b . ?c ?d ?e } ORDER BY ?c' },
  { name: 'FILTER EXISTS cartesian', query: 'SELECT * WHERE { ?a ?b ?c FILTER EXISTS { ?d ?e ?f . ?g ?h ?i } }' },
  { name: '400 chained operators', query: `SELECT * WHERE { FILTER(${'!'.repeat(400)}true) }` },
  { name: 'string doubling (memory cap)', query: doubling },
  { name: 'skewed join past the estimate', query: 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?c . ?d ?f ?g }' },
  { name: 'star join over the estimate', query: 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?a ?d ?e . ?a ?f ?g }' },
];


/** The workerd that runs the Worker among those `ancestor` started: the tests' finder (tests/support/workerd-watch.mjs). */
export const workerdPid = (ancestor = process.pid) => workerdOf(ancestor);

const post = async (url, tool, input) => {
  const started = performance.now();
  const res = await fetch(`${url}/v1/tools/${tool}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  const body = await res.json().catch(() => ({}));
  return { ms: performance.now() - started, status: res.status, output: String(body.output ?? body.error?.message ?? '') };
};

const normalWorks = async (url) => {
  const label = await post(url, 'getLabel', 'Q64');
  const id = await post(url, 'getWikidataID', 'Berlin');
  return { ok: /Berlin/.test(label.output) && /Q64\b/.test(id.output), ms: label.ms };
};

export const runSparqlCases = async ({ url, pid }) => {
  // Warm the store and the caches so the first case does not pay for them.
  await normalWorks(url);
  await post(url, 'runQuery', 'SELECT ?c WHERE { wd:Q64 wdt:P17 ?c }');
  const rows = [];
  for (const c of sparqlCases) {
    const m = await measureCase({
      url,
      pid,
      reference: () => post(url, 'runQuery', 'SELECT ?c WHERE { wd:Q64 wdt:P17 ?c }'),
      work: () => post(url, 'runQuery', c.query),
      next: async () => (await normalWorks(url)).ok,
    });
    rows.push({ name: c.name, ...m, output: m.result.output.replace(/\s+/g, ' ').slice(0, 90) });
  }
  return rows;
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let url = process.env.BENCH_URL;
  let stop = async () => {};
  if (!url) {
    const { startDev } = await import('../../tests/support/dev-server.mjs');
    const dev = await startDev();
    url = dev.url;
    stop = dev.stop;
  }
  try {
    const pid = workerdPid();
    console.log(`bench/hostile SPARQL against ${url} (workerd pid ${pid ?? 'unknown: RSS not measured'}), ${new Date().toISOString()}`);
    printRows(await runSparqlCases({ url, pid }));
  } finally {
    await stop();
  }
}
