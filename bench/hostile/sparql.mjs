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
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

const rssOf = (pid) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
};

const parentOf = (pid) => {
  try {
    return Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  } catch {
    return 0;
  }
};

/**
 * The workerd process that runs the Worker, among those started (directly or not) by `ancestor`. `wrangler dev` runs
 * two: a small proxy and the runtime that loads our code; the latter is the one miniflare gives an inspector address.
 */
export const workerdPid = (ancestor = process.pid) => {
  const ours = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!pid) continue;
    let comm = '';
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm !== 'workerd') continue;
    for (let p = parentOf(pid), hops = 0; p > 1 && hops < 20; p = parentOf(p), hops++) {
      if (p === ancestor) {
        let args = '';
        try {
          args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          // gone
        }
        ours.push({ pid, runtime: args.includes('--inspector-addr'), rss: rssOf(pid) });
        break;
      }
    }
  }
  ours.sort((a, b) => Number(b.runtime) - Number(a.runtime) || b.rss - a.rss);
  return ours[0]?.pid;
};

const post = async (url, tool, input) => {
  const started = performance.now();
  const res = await fetch(`${url}/v1/tools/${tool}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  const body = await res.json().catch(() => ({}));
  return { ms: performance.now() - started, status: res.status, output: String(body.output ?? body.error?.message ?? '') };
};

/** Polls /healthz (and the RSS) while `work` runs; returns the slowest health answer and the RSS peak. */
const watch = async (url, pid, work) => {
  let running = true;
  let slowest = 0;
  let peak = rssOf(pid);
  let healthOk = true;
  const poller = (async () => {
    while (running) {
      const t = performance.now();
      try {
        const h = await (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(30_000) })).json();
        healthOk &&= h.ok === true;
      } catch {
        healthOk = false;
      }
      slowest = Math.max(slowest, performance.now() - t);
      peak = Math.max(peak, rssOf(pid) || 0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid) || 0)), 20);
  let result;
  try {
    result = await work();
  } finally {
    running = false;
    clearInterval(sampler);
    // The health request in flight when the case answered counts too.
    await poller;
  }
  return { result, slowest, peak, healthOk };
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
    const reference = await post(url, 'runQuery', 'SELECT ?c WHERE { wd:Q64 wdt:P17 ?c }');
    const before = rssOf(pid);
    const { result, slowest, peak, healthOk } = await watch(url, pid, () => post(url, 'runQuery', c.query));
    const after = rssOf(pid);
    const next = await normalWorks(url);
    rows.push({
      name: c.name,
      answerMs: result.ms,
      referenceMs: reference.ms,
      rssBefore: before,
      rssPeak: peak,
      rssAfter: after,
      healthMaxMs: slowest,
      healthOk,
      nextWorks: next.ok,
      output: result.output.replace(/\s+/g, ' ').slice(0, 90),
    });
  }
  return rows;
};

const mb = (b) => (Number.isFinite(b) ? `${Math.round(b / 2 ** 20)}` : '?');

export const printSparqlRows = (rows) => {
  const head = ['case', 'answer ms', 'normal ms', 'RSS before/peak/after MB', 'peak growth MB', '/healthz max ms', 'next ok', 'observation'];
  const lines = rows.map((r) => [
    r.name,
    r.answerMs.toFixed(0),
    r.referenceMs.toFixed(0),
    `${mb(r.rssBefore)}/${mb(r.rssPeak)}/${mb(r.rssAfter)}`,
    mb(r.rssPeak - r.rssBefore),
    `${r.healthMaxMs.toFixed(0)}${r.healthOk ? '' : ' (not ok)'}`,
    r.nextWorks ? 'yes' : 'NO',
    r.output,
  ]);
  console.log(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
  for (const l of lines) console.log(`| ${l.join(' | ')} |`);
  const worst = rows.reduce((w, r) => ({ ms: Math.max(w.ms, r.answerMs), growth: Math.max(w.growth, r.rssPeak - r.rssBefore || 0), health: Math.max(w.health, r.healthMaxMs) }), { ms: 0, growth: 0, health: 0 });
  console.log(`\nworst: answer ${worst.ms.toFixed(0)} ms (budget 15000), RSS growth ${mb(worst.growth)} MB (budget 400), /healthz ${worst.health.toFixed(0)} ms (budget 1000); every next normal query worked: ${rows.every((r) => r.nextWorks)}`);
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
    printSparqlRows(await runSparqlCases({ url, pid }));
  } finally {
    await stop();
  }
}
