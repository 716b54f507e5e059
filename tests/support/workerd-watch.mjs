// What a Node test sees of a dev server's workerd while some work runs: the process's resident memory (VmRSS from
// /proc, not any counter of the service's own) and whether /healthz kept answering `ok` — the same readings
// bench/hostile takes, as a helper for tests that assert a hostile input harms nothing else. No timing is asserted
// from these: a test compares memory against a generous bound and reads the health answers.
import { readdirSync, readFileSync } from 'node:fs';

const statusOf = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};
const parentOf = (pid) => Number(/PPid:\s+(\d+)/.exec(statusOf(pid))?.[1] ?? 0);

/** Resident memory of a process in bytes (NaN when it cannot be read: not Linux, or the process is gone). */
export const rssOf = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(statusOf(pid));
  return m ? Number(m[1]) * 1024 : NaN;
};

/**
 * The workerd that runs the Worker, among the processes `ancestor` started (a dev server's cli/dev.mjs pid):
 * `wrangler dev` runs two, a small proxy and the runtime with an inspector address, which is the one wanted.
 */
export const workerdOf = (ancestor) => {
  const ours = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!pid) continue;
    let comm = '';
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm !== 'workerd') continue;
    for (let p = parentOf(pid), hops = 0; p > 1 && hops < 20; p = parentOf(p), hops++) {
      if (p !== ancestor) continue;
      let args = '';
      try {
        args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        // gone meanwhile
      }
      ours.push({ pid, runtime: args.includes('--inspector-addr'), rss: rssOf(pid) });
      break;
    }
  }
  // Under a restart the old runtime can linger for a moment: the larger one is the one serving.
  return ours.sort((a, b) => Number(b.runtime) - Number(a.runtime) || b.rss - a.rss)[0]?.pid;
};

/**
 * Runs `work` while sampling the workerd's RSS every 20 ms and asking `${url}/healthz` one request after another.
 * @returns {Promise<{ value: unknown, rssBefore: number, rssPeak: number, health: { asked: number, ok: number, warnings: string[] } }>}
 */
export const watchWorkerd = async ({ url, pid }, work) => {
  const workerd = workerdOf(pid);
  const rssBefore = workerd ? rssOf(workerd) : NaN;
  let rssPeak = rssBefore;
  const health = { asked: 0, ok: 0, warnings: [] };
  let running = true;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, workerd ? rssOf(workerd) || 0 : NaN)), 20);
  const poller = (async () => {
    while (running) {
      health.asked++;
      try {
        const h = await (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(60_000) })).json();
        if (h.ok === true) health.ok++;
        for (const w of h.warnings ?? []) if (!health.warnings.includes(w)) health.warnings.push(w);
      } catch {
        // counted as asked and not ok
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    return { value: await work(), rssBefore, rssPeak, health };
  } finally {
    running = false;
    clearInterval(sampler);
    await poller;
  }
};
