// bench/latency group `front-hop` (issue 41, item 7): what the front server of `npm run dev` (cli/dev-front.mjs)
// costs. The same dev server is asked through the user's port (the front) and directly on wrangler's loopback port
// behind it (dev-server.json's `upstream`), A and B alternating within each round so that both see the same machine:
// one request at a time (a route with no work: the Worker's JSON 404 for an unknown /v1 path), 200 at once, a streamed run's first
// event and end (model 0 ms), and a 12 MB body the Worker reads whole (POST /v1/answer/check with a rag context).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const SEQUENTIAL = 50;
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 200);
const STREAMS = 10;
const BIG = JSON.stringify({
  question: 'Who wrote Hamlet?',
  variant: 'crag',
  mode: 'rag',
  context: { pages: Array.from({ length: 3 }, (_, i) => ({ url: `https://example.org/${i}`, html: `<p>${'Shakespeare wrote plays. '.repeat(150_000)}</p>` })) },
});

const timed = async (fn) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};
const drain = async (res, expected) => {
  await res.arrayBuffer();
  if (res.status !== expected) throw new Error(`HTTP ${res.status}, expected ${expected}`);
};

/** One round's measurements against `base`. */
const measure = async (ctx, base) => {
  const sequential = [];
  for (let i = 0; i < SEQUENTIAL; i++) sequential.push(await timed(async () => drain(await fetch(`${base}/v1/no-such-route`), 404)));
  const burst = await Promise.all(Array.from({ length: CONCURRENT }, () => timed(async () => drain(await fetch(`${base}/v1/no-such-route`), 404))));
  const firsts = [];
  const wholes = [];
  for (let i = 0; i < STREAMS; i++) {
    const t0 = performance.now();
    let first = 0;
    const res = await fetch(`${base}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ question: `front hop ${i} ${Math.random()}`, mode: 'parametric' }) });
    await ctx.consumeSse(res, (_name, _data, t) => (first ||= t - t0));
    firsts.push(first);
    wholes.push(performance.now() - t0);
  }
  const big = await timed(async () => drain(await fetch(`${base}/v1/answer/check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BIG }), 200));
  const p = ctx.percentile;
  return { s50: p(sequential, 50), s99: p(sequential, 99), b50: p(burst, 50), b99: p(burst, 99), first: p(firsts, 50), whole: p(wholes, 50), big };
};

const median = (rows, key) => [...rows.map((r) => r[key])].sort((a, b) => a - b)[Math.floor(rows.length / 2)];

export default {
  name: 'front-hop',
  about: `the front server's cost: the same requests through the user's port and directly to wrangler, alternating, median of ${ROUNDS} rounds`,
  order: 60,
  async run(ctx) {
    const upstream = JSON.parse(readFileSync(join(ctx.dev.stateFolder, 'dev-server.json'), 'utf8')).upstream;
    if (!upstream) throw new Error('dev-server.json names no upstream: this npm run dev has no front server');
    await ctx.stub.script({ parametric: ['Paris'] });
    for (const base of [ctx.url, upstream]) await measure(ctx, base); // warm-up: the Worker compiles, connections open
    const front = [];
    const direct = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const order = r % 2 ? [[front, ctx.url], [direct, upstream]] : [[direct, upstream], [front, ctx.url]];
      for (const [rows, base] of order) rows.push(await measure(ctx, base));
      const [f, d] = [front.at(-1), direct.at(-1)];
      ctx.log(`  round ${r}: one at a time p50 ${f.s50.toFixed(2)} / ${d.s50.toFixed(2)} ms, ${CONCURRENT} at once p99 ${f.b99.toFixed(0)} / ${d.b99.toFixed(0)} ms, first event ${f.first.toFixed(1)} / ${d.first.toFixed(1)} ms, 12 MB body ${f.big.toFixed(0)} / ${d.big.toFixed(0)} ms (front / direct)`);
    }
    const row = (figure, key, digits = 1) => {
      const [f, d] = [median(front, key), median(direct, key)];
      return { figure: `${figure}: front / direct (median round)`, value: `${f.toFixed(digits)} / ${d.toFixed(digits)} ms (${f >= d ? '+' : ''}${(f - d).toFixed(digits)} ms, ×${(f / d).toFixed(2)})` };
    };
    return [
      row(`a 404, one at a time, p50 of ${SEQUENTIAL}`, 's50', 2),
      row(`a 404, one at a time, p99 of ${SEQUENTIAL}`, 's99', 2),
      row(`a 404, ${CONCURRENT} at once, p50`, 'b50', 0),
      row(`a 404, ${CONCURRENT} at once, p99`, 'b99', 0),
      row(`a streamed closed-book run (model 0 ms), first event, p50 of ${STREAMS}`, 'first'),
      row(`the same run to its end, p50 of ${STREAMS}`, 'whole'),
      row('a 12 MB body read whole by the Worker (POST /v1/answer/check)', 'big', 0),
    ];
  },
};
