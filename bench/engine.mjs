#!/usr/bin/env node
// Run-engine overhead, measured from outside against `wrangler dev` and a zero/200 ms OpenAI-compatible stub on 127.0.0.1.
//
//   node bench/engine.mjs [--runs 30] [--concurrent 200] [--url http://127.0.0.1:8787 (must run with TEST_MODE:true and the stub)]
//
// 1. Per-step overhead: 6-step runs (5 zero-latency tool steps + 1 zero-latency model step) streamed over SSE; the gap between
//    consecutive steps' events is what the engine adds per step (alarm, SQLite commit, SSE fan-out, plus one loopback model call
//    for the last step).
// 2. 200 concurrent streamed runs with 200 ms model latency: errors and first-event latency.
// 3. Disk-backed (issue 42): an agent run with six sequential 500 ms model calls and four snapshot tool calls, the
//    objects' SQLite files on disk as under `npm run dev`, next to the same on tmpfs; time outside the model
//    (bench/engine/disk-run.mjs; `--disk-runs 0` leaves it out).
import { spawn } from 'node:child_process';
import { diskBackedRuns } from './engine/disk-run.mjs';
import { consumeSse, freePort, percentile, startDev } from './lib/dev-server.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const RUNS = Number(arg('runs', 30));
const CONCURRENT = Number(arg('concurrent', 200));
const DISK_RUNS = Number(arg('disk-runs', 7));

// The model stub runs in its own process, so its work does not slow this process's clock-keeping of 200 streams.
const stubPort = await freePort();
const stubProcess = spawn(process.execPath, [new URL('../tests/support/openai-stub.mjs', import.meta.url).pathname, '--port', String(stubPort)], { stdio: 'ignore' });
const stub = {
  url: `http://127.0.0.1:${stubPort}/v1`,
  control: async (path, body) =>
    (await fetch(`http://127.0.0.1:${stubPort}${path}`, { method: body === undefined ? 'GET' : 'POST', body: body === undefined ? undefined : JSON.stringify(body) })).json(),
  close: async () => stubProcess.kill(),
};
for (let i = 0; i < 100; i++) {
  try {
    await fetch(stub.url.replace('/v1', '/__script'), { method: 'POST', body: JSON.stringify({ final: ['done'], parametric: ['Paris'] }) });
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 50));
  }
}
const dev = arg('url', null)
  ? { url: arg('url'), startupMs: 0, stop() {} }
  : await startDev({
      vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, TEST_MODE: 'true', LLM_MAX_RETRIES: '0', RATE_LIMIT_PER_MINUTE: '1000000' },
      // BENCH_STATE_DIR=/dev/shm keeps the objects' SQLite files off the disk.
      ...(process.env.BENCH_STATE_DIR ? { stateDir: process.env.BENCH_STATE_DIR } : {}),
    });
console.log(`dev server ${dev.url} ready in ${dev.startupMs} ms; stub model ${stub.url}`);

const post = (body) =>
  fetch(`${dev.url}/v1/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });

try {
  // Warm-up: first requests compile the Worker and load wasm.
  for (let i = 0; i < 3; i++) await consumeSse(await post({ question: 'warm up', mode: 'test-tool-loop', options: { calls: 5 } }), () => {});

  const gaps = [];
  const totals = [];
  for (let r = 0; r < RUNS; r++) {
    const stepTimes = [];
    const t0 = performance.now();
    let last = 0;
    await consumeSse(await post({ question: `overhead ${r}`, mode: 'test-tool-loop', options: { calls: 5 } }), (name, _d, t) => {
      // One step = one commit: its first event marks when it landed.
      if (name === 'run' || name === 'thought' || name === 'answer') stepTimes.push(t);
      last = t;
    });
    totals.push(last - t0);
    for (let i = 1; i < stepTimes.length; i++) gaps.push(stepTimes[i] - stepTimes[i - 1]);
  }
  console.log(`\nper-step overhead over ${RUNS} six-step runs (${gaps.length} steps, zero-latency tool and model):`);
  console.log(`  p50 ${percentile(gaps, 50).toFixed(2)} ms   p99 ${percentile(gaps, 99).toFixed(2)} ms   (whole run p50 ${percentile(totals, 50).toFixed(1)} ms)`);

  // Reference measured in the same run: what the dev server itself costs for a route that does nothing.
  const ref = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    await (await fetch(`${dev.url}/healthz`)).text();
    ref.push(performance.now() - t0);
  }
  console.log(`  reference: GET /healthz round trip, sequential: p50 ${percentile(ref, 50).toFixed(2)} ms   p99 ${percentile(ref, 99).toFixed(2)} ms`);

  const refConcurrent = [];
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      const t0 = performance.now();
      await (await fetch(`${dev.url}/healthz`)).text();
      refConcurrent.push(performance.now() - t0);
    }),
  );

  await fetch(stub.url.replace('/v1', '/__latency'), { method: 'POST', body: JSON.stringify({ ms: 200 }) });
  const firstEvent = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT }, async (_, i) => {
      const t0 = performance.now();
      try {
        const res = await post({ question: `concurrent ${i}`, mode: 'parametric' });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        let first = 0;
        let status = '';
        await consumeSse(res, (name, data, t) => {
          if (!first) first = t - t0;
          if (name === 'done') status = data.status;
        });
        firstEvent.push(first);
        if (status !== 'succeeded') throw new Error(`run ${status}`);
      } catch (err) {
        errors += 1;
        if (errors <= 3) console.error(`  error: ${err.message}`);
      }
    }),
  );
  const wall = performance.now() - started;
  console.log(`\n${CONCURRENT} concurrent streamed runs, model latency 200 ms:`);
  console.log(`  errors ${errors}   first event p50 ${percentile(firstEvent, 50).toFixed(1)} ms   p99 ${percentile(firstEvent, 99).toFixed(1)} ms   ` +
    `all done in ${(wall / 1000).toFixed(2)} s (${(CONCURRENT / (wall / 1000)).toFixed(1)} runs/s)`);
  const r50 = percentile(refConcurrent, 50);
  const r99 = percentile(refConcurrent, 99);
  console.log(`  reference: ${CONCURRENT} concurrent GET /healthz: p50 ${r50.toFixed(1)} ms   p99 ${r99.toFixed(1)} ms   ` +
    `(first event / reference: p50 ×${(percentile(firstEvent, 50) / r50).toFixed(2)}, p99 ×${(percentile(firstEvent, 99) / r99).toFixed(2)})`);
} finally {
  await dev.stop();
}

try {
  if (DISK_RUNS > 0) {
    const rows = await diskBackedRuns(stub, DISK_RUNS);
    console.log(`\nagent run, 6 sequential model calls of 500 ms and 4 snapshot tool calls, time outside the model (median of ${DISK_RUNS}):`);
    for (const r of rows) {
      console.log(`  state on ${r.name.padEnd(5)} (${r.stateDir}): ${r.outside} ms outside the model of ${r.ms} ms; before the first call ${r.before} ms, between calls ${r.between} ms, after the last ${r.after} ms`);
    }
  }
} finally {
  await stub.close();
}
