#!/usr/bin/env node
// Load bench for the public endpoint: N concurrent streamed runs (POST /v1/answer, Accept: text/event-stream,
// mode parametric) against `npm run dev` backed by the OpenAI-compatible stub model answering after a fixed latency.
// Prints errors, first-event latency p50/p99, whole-run latency and runs per second. Loopback only, bounded in count
// and time.
//
//   node bench/load.mjs                         start the stub (200 ms) and a dev server on free ports, then drive 200 runs
//   node bench/load.mjs --runs 50 --latency 100
//   node bench/load.mjs --url http://127.0.0.1:8791   use a dev server you started (it must point at a model)
import { startStub } from '../tests/support/openai-stub.mjs';
import { consumeSse, percentile, startDev } from './lib/dev-server.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const RUNS = Math.min(1_000, Number(arg('runs', 200)));
const LATENCY_MS = Number(arg('latency', 200));
const DEADLINE_MS = Number(arg('deadline', 120_000));

const startModelBackedDev = (modelUrl) =>
  startDev({
    // Every bench request comes from one address; the per-IP limit would otherwise be what we measure.
    vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: modelUrl, RATE_LIMIT_PER_MINUTE: '1000000' },
    timeoutMs: 120_000,
  });

/** One streamed run: time to the first SSE event, time to the end, and whether it ended with status succeeded. */
const oneRun = async (url, i, signal) => {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ question: `Load question ${i}: what is the capital of France?`, mode: 'parametric' }),
    signal,
  });
  if (res.status !== 200) return { ok: false, error: `HTTP ${res.status} ${(await res.text()).slice(0, 200)}` };
  let first;
  let status = 'no done event';
  await consumeSse(res, (name, data, t) => {
    first ??= t - t0;
    if (name === 'done') status = data?.status;
  });
  const total = performance.now() - t0;
  return status === 'succeeded' ? { ok: true, first, total } : { ok: false, error: `run ended: ${status}` };
};

const main = async () => {
  const external = arg('url');
  let stub;
  let dev;
  if (!external) {
    stub = await startStub({ port: 0, latencyMs: LATENCY_MS });
    console.log(`stub model on ${stub.url} (${LATENCY_MS} ms per reply)`);
    dev = await startModelBackedDev(stub.url);
    console.log(`dev server on ${dev.url}`);
  }
  const url = external ?? dev.url;
  try {
    // One warm-up run, so module loading and the first Durable Object start are not in the figures.
    await oneRun(url, -1);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), DEADLINE_MS);
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: RUNS }, (_, i) => oneRun(url, i, controller.signal).catch((err) => ({ ok: false, error: String(err?.message ?? err) }))),
    );
    const elapsed = (performance.now() - started) / 1000;
    clearTimeout(timer);
    const ok = results.filter((r) => r.ok);
    const errors = results.filter((r) => !r.ok);
    const firsts = ok.map((r) => r.first).sort((a, b) => a - b);
    const totals = ok.map((r) => r.total).sort((a, b) => a - b);
    const f = (n) => `${Math.round(n)} ms`;
    console.log(`runs: ${RUNS} concurrent, model latency ${LATENCY_MS} ms`);
    console.log(`errors: ${errors.length}`);
    for (const [msg, n] of Object.entries(errors.reduce((acc, e) => ({ ...acc, [e.error]: (acc[e.error] ?? 0) + 1 }), {})).slice(0, 5)) console.log(`  ${n} × ${msg}`);
    console.log(`first event: p50 ${f(percentile(firsts, 50))}, p99 ${f(percentile(firsts, 99))}`);
    console.log(`whole run:   p50 ${f(percentile(totals, 50))}, p99 ${f(percentile(totals, 99))}`);
    console.log(`throughput:  ${(ok.length / elapsed).toFixed(1)} runs/s (${elapsed.toFixed(1)} s wall)`);
    process.exitCode = errors.length ? 1 : 0;
  } finally {
    await dev?.stop();
    await stub?.close();
  }
};

await main();
