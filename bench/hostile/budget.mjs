// The budget group of bench/hostile (issue 41, item 3): `npm run dev` with live evidence pointed at a MediaWiki
// stand-in that enforces Wikimedia's per-minute limit itself (429 + Retry-After over it), the shared MediaWiki
// budget at 12 a minute as in the issue, and two API keys. The case: one key floods (it spent the whole
// minute in its first second), and another key's run of three sequential searches then took 120.4 s. The figure is
// that run's time while key A floods, against the same run alone in the same bench (the reference column is the
// normal request, getLabel, as in every group). With the budget released through the minute (a burst of 1, then one
// every 5.5 s) and its tokens handed out in turn across keys, B's searches take about every other token.
// BENCH_PORTS' fourth port, when given, is the stand-in's.
import { createMediaWikiStandIn, createPerMinuteLimit, serveStandIn } from '../../tests/support/wikimedia-standins.mjs';
import { measureCase } from './measure.mjs';

const KEY_A = `budget-a-${crypto.randomUUID()}`;
const KEY_B = `budget-b-${crypto.randomUUID()}`;
const PER_MINUTE = 12;
const FLOOD = 11;

let mirror;

const search = async (url, key, q) => {
  const res = await fetch(`${url}/v1/tools/wikisearch`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ input: q }) });
  const body = await res.json().catch(() => ({}));
  return String(body.output ?? body.error?.message ?? `HTTP ${res.status}`);
};
/** Key B's run: three searches, one after another, as an agent makes them; its time and how many were answered. */
const sequential = async (url, tag) => {
  const t = performance.now();
  let answered = 0;
  for (let i = 1; i <= 3; i++) if (!/^Error|not sent/.test(await search(url, KEY_B, `sequential ${tag} b${i}`))) answered++;
  return { s: (performance.now() - t) / 1000, answered };
};
/** Waits until the bucket is full again (a quiet spell longer than one token's release), so each case starts alike. */
const quiet = () => new Promise((r) => setTimeout(r, 6_000));

export const budgetGroup = {
  setup: async () => {
    const limit = createPerMinuteLimit(PER_MINUTE);
    const wiki = createMediaWikiStandIn({ perMinute: limit, latencyMs: 50 });
    const served = await serveStandIn((request) => wiki.handle(request), { port: Number(process.env.BENCH_PORTS?.split(',')[3] ?? 0), path: '/w/api.php' });
    mirror = { limit, close: served.close };
    return {
      vars: {
        EVIDENCE: 'live',
        WIKIPEDIA_API_URL: served.url,
        MEDIAWIKI_REQUESTS_PER_MINUTE: String(PER_MINUTE),
        API_KEYS: `${KEY_A},${KEY_B}`,
        POLITENESS_MAX_WAIT_MS: '120000',
      },
      close: served.close,
    };
  },
  run: async ({ url, pid }) => {
    const reference = async () => (await search(url, KEY_A, 'reference')).slice(0, 40);
    const rows = [];
    let alone;
    await quiet();
    const m1 = await measureCase({ url, pid, reference: async () => '', work: async () => (alone = await sequential(url, 'alone')) });
    rows.push({ name: `budget ${PER_MINUTE}/min: key B's 3 sequential searches alone`, ...m1, output: `${alone.answered}/3 answered in ${alone.s.toFixed(1)} s` });
    await quiet();
    let flood;
    const m2 = await measureCase({
      url,
      pid,
      reference,
      work: async () => {
        const a = Array.from({ length: FLOOD }, (_, i) => search(url, KEY_A, `flood a${i}`));
        await new Promise((r) => setTimeout(r, 200));
        const b = await sequential(url, 'flood');
        flood = Promise.all(a);
        return b;
      },
    });
    const aDone = await flood;
    const stats = mirror.limit.stats();
    rows.push({
      name: `budget ${PER_MINUTE}/min: the same while key A floods ${FLOOD} searches (issue: 120.4 s)`,
      ...m2,
      output: `${m2.result.answered}/3 answered in ${m2.result.s.toFixed(1)} s (alone ${alone.s.toFixed(1)} s: ×${(m2.result.s / alone.s).toFixed(1)}); A's ${aDone.filter((o) => !/^Error|not sent/.test(o)).length}/${FLOOD} answered later; stand-in: ${stats.overBudget} over budget, ${stats.insideRetryAfter} inside a Retry-After, peak ${stats.peakPerMinute}/min`,
    });
    return rows;
  },
};
