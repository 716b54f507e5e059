// A soak against stand-ins that enforce the real services' contracts (issue 24): real benchmark questions, live
// evidence mode, many runs at once, once with the politeness gates on and once with POLITENESS=off.
//
//   npm run bench:soak [-- --questions 500 --concurrency 16 --gate both|on|off --wdqs-budget-s 20 --mediawiki-per-minute 200 --window 4096]
//   PORT_RANGE=9250-9299 npm run bench:soak   (every server this bench starts takes its port from the range)
//
// The stand-ins (tests/support/wikimedia-standins.mjs, tests/support/openai-stub.mjs), served on 127.0.0.1:
// - WDQS: each query costs 150–1050 ms of query time; over `--wdqs-budget-s` seconds of it in any minute (the real
//   service allows about 60; scaled down so the budget binds within a few minutes) it answers 429 + Retry-After, and
//   counts every request sent while a Retry-After runs (the real service bans such a client).
// - MediaWiki (Wikipedia, Wikidata's api.php): 15 ms per answer; every 45 s a 3 s replication lag of 8 s, answered
//   with maxlag errors and Retry-After 2 s to requests that send maxlag=5; requests inside that are counted. Both hosts
//   share Wikimedia's per-client limit of `--mediawiki-per-minute` requests a minute (200: a client whose User-Agent
//   names its contact), answered 429 + Retry-After over it; requests over it and inside its Retry-After are counted.
// - The model: 30 ms per reply, a context window of `--window` tokens (400 over it), at most 8 requests at once (429 +
//   Retry-After 1 s over that; requests inside a Retry-After are counted). Scripted so every run makes real tool
//   calls: wikisearch for the question's name, read that page, a runQuery about it, then its answer.
//
// The Worker runs in `wrangler dev` with EVIDENCE=live pointed at the stand-ins, LLM_CONTEXT_TOKENS=--window,
// LLM_CONCURRENCY=8, WDQS_QUERY_SECONDS_PER_MINUTE at 80% of the stand-in's budget (the default 50 is 83% of 60), and
// MEDIAWIKI_REQUESTS_PER_MINUTE at 90% of the MediaWiki limit (what the gate uses by default on Wikimedia's own hosts;
// the stand-ins are a mirror to it, so the bench sets it).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadBenchmark } from '../src/eval/loaders';
import type { Benchmark } from '../src/eval/types';
import { usageTotals } from '../src/eval/usage-totals';
import { freePort, percentile, startDev } from './lib/dev-server.mjs';
import { createMediaWikiStandIn, createPerMinuteLimit, createWdqsStandIn, serveStandIn } from '../tests/support/wikimedia-standins.mjs';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const QUESTIONS = Number(arg('questions', '500'));
const CONCURRENCY = Number(arg('concurrency', '16'));
const GATES = arg('gate', 'both') === 'both' ? ['on', 'off'] : [arg('gate', 'on')];
const WDQS_BUDGET_S = Number(arg('wdqs-budget-s', '20'));
const WINDOW = Number(arg('window', '4096'));
const MEDIAWIKI_PER_MINUTE = Number(arg('mediawiki-per-minute', '200'));
const MODEL_MAX_CONCURRENT = 8;
const DATA = new URL('../../shared/data/', import.meta.url);

/** Real benchmark questions: all of the Mintaka and QALD-9-Plus samples, then CompMix's dev set, in file order. */
const questions = (): { question: string; variant: Benchmark }[] => {
  const read = (path: string) => readFileSync(new URL(path, DATA), 'utf8');
  const items = [
    ...loadBenchmark('mintaka', read('mintaka/dev_sample.json')).map((i) => ({ question: i.question, variant: 'mintaka' as const })),
    ...loadBenchmark('qald9plus', read('qald9plus/qald_9_plus_test_wikidata_half_a.json')).map((i) => ({ question: i.question, variant: 'qald9plus' as const })),
    ...loadBenchmark('compmix', read('compmix/dev_set.json')).map((i) => ({ question: i.question, variant: 'compmix' as const })),
  ];
  if (items.length < QUESTIONS) throw new Error(`only ${items.length} questions in ${DATA.pathname}`);
  return items.slice(0, QUESTIONS);
};

const AGENT_TURNS = [
  ' I look for its page.\nAction: wikisearch\nAction Input: {entity}',
  ' I read the page.\nAction: read\nAction Input: {entity} # {question}',
  ' I check Wikidata too.\nAction: runQuery\nAction Input: SELECT ?item WHERE { ?item rdfs:label "{entity}"@en . } LIMIT 5',
  ' I have what I need.\nFinal Answer: {entity}',
];

