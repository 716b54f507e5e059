// The gates group of bench/hostile (issue 33, items 1, 6 and 7): `npm run dev` with live evidence pointed at a Wikimedia
// mirror that misbehaves, two API keys, and POLITENESS_MAX_BACKOFF_MS=8000 so every hold fits the 15 s budget.
//   - the model (the OpenAI-compatible stub) answers one call 429 Retry-After: 999999, then works: the run waits the
//     8 s the maximum allows and succeeds, and /healthz says the model is held meanwhile;
//   - the Wikipedia mirror answers one search 429 Retry-After: 999999: the search waits 8 s and is answered;
//   - the mirror takes 3 s per answer, key A queues 12 searches, then key B one (the case): B's time;
//   - the mirror answers 200 with a MediaWiki error body until it is fixed: the error is not kept, the fixed mirror
//     answers the same search.
// BENCH_PORTS' fourth and fifth ports, when given, are the mirror's (Wikipedia's API; the query service and Wikidata's API).
import { createServer } from 'node:http';
import { measureCase } from './measure.mjs';

const KEY_A = `gates-a-${crypto.randomUUID()}`;
const KEY_B = `gates-b-${crypto.randomUUID()}`;
const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/** A mirror whose Wikipedia API misbehaves on command (POST /__mode {slowMs, holdOnce, broken}), counting what reached it. */
const startMirror = async () => {
  const mode = { slowMs: 0, holdOnce: false, broken: false };
  const seen = [];
  const handler = (req, res) => {
    const url = new URL(req.url, 'http://mirror');
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/__mode') {
      let body = '';
      req.on('data', (d) => (body += d));
      return req.on('end', () => (Object.assign(mode, JSON.parse(body || '{}')), send(200, { seen: seen.length })));
    }
    if (url.pathname === '/sparql') return send(200, { head: { vars: ['x'] }, results: { bindings: [] } });
    if (url.pathname === '/wikidata/w/api.php') return send(200, { entities: { Q64: { labels: { en: { value: 'Berlin' } } } } });
    const q = url.searchParams.get('srsearch') ?? '';
    seen.push(q);
    if (mode.holdOnce) {
      mode.holdOnce = false;
      return send(429, { error: { code: 'ratelimited', info: 'slow down' } }, { 'retry-after': '999999' });
    }
    if (mode.broken) return send(200, { error: { code: 'internal_api_error_DBQueryError', info: 'A database query error has occurred.' } });
    setTimeout(() => send(200, { query: { search: [{ title: `${q} (topic)`, snippet: 'found' }] } }), mode.slowMs);
  };
  const server = createServer(handler);
  // The query service and Wikidata's API on a port of their own, as on their own hosts at Wikimedia: their own gates.
  const other = createServer(handler);
  const port = Number(process.env.BENCH_PORTS?.split(',')[3] ?? 0);
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  await new Promise((r) => other.listen(Number(process.env.BENCH_PORTS?.split(',')[4] ?? 0), '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const otherBase = `http://127.0.0.1:${other.address().port}`;
  const set = (m) => fetch(`${base}/__mode`, { method: 'POST', body: JSON.stringify(m) });
  return {
    vars: {
      EVIDENCE: 'live',
      WIKIPEDIA_API_URL: `${base}/w/api.php`,
      WIKIDATA_SPARQL_URL: `${otherBase}/sparql`,
      WIKIDATA_API_URL: `${otherBase}/wikidata/w/api.php`,
      API_KEYS: `${KEY_A},${KEY_B}`,
      POLITENESS_MAX_BACKOFF_MS: '8000',
    },
    set,
    seen,
    close: () => Promise.all([server, other].map((s) => new Promise((r) => (s.closeAllConnections?.(), s.close(r))))),
  };
};

let mirror;
/** Key A's searches still waiting when B's case has its figure. */
let bursting;

const call = async (url, key, path, body) => {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  return res.json().catch(() => ({ error: { code: `http_${res.status}` } }));
};
const search = (url, key, q) => call(url, key, '/v1/tools/wikisearch', { input: q });
const ask = async (url, question) => {
  const run = await call(url, KEY_A, '/v1/answer', { question, mode: 'parametric' });
  return run.error ? `${run.status ?? ''} ${run.error.code}: ${run.error.message ?? ''}` : `${run.status}: ${run.answer ?? ''}`;
};
const show = (r) => (r.error ? `error: ${r.output ?? r.error.message ?? r.error.code}` : String(r.output ?? '').slice(0, 60));

/** Polls /healthz while `work` runs and says whether it ever warned about a held host (and the model not ready). */
const watchingHealth = async (url, work) => {
  let warned = '';
  let on = true;
  const watcher = (async () => {
    while (on) {
      const h = await (await fetch(`${url}/healthz`)).json().catch(() => ({}));
      if (h.warnings?.length && !warned) warned = `${h.llm?.ready === false ? 'llm.ready false; ' : ''}${h.warnings[0].slice(0, 90)}`;
      await wait(200);
    }
  })();
  try {
    return { value: await work(), warned };
  } finally {
    on = false;
    await watcher;
  }
};

const cases = (url, stub) => [
  {
    name: 'gates: model answers 429 Retry-After: 999999 once (POLITENESS_MAX_BACKOFF_MS 8 s)',
    work: async () => {
      await fetch(stub.url.replace(/\/v1$/, '/__faults'), { method: 'POST', body: JSON.stringify({ status: 429, count: 1, retryAfter: 999999 }) });
      const { value, warned } = await watchingHealth(url, () => ask(url, 'What is the capital of France? held'));
      return `${value}; /healthz meanwhile: ${warned || 'no warning'}`;
    },
  },
  {
    name: 'gates: Wikipedia mirror answers 429 Retry-After: 999999 once',
    work: async () => {
      await mirror.set({ holdOnce: true });
      const { value, warned } = await watchingHealth(url, () => search(url, KEY_A, 'held search'));
      return `${show(value)}; /healthz meanwhile: ${warned || 'no warning'}`;
    },
  },
  {
    name: "gates: key B's 1 search behind key A's 12, mirror 3 s per answer (issue: 15.8 s)",
    work: async () => {
      await mirror.set({ slowMs: 3_000 });
      const before = mirror.seen.length;
      const burst = Array.from({ length: 12 }, (_, i) => search(url, KEY_A, `burst a${i}`));
      while (mirror.seen.length === before) await wait(20);
      await wait(200);
      const t = performance.now();
      const b = await search(url, KEY_B, 'single b');
      const bMs = performance.now() - t;
      // The case's time is B's (and A's first answer, which B asks behind); A's burst ends after it (`after`).
      bursting = Promise.all(burst);
      return `B answered in ${(bMs / 1000).toFixed(1)} s after asking (${show(b)})`;
    },
    after: async () => {
      const done = await bursting;
      await mirror.set({ slowMs: 0 });
      return `A's 12 searches: ${done.filter((r) => !r.error).length} answered`;
    },
  },
  {
    name: 'gates: a 200 with a MediaWiki error body, then the mirror fixed',
    work: async () => {
      await mirror.set({ broken: true });
      const first = await search(url, KEY_A, 'poisoned search');
      await mirror.set({ broken: false });
      const asked = mirror.seen.filter((q) => q === 'poisoned search').length;
      const second = await search(url, KEY_B, 'poisoned search');
      const again = mirror.seen.filter((q) => q === 'poisoned search').length - asked;
      return `asked again after the fix: ${again}×, answered ${show(second)}; before: ${show(first).replace(/^error: Error: /, '')}`;
    },
  },
];

/** bench/hostile group: needs its own dev server (live evidence at the mirror, two keys, a short maximum back-off). */
export const gatesGroup = {
  setup: async () => {
    mirror = await startMirror();
    return mirror;
  },
  run: async ({ url, pid, stub }) => {
    const reference = async () => {
      const r = await call(url, KEY_A, '/v1/tools/getLabel', { input: 'Q64' });
      return show(r);
    };
    await reference();
    const rows = [];
    for (const c of cases(url, stub)) {
      // The model case's own hold must pass before the next normal run: the next check waits it out.
      const next = async () => {
        for (let i = 0; i < 100 && (await (await fetch(`${url}/healthz`)).json()).warnings; i++) await wait(200);
        return /Berlin/.test(await reference());
      };
      const m = await measureCase({ url, pid, reference, work: c.work, next });
      const after = c.after ? `; ${await c.after()}` : '';
      rows.push({ name: c.name, ...m, output: `${m.result}${after}` });
    }
    return rows;
  },
};
