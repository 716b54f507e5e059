// bench:engine's disk-backed row (issue 42): one agent run with six sequential model calls of MODEL_MS each and four
// tool calls on the bundled snapshot, the run's objects keeping their SQLite files in a folder on disk (as under
// `npm run dev`), next to the same runs with the state on tmpfs (/dev/shm) when the machine has one. What it reports
// is the time outside the model: the run's wall time less the six calls as the stub timed them, and where it falls
// (before the first call, between calls, after the last). BENCH_DISK_DIR puts the disk-backed state elsewhere (default
// .wrangler/bench-state in the checkout, where `npm run dev` keeps its own).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDev } from '../lib/dev-server.mjs';

const MODEL_MS = 500;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const QUESTION = 'In which city was the director of Forrest Gump born?';
const AGENT = [
  ' I look the director up.\nAction: wikisearch\nAction Input: Robert Zemeckis',
  ' His id.\nAction: getWikidataID\nAction Input: Robert Zemeckis',
  ' His place of birth.\nAction: runQuery\nAction Input: SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }',
  ' Which city that is.\nAction: getLabel\nAction Input: Q1297',
  ' Both agree.\nFinal Answer: Chicago\nWikipedia Answer: Chicago\nWikidata Answer: Chicago',
];

/** One run (the paper recipe: five agent calls and the merge, one after another; the closed-book call beside the first). */
const runOnce = async (url, stub) => {
  await stub.control('/__reset', {});
  await stub.control('/__script', { agent: AGENT, parametric: ['Chicago'], final: ['Chicago'] });
  await stub.control('/__latency', { ms: MODEL_MS });
  const t0 = Date.now();
  const res = await fetch(`${url}/v1/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: QUESTION, mode: 'agent', options: { recipe: 'paper', fewshot: 'zero-shot' } }),
  });
  const run = await res.json();
  const t1 = Date.now();
  if (run.status !== 'succeeded') throw new Error(`run ${run.status}: ${JSON.stringify(run.error ?? run).slice(0, 300)}`);
  const path = (await stub.control('/__requests')).filter((r) => r.purpose !== 'parametric');
  const tools = run.steps.filter((s) => s.type === 'observation').length;
  if (path.length !== 6 || tools !== 4) throw new Error(`expected 6 model calls and 4 tool calls on the path, got ${path.length} and ${tools}`);
  const model = path.reduce((sum, r) => sum + (r.repliedAt - r.receivedAt), 0);
  const between = path.slice(1).map((r, i) => r.receivedAt - path[i].repliedAt);
  return { ms: t1 - t0, outside: t1 - t0 - model, before: path[0].receivedAt - t0, between: between.reduce((a, b) => a + b, 0), after: t1 - path.at(-1).repliedAt };
};

const median = (rows, key) => [...rows].sort((a, b) => a[key] - b[key])[rows.length >> 1][key];

/** The rows for state on disk and, where there is one, on tmpfs; each on a dev server of its own. */
export const diskBackedRuns = async (stub, runs) => {
  const places = [['disk', process.env.BENCH_DISK_DIR ?? join(ROOT, '.wrangler', 'bench-state')]];
  if (process.platform === 'linux') places.push(['tmpfs', '/dev/shm']);
  const out = [];
  for (const [name, stateDir] of places) {
    mkdirSync(stateDir, { recursive: true });
    const dev = await startDev({
      vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub', LLM_MAX_RETRIES: '0', RATE_LIMIT_PER_MINUTE: '1000000' },
      stateDir,
    });
    try {
      await stub.control('/__latency', { ms: 0 });
      await runOnce(dev.url, stub); // warm-up: the first run compiles the Worker and loads the snapshot
      const rows = [];
      for (let i = 0; i < runs; i++) rows.push(await runOnce(dev.url, stub));
      out.push({ name, stateDir, outside: median(rows, 'outside'), ms: median(rows, 'ms'), before: median(rows, 'before'), between: median(rows, 'between'), after: median(rows, 'after') });
    } finally {
      await dev.stop();
    }
  }
  await stub.control('/__reset', {});
  return out;
};
