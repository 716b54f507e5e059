// Shared measuring for bench/hostile: the workerd process's RSS (VmRSS from /proc, not any counter of our own),
// /healthz latency while a case runs, and one printed table for every case module.
//
// A case module exports `run<Group>Cases({ url, pid, stub })` → rows of this shape (sparql.mjs returns the same):
//   { name, answerMs, referenceMs, rssBefore, rssPeak, rssAfter, healthMaxMs, healthOk, nextWorks, output }
// `measureCase` below fills every field but `name` and `output` from one piece of work.
import { readFileSync } from 'node:fs';

export const rssOf = (pid) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
};

/**
 * Runs `work` while polling /healthz and sampling the RSS; `reference` (a normal request) runs just before it and
 * `next` (does a normal request still work?) just after.
 * @returns {Promise<{answerMs, referenceMs, rssBefore, rssPeak, rssAfter, healthMaxMs, healthOk, nextWorks, result}>}
 */
/** CPU seconds a process has used: utime + stime from /proc, in clock ticks of 10 ms (NaN when it cannot be read). */
export const cpuOf = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
};

export const measureCase = async ({ url, pid, reference, work, next }) => {
  const ref = await timed(reference);
  const rssBefore = rssOf(pid);
  let running = true;
  let healthMaxMs = 0;
  let healthOk = true;
  let rssPeak = rssBefore;
  const poller = (async () => {
    while (running) {
      const t = performance.now();
      try {
        const h = await (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(60_000) })).json();
        healthOk &&= h.ok === true;
      } catch {
        healthOk = false;
      }
      healthMaxMs = Math.max(healthMaxMs, performance.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(pid) || 0)), 20);
  let out;
  try {
    out = await timed(work);
  } finally {
    running = false;
    clearInterval(sampler);
    await poller;
  }
  const rssAfter = rssOf(pid);
  const nextWorks = next ? await next() : true;
  return { answerMs: out.ms, referenceMs: ref.ms, rssBefore, rssPeak: Math.max(rssPeak, rssAfter || 0), rssAfter, healthMaxMs, healthOk, nextWorks, result: out.value };
};

const timed = async (fn) => {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
};

const mb = (b) => (Number.isFinite(b) ? `${Math.round(b / 2 ** 20)}` : '?');

/** One markdown table for all rows, then the worst figures against the issue's budgets. */
export const printRows = (rows, { pageBudgetMs = 30_000, budgetMs = 15_000 } = {}) => {
  const head = ['case', 'answer ms', 'normal ms', 'RSS before/peak/after MB', 'peak growth MB', '/healthz max ms', 'next ok', 'observation'];
  console.log(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
  for (const r of rows) {
    console.log(`| ${[
      r.name,
      r.answerMs.toFixed(0),
      r.referenceMs.toFixed(0),
      `${mb(r.rssBefore)}/${mb(r.rssPeak)}/${mb(r.rssAfter)}`,
      mb(r.rssPeak - r.rssBefore),
      `${r.healthMaxMs.toFixed(0)}${r.healthOk ? '' : ' (not ok)'}`,
      r.nextWorks ? 'yes' : 'NO',
      String(r.output).replace(/\s+/g, ' ').replace(/\|/g, '/').slice(0, 110),
    ].join(' | ')} |`);
  }
  const over = rows.filter((r) => r.answerMs > (r.page ? pageBudgetMs : budgetMs) || r.rssPeak - r.rssBefore > 400 * 2 ** 20 || r.healthMaxMs > 1000 || !r.nextWorks);
  const worst = (f) => rows.reduce((m, r) => Math.max(m, f(r) || 0), 0);
  console.log(
    `\nworst: answer ${worst((r) => r.answerMs).toFixed(0)} ms (budget ${budgetMs}, pages ${pageBudgetMs}), RSS growth ${mb(worst((r) => r.rssPeak - r.rssBefore))} MB (budget 400 per request), ` +
      `/healthz ${worst((r) => r.healthMaxMs).toFixed(0)} ms (budget 1000); ${over.length ? `over a budget: ${over.map((r) => r.name).join(', ')}` : 'every case within its budgets'}`,
  );
};
