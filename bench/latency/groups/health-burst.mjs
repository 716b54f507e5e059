// bench/latency group `health-burst` (issue 41, item 6): GET /healthz under a 200-request burst, beside GET /v1/runs
// under the same burst in the same round. Meanwhile 40 closed-book runs wait at the model's politeness gate (a 2 s
// model, LLM_CONCURRENCY 8): the gate is busy, the isolate mostly idle. /healthz once asked every gate whether it held
// its host back on every probe, the busy model gate among them; it now reads the gates' status board (at most a second
// old, one read per isolate). The two bursts go one after the other, in alternating order, so neither is measured
// only while the other's tail runs; the median round is printed. A load balancer's probe times out after 1–2 s.
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 200);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const QUEUED_RUNS = 40;
const LATENCY_MS = 2_000;
/** `count` concurrent GETs of `path`: each one's time, and how many did not answer 200. */
const burst = async (url, path, count) => {
  let failed = 0;
  const expected = path === '/no-such-route' ? 404 : 200;
  const times = await Promise.all(
    Array.from({ length: count }, async () => {
      const t0 = performance.now();
      const res = await fetch(`${url}${path}`).catch(() => undefined);
      await res?.arrayBuffer().catch(() => {});
      if (res?.status !== expected) failed++;
      return performance.now() - t0;
    }),
  );
  return { times, failed };
};

export default {
  name: 'health-burst',
  about: `GET /healthz and GET /v1/runs, ${CONCURRENT} concurrent each, while ${QUEUED_RUNS} runs wait at the model's gate (model ${LATENCY_MS} ms, LLM_CONCURRENCY 8); median of ${ROUNDS} rounds`,
  order: 25,
  async run(ctx) {
    const { percentile } = ctx;
    await ctx.stub.script({ parametric: ['Paris'] });
    for (let i = 0; i < 3; i++) await ctx.stream({ question: `warm up ${i}`, mode: 'parametric' }, () => {});
    await (await fetch(`${ctx.url}/healthz`)).text();
    await (await fetch(`${ctx.url}/v1/runs`)).text();
    await ctx.stub.latency(LATENCY_MS);
    const rounds = [];
    let failures = 0;
    for (let r = 1; r <= ROUNDS; r++) {
      const seen = (await ctx.stub.requests()).length;
      const runs = Promise.all(
        Array.from({ length: QUEUED_RUNS }, (_, i) =>
          ctx.post({ question: `queued ${r} run ${i}`, mode: 'parametric' }).then((res) => res.json()).then((run) => run.status === 'succeeded' || failures++, () => failures++),
        ),
      );
      // The probes start once the model has its 8 calls and the other runs queue behind them at its gate.
      while ((await ctx.stub.requests()).length < seen + 8) await new Promise((res) => setTimeout(res, 50));
      await new Promise((res) => setTimeout(res, 500));
      // A route that does nothing (the 404 every unknown path gets, through the same middleware): the floor a burst
      // of 200 costs the dev server and its proxy whatever the route does.
      const order = r % 2 ? ['/healthz', '/v1/runs?limit=20', '/no-such-route'] : ['/no-such-route', '/v1/runs?limit=20', '/healthz'];
      const measured = {};
      for (const path of order) measured[path] = await burst(ctx.url, path, CONCURRENT);
      const [health, listed, floor] = [measured['/healthz'], measured['/v1/runs?limit=20'], measured['/no-such-route']];
      await runs;
      failures += health.failed + listed.failed;
      const row = {
        h50: percentile(health.times, 50), h99: percentile(health.times, 99), l50: percentile(listed.times, 50), l99: percentile(listed.times, 99),
        f50: percentile(floor.times, 50), f99: percentile(floor.times, 99),
      };
      rounds.push(row);
      ctx.log(
        `  round ${r}: /healthz p50 ${row.h50.toFixed(0)} / p99 ${row.h99.toFixed(0)} ms, GET /v1/runs p50 ${row.l50.toFixed(0)} / p99 ${row.l99.toFixed(0)} ms, a 404 p50 ${row.f50.toFixed(0)} / p99 ${row.f99.toFixed(0)} ms (${order[0]} first)`,
      );
    }
    const mid = [...rounds].sort((a, b) => a.h99 - b.h99)[Math.floor(rounds.length / 2)];
    return [
      { figure: `GET /healthz p50 / p99 (${CONCURRENT} concurrent, median round by p99)`, value: `${mid.h50.toFixed(0)} / ${mid.h99.toFixed(0)} ms` },
      { figure: `GET /v1/runs p50 / p99 (${CONCURRENT} concurrent, same round)`, value: `${mid.l50.toFixed(0)} / ${mid.l99.toFixed(0)} ms` },
      { figure: `a 404 (no route: the floor) p50 / p99 (${CONCURRENT} concurrent, same round)`, value: `${mid.f50.toFixed(0)} / ${mid.f99.toFixed(0)} ms` },
      { figure: '/healthz p99 / GET /v1/runs p99 (same round)', value: `×${(mid.h99 / mid.l99).toFixed(2)}`, target: '≤ ×1', met: mid.h99 <= mid.l99 },
      { figure: 'requests or runs that failed', value: String(failures), target: '0', met: failures === 0 },
    ];
  },
};
