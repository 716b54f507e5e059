// bench/latency group `first-event` (issue 25): how soon a streamed run's first event reaches its client while 200
// runs start at once with a 200 ms model, next to 200 concurrent GET /healthz in the same run (the dev server's own
// cost for a route that does nothing). Closed-book runs: one model call each, so all 200 are in flight together.
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 200);
const LATENCY_MS = 200;
const TARGET = 1.5;

export default {
  name: 'first-event',
  about: `first SSE event of ${CONCURRENT} concurrent streamed runs (model ${LATENCY_MS} ms) next to ${CONCURRENT} concurrent GET /healthz`,
  order: 20,
  async run(ctx) {
    const { percentile } = ctx;
    await ctx.stub.script({ parametric: ['Paris'] });
    // Warm-up: the first requests compile the Worker; the first /healthz asks the stub for its model list.
    for (let i = 0; i < 3; i++) await ctx.stream({ question: `warm up ${i}`, mode: 'parametric' }, () => {});
    await (await fetch(`${ctx.url}/healthz`)).text();

    const health = await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        const t0 = performance.now();
        await (await fetch(`${ctx.url}/healthz`)).text();
        return performance.now() - t0;
      }),
    );

    await ctx.stub.latency(LATENCY_MS);
    let errors = 0;
    const started = performance.now();
    const firsts = (
      await Promise.all(
        Array.from({ length: CONCURRENT }, async (_, i) => {
          let first = 0;
          let status = '';
          try {
            await ctx.stream({ question: `concurrent ${i}`, mode: 'parametric' }, (name, data, ms) => {
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
    const wallS = (performance.now() - started) / 1000;

    const [f50, f99, h50, h99] = [percentile(firsts, 50), percentile(firsts, 99), percentile(health, 50), percentile(health, 99)];
    ctx.log(`  first event: p50 ${f50.toFixed(1)} ms, p99 ${f99.toFixed(1)} ms; ${errors} errors; all ${CONCURRENT} runs done in ${wallS.toFixed(2)} s`);
    ctx.log(`  GET /healthz: p50 ${h50.toFixed(1)} ms, p99 ${h99.toFixed(1)} ms`);
    const ratio = f99 / h99;
    return [
      { figure: `first event p50 / p99 (${CONCURRENT} concurrent runs)`, value: `${f50.toFixed(0)} / ${f99.toFixed(0)} ms` },
      { figure: `GET /healthz p50 / p99 (${CONCURRENT} concurrent)`, value: `${h50.toFixed(0)} / ${h99.toFixed(0)} ms` },
      { figure: 'first event p99 / healthz p99', value: `×${ratio.toFixed(2)} (p50 ×${(f50 / h50).toFixed(2)})`, target: `≤ ×${TARGET}`, met: ratio <= TARGET && errors === 0 },
      { figure: 'runs that did not succeed', value: String(errors), target: '0', met: errors === 0 },
    ];
  },
};
