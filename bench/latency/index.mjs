#!/usr/bin/env node
// bench/latency (issue 25): how soon a user gets an answer, measured from outside against a real `npm run dev` (its
// own state, its own ports) with the OpenAI-compatible stub as a model of fixed latency.
//
//   npm run bench:latency                  # every group
//   npm run bench:latency -- answer prefix # some groups (names below)
//
// Groups are files: every bench/latency/groups/<name>.mjs is one group, found at start, so a group is added without
// touching this file. A group module's default export:
//   { name, about, order?, vars?, run(ctx) → rows }
//   - vars: extra `--var` pairs; a group with vars gets a dev server of its own, the others share one;
//   - run(ctx): ctx = { url, stub, dev, post, answer, stream, consumeSse, percentile, log } (see `context` below);
//   - rows: [{ figure, value, target?, met? }], printed in one table at the end (`met` false marks a missed target).
// The stub runs in its own process so its timers do not share this process's clock with 200 concurrent streams.
// BENCH_PORTS=a,b,c pins the ports (stub, dev server, its inspector) on a shared machine; BENCH_STATE_DIR=/dev/shm
// keeps the objects' SQLite files off the disk.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { consumeSse, freePort, percentile, startDev } from '../lib/dev-server.mjs';

const GROUP_DIR = new URL('./groups/', import.meta.url);

const loadGroups = async () => {
  const files = readdirSync(GROUP_DIR).filter((f) => f.endsWith('.mjs')).sort();
  const groups = [];
  for (const file of files) {
    const group = (await import(new URL(file, GROUP_DIR).href)).default;
    if (!group?.name || typeof group.run !== 'function') throw new Error(`bench/latency/groups/${file} exports no { name, run }`);
    groups.push(group);
  }
  return groups.sort((a, b) => (a.order ?? 50) - (b.order ?? 50) || a.name.localeCompare(b.name));
};

/** The stub in a child process, driven over its control routes. */
const startStubProcess = async (port) => {
  const child = spawn(process.execPath, [new URL('../../tests/support/openai-stub.mjs', import.meta.url).pathname, '--port', String(port)], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  const control = async (path, body) => {
    const res = await fetch(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', body: body === undefined ? undefined : JSON.stringify(body) });
    return res.json();
  };
  for (let i = 0; ; i++) {
    try {
      await control('/__reset', {});
      break;
    } catch (err) {
      if (i >= 100 || child.exitCode !== null) throw new Error(`the model stub did not start on port ${port}: ${err.message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url: `${base}/v1`,
    /** Replaces the reply queues (see tests/support/openai-stub.mjs: per purpose, or per question under byQuestion). */
    script: (queues) => control('/__script', queues),
    latency: (ms) => control('/__latency', { ms }),
    /** The requests received since the last reset: [{ purpose, headers, body }]. */
    requests: () => control('/__requests'),
    reset: () => control('/__reset', {}),
    close: async () => child.kill(),
  };
};

const context = (url, stub, dev) => {
  const post = (body, headers = {}) =>
    fetch(`${url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return {
    url,
    stub,
    /** The dev server (tests/support/dev-server.mjs): its state folder, its log. */
    dev,
    post,
    /** POST /v1/answer as JSON: the finished run and the wall time to it. */
    answer: async (body) => {
      const t0 = performance.now();
      const res = await post(body);
      const run = await res.json();
      if (!res.ok || run.status !== 'succeeded') throw new Error(`run ${run.status ?? res.status}: ${JSON.stringify(run.error ?? run).slice(0, 300)}`);
      return { run, ms: performance.now() - t0 };
    },
    /** POST /v1/answer as SSE, onEvent(name, data, msSinceRequest) per event. */
    stream: async (body, onEvent) => {
      const t0 = performance.now();
      const res = await post(body, { accept: 'text/event-stream' });
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await consumeSse(res, (name, data, t) => onEvent(name, data, t - t0));
    },
    consumeSse,
    percentile,
    log: (...a) => console.log(...a),
  };
};

const all = await loadGroups();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !all.some((g) => g.name === w));
if (unknown.length) {
  console.error(`unknown group(s): ${unknown.join(', ')}; groups: ${all.map((g) => g.name).join(', ')}`);
  process.exit(2);
}
const selected = all.filter((g) => !wanted.length || wanted.includes(g.name));
const batches = [selected.filter((g) => !g.vars), ...selected.filter((g) => g.vars).map((g) => [g])].filter((b) => b.length);

const ports = process.env.BENCH_PORTS?.split(',').map(Number);
const stub = await startStubProcess(ports?.[0] ?? (await freePort()));
const rows = [];
const failed = [];
try {
  for (const batch of batches) {
    const dev = await startDev({
      ports: ports && [ports[1], ports[2]],
      vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub', LLM_MAX_RETRIES: '0', RATE_LIMIT_PER_MINUTE: '1000000', ...(batch[0].vars ?? {}) },
      ...(process.env.BENCH_STATE_DIR ? { stateDir: process.env.BENCH_STATE_DIR } : {}),
    });
    try {
      for (const group of batch) {
        console.log(`\nbench/latency ${group.name}: ${group.about} (dev server ${dev.url}, stub model ${stub.url}, ${new Date().toISOString()})`);
        try {
          await stub.reset();
          await stub.latency(0);
          for (const row of await group.run(context(dev.url, stub, dev))) rows.push({ group: group.name, ...row });
        } catch (err) {
          console.error(`bench/latency ${group.name} failed: ${err.stack}\n--- dev server log (tail) ---\n${dev.log().slice(-3000)}`);
          failed.push(group.name);
          process.exitCode = 1;
        }
      }
    } finally {
      await dev.stop();
    }
  }
} finally {
  await stub.close();
}

console.log('\n| group | figure | value | target | |\n|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.group} | ${r.figure} | ${r.value} | ${r.target ?? ''} | ${r.met === undefined ? '' : r.met ? 'met' : 'MISSED'} |`);
if (failed.length) console.log(`FAILED (no figures, see the error above): ${failed.join(', ')}`);
