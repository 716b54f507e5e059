// The health group of bench/hostile (issue 41, item 6): the slowest /healthz while 100 runs (the group's key allows
// 120 requests a minute) queue at the model's
// politeness gate (a 200 ms model, LLM_CONCURRENCY 8). /healthz used to ask every gate, the busy model gate among
// them, on every probe; it now reads the gates' status board. The p99 under a 200-request burst beside GET /v1/runs is
// bench:latency's health-burst group.
import { measureCase } from './measure.mjs';

const control = (stub, path, body) => fetch(stub.url.replace(/\/v1$/, path), { method: 'POST', body: JSON.stringify(body) });

export const healthGroup = {
  run: async ({ url, pid, stub }) => {
    const ask = async (question) =>
      (await (await fetch(`${url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, mode: 'parametric' }) })).json()).status;
    const m = await measureCase({
      url,
      pid,
      reference: () => ask('What is the capital of France?'),
      work: async () => {
        await control(stub, '/__latency', { ms: 200 });
        const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => ask(`queued run ${i}?`)));
        await control(stub, '/__latency', { ms: 0 });
        return `${statuses.filter((s) => s === 'succeeded').length}/100 runs succeeded`;
      },
      next: async () => (await ask('What is the capital of Italy?')) === 'succeeded',
    });
    return [{ name: 'health: 100 runs queued at the model gate (200 ms model)', ...m, output: m.result }];
  },
};