/** A stable small number per text, for query costs that repeat with the query. */
const hash = (text: string) => [...text].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);

const startModel = async () => {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [new URL('../tests/support/openai-stub.mjs', import.meta.url).pathname, '--port', String(port), '--latency', '30', '--context-tokens', String(WINDOW),
      '--max-concurrent', String(MODEL_MAX_CONCURRENT), '--retry-after', '1', '--forget-requests'],
    { stdio: 'ignore' },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`${base}/__script`, { method: 'POST', body: JSON.stringify({ byTurn: { agent: AGENT_TURNS } }) }).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `${base}/v1`, load: async () => (await fetch(`${base}/__concurrency`)).json() as Promise<Record<string, number>>, close: () => child.kill() };
};

interface Outcome {
  status: string;
  ms: number;
  usage?: Record<string, unknown>;
  error?: string;
}

const soak = async (gate: string, items: { question: string; variant: Benchmark }[]) => {
  const t0 = Date.now();
  const wdqs = createWdqsStandIn({ queryMsPerMinute: WDQS_BUDGET_S * 1000, costMs: (q: string) => 150 + (hash(q) % 901) });
  const perMinute = createPerMinuteLimit(MEDIAWIKI_PER_MINUTE);
  const wiki = createMediaWikiStandIn({ latencyMs: 15, retryAfterSeconds: 2, lagSeconds: (now: number) => ((now - t0) % 45_000 > 42_000 ? 8 : 0), perMinute });
  const wikidataApi = createMediaWikiStandIn({ latencyMs: 15, perMinute });
  const served = [
    await serveStandIn(wdqs.handle, { port: await freePort(), path: '/sparql' }),
    await serveStandIn(wiki.handle, { port: await freePort(), path: '/w/api.php' }),
    await serveStandIn(wikidataApi.handle, { port: await freePort(), path: '/w/api.php' }),
  ];
  const model = await startModel();
  const dev = await startDev({
    ports: [await freePort(), await freePort()],
    ...(process.env.BENCH_STATE_DIR ? { stateDir: process.env.BENCH_STATE_DIR } : {}),
    vars: {
      EVIDENCE: 'live',
      WIKIDATA_SPARQL_URL: served[0].url,
      WIKIPEDIA_API_URL: served[1].url,
      WIKIDATA_API_URL: served[2].url,
      WIKIMEDIA_CONTACT: 'soak@example.org',
      POLITENESS: gate,
      WDQS_QUERY_SECONDS_PER_MINUTE: String(Math.max(1, Math.floor(WDQS_BUDGET_S * 0.8))),
      MEDIAWIKI_REQUESTS_PER_MINUTE: String(Math.max(1, Math.floor(MEDIAWIKI_PER_MINUTE * 0.9))),
      LLM_BASE_URL: model.url,
      LLM_MODEL: 'stub',
      LLM_CONTEXT_TOKENS: String(WINDOW),
      LLM_CONCURRENCY: String(MODEL_MAX_CONCURRENT),
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
  });
  // /healthz answering meanwhile: one probe every 2 s, its latency kept.
  const health: number[] = [];
  let soaking = true;
  const prober = (async () => {
    while (soaking) {
      const t = performance.now();
      await fetch(`${dev.url}/healthz`).then((r) => r.text()).catch(() => '');
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 2_000));
    }
  })();
  try {
    const outcomes: Outcome[] = [];
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++];
        const t = performance.now();
        try {
          const res = await fetch(`${dev.url}/v1/answer`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ question: item.question, variant: item.variant, mode: 'agent' }),
            signal: AbortSignal.timeout(600_000),
          });
          const run = (await res.json()) as { status?: string; usage?: Record<string, unknown>; error?: { code: string; message: string } };
          outcomes.push({ status: run.status ?? `http_${res.status}`, ms: performance.now() - t, usage: run.usage, error: run.error ? `${run.error.code}: ${run.error.message.slice(0, 160)}` : undefined });
        } catch (err) {
          outcomes.push({ status: 'client_error', ms: performance.now() - t, error: String(err).slice(0, 160) });
        }
        if (outcomes.length % 50 === 0) console.error(`  [gate ${gate}] ${outcomes.length}/${items.length} runs ended after ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const wallS = (performance.now() - started) / 1000;
    soaking = false;
    await prober;
    return { gate, wallS, outcomes, wdqs: wdqs.stats(), wiki: wiki.stats(), wikidataApi: wikidataApi.stats(), mediawiki: perMinute.stats(), model: await model.load(), health };
  } finally {
    soaking = false;
    await dev.stop();
    model.close();
    for (const s of served) await s.close();
  }
};

const report = (r: Awaited<ReturnType<typeof soak>>) => {
  const byStatus: Record<string, number> = {};
  for (const o of r.outcomes) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
  const errors: Record<string, number> = {};
  for (const o of r.outcomes) if (o.error) errors[o.error.replace(/\d+(\.\d+)?/g, 'N')] = (errors[o.error.replace(/\d+(\.\d+)?/g, 'N')] ?? 0) + 1;
  const totals = usageTotals(r.outcomes.map((o) => o.usage));
  const ms = r.outcomes.map((o) => o.ms);
  const inside = r.wdqs.insideRetryAfter + r.wiki.insideRetryAfter + r.wikidataApi.insideRetryAfter + r.mediawiki.insideRetryAfter + r.model.insideRetryAfter;
  const lines = [
    `gate ${r.gate}: ${r.outcomes.length} questions, ${CONCURRENCY} at once, done in ${r.wallS.toFixed(0)} s`,
    `  runs by status: ${Object.entries(byStatus).map(([s, n]) => `${s} ${n}`).join(', ')}`,
    `  requests inside a Retry-After window: ${inside} (WDQS ${r.wdqs.insideRetryAfter}, Wikipedia ${r.wiki.insideRetryAfter}, Wikidata API ${r.wikidataApi.insideRetryAfter}, MediaWiki per-minute limit ${r.mediawiki.insideRetryAfter}, model ${r.model.insideRetryAfter})`,
    `  MediaWiki requests over the per-minute limit (429): ${r.mediawiki.overBudget}; peak ${r.mediawiki.peakPerMinute} requests in a minute across both API hosts (limit ${MEDIAWIKI_PER_MINUTE}, gate budget ${Math.floor(MEDIAWIKI_PER_MINUTE * 0.9)})`,
    `  429s answered: WDQS ${r.wdqs.tooMany}, model ${r.model.tooMany}; maxlag answers ${r.wiki.maxlagAnswers}; MediaWiki peak concurrency ${r.wiki.peakConcurrency}; model peak concurrency ${r.model.peak} (allows ${MODEL_MAX_CONCURRENT})`,
    `  WDQS query-seconds per minute at the peak: ${(r.wdqs.peakQueryMsPerMinute / 1000).toFixed(1)} (stand-in budget ${WDQS_BUDGET_S}); WDQS requests ${r.wdqs.requests}, distinct queries ${r.wdqs.distinctQueries}`,
    `  shared evidence cache: hit rate ${totals.evidenceCache.hitRate === null ? 'n/a' : `${(totals.evidenceCache.hitRate * 100).toFixed(1)}%`} (${totals.evidenceCache.hits} hits, ${totals.evidenceCache.misses} misses); gate waits ${totals.gateWaits} (${(totals.gateWaitMs / 1000).toFixed(0)} s), model gate waits ${totals.modelGateWaits}`,
    `  prompts over the window (refused by the model): ${r.model.refusedOverWindow}; prompts shortened to fit ${WINDOW} tokens: ${totals.promptsTrimmed}, retried smaller: ${totals.contextRetries}; largest prompt sent ${r.model.largestPrompt} tokens`,
    `  time per question: p50 ${(percentile(ms, 50) / 1000).toFixed(2)} s, p99 ${(percentile(ms, 99) / 1000).toFixed(2)} s; /healthz meanwhile p50 ${percentile(r.health, 50).toFixed(0)} ms, max ${Math.max(...r.health).toFixed(0)} ms`,
    `  requests sent: WDQS ${r.wdqs.requests}, Wikipedia ${r.wiki.requests}, Wikidata API ${r.wikidataApi.requests}, model ${r.model.answered + r.model.tooMany + r.model.refusedOverWindow}`,
    `  User-Agents without a contact: ${r.wdqs.withoutContact + r.wiki.withoutContact + r.wikidataApi.withoutContact}`,
    ...(Object.keys(errors).length ? ['  run errors:', ...Object.entries(errors).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([e, n]) => `    ${n} × ${e}`)] : []),
  ];
  console.log(lines.join('\n'));
};

const items = questions();
console.log(`bench:soak — ${items.length} real questions (Mintaka, QALD-9-Plus, CompMix), live evidence against contract-enforcing stand-ins, model window ${WINDOW} tokens`);
for (const gate of GATES) report(await soak(gate, items));
