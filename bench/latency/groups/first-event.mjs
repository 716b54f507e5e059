// bench/latency group `first-event` (issue 25): how soon a streamed run's first event reaches its client while 200
// runs start at once with a 200 ms model, next to 200 concurrent GET /healthz in the same run (the dev server's own
// cost for a route that checks the evidence store and the model list). Closed-book runs: one model call each, so
// all 200 are in flight together.
//
// One burst is at the mercy of the machine: the first burst's 200 connections are new, which slows /healthz as much
// as the runs, and on two shared cores one wave of connections more on either side can double a p99. So the bench
// makes several rounds, each a /healthz burst then a run burst, and reports the median round.
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 200);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const LATENCY_MS = 200;
const TARGET = 1.5;

export default {
  name: 'first-event',
  about: `first SSE event of ${CONCURRENT} concurrent streamed runs (model ${LATENCY_MS} ms) next to ${CONCURRENT} concurrent GET /healthz, median of ${ROUNDS} rounds`,
  order: 20,
  async run(ctx) {
    const { percentile } = ctx;
    await ctx.stub.script({ parametric: ['Paris'] });
    // Warm-up: the first requests compile the Worker; the first /healthz asks the stub for its model list.
    for (let i = 0; i < 3; i++) await ctx.stream({ question: `warm up ${i}`, mode: 'parametric' }, () => {});
    await (await fetch(`${ctx.url}/healthz`)).text();
    await ctx.stub.latency(LATENCY_MS);

    const healthBurst = () =>
      Promise.all(
        Array.from({ length: CONCURRENT }, async () => {
          const t0 = performance.now();
          await (await fetch(`${ctx.url}/healthz`)).text();
          return performance.now() - t0;
        }),
      );

    let errors = 0;
    const runBurst = async (round) => {
      const started = performance.now();
      const firsts = (
        await Promise.all(
          Array.from({ length: CONCURRENT }, async (_, i) => {
            let first = 0;
            let status = '';
            try {
              await ctx.stream({ question: `round ${round} run ${i}`, mode: 'parametric' }, (name, data, ms) => {
                if (!first) first = ms;
                if (name === 'done') status = data.status;
              });
              if (status !== 'succeeded') throw new Error(`run ${status || 'ended without done'}`);
              return first;
            } catch (err) {
              if (++errors <= 3) ctx.log(`  error: ${err.message}`);
              return undefined;
            }
          }),
        )
      ).filter((ms) => ms !== undefined);
      return { firsts, wallS: (performance.now() - started) / 1000 };
    };

    const rounds = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const health = await healthBurst();
      const { firsts, wallS } = await runBurst(r);
      const row = { f50: percentile(firsts, 50), f99: percentile(firsts, 99), h50: percentile(health, 50), h99: percentile(health, 99) };
      row.ratio = row.f99 / row.h99;
      rounds.push(row);
      ctx.log(
        `  round ${r}: first event p50 ${row.f50.toFixed(0)} / p99 ${row.f99.toFixed(0)} ms, /healthz p50 ${row.h50.toFixed(0)} / p99 ${row.h99.toFixed(0)} ms: ×${row.ratio.toFixed(2)}; all ${CONCURRENT} runs done in ${wallS.toFixed(2)} s`,
      );
    }
    const mid = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
    return [
      { figure: `first event p50 / p99 (${CONCURRENT} concurrent runs, median round)`, value: `${mid.f50.toFixed(0)} / ${mid.f99.toFixed(0)} ms` },
      { figure: `GET /healthz p50 / p99 (${CONCURRENT} concurrent, same round)`, value: `${mid.h50.toFixed(0)} / ${mid.h99.toFixed(0)} ms` },
      {
        figure: `first event p99 / healthz p99 (median of ${ROUNDS} rounds; all: ${rounds.map((r) => `×${r.ratio.toFixed(2)}`).join(' ')})`,
        value: `×${mid.ratio.toFixed(2)} (p50 ×${(mid.f50 / mid.h50).toFixed(2)})`,
        target: `≤ ×${TARGET}`,
        met: mid.ratio <= TARGET && errors === 0,
      },
      { figure: 'runs that did not succeed', value: String(errors), target: '0', met: errors === 0 },
    ];
  },
};
