// Stand-ins for the Wikidata Query Service and the MediaWiki Action API that enforce the services' published
// contracts instead of always saying yes, and count every breach. They are plain `(Request) => Promise<Response>`
// handlers, so a workerd test drives them through a fetch spy and a bench serves them on 127.0.0.1 (serveStandIn).
//
//   const wdqs = createWdqsStandIn({ queryMsPerMinute: 60_000, costMs: () => 400 });
//   const wiki = createMediaWikiStandIn({ lagSeconds: (now) => (now % 30_000 < 3_000 ? 8 : 0) });
//   vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => route(new Request(input, init)));
//   wdqs.stats() → { requests, insideRetryAfter, peakQueryMsPerMinute, … }
//   const limit = createPerMinuteLimit(200);   // Wikimedia's per-client limit, one counter for both API hosts
//   const wikipedia = createMediaWikiStandIn({ perMinute: limit }), wikidataApi = createMediaWikiStandIn({ perMinute: limit });
//
// Hostile answers for the limits of issue 33: `rows` answers that many bindings whatever the query's LIMIT (Infinity:
// without end) and `pieces` writes them whole, one binding per chunk or one byte per chunk; `searchHits` answers that
// many search hits whatever srlimit asked, `extraEntities` adds that many entities nobody asked for.
//
// "withoutContact" counts User-Agents with no e-mail address or URL (WIKIMEDIA_CONTACT unset).
// "insideRetryAfter" is what the real services punish: a request that arrives while an earlier Retry-After still
// runs (WDQS bans such a client, reported as 24 hours). A polite client keeps it at 0.

const MINUTE = 60_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const json = (body, status = 200, headers = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * SPARQL results of `rows` bindings (Infinity: without end) made by `binding(i)`, written whole, one binding per chunk
 * (`pieces: 'binding'`) or one byte per chunk (`pieces: 'byte'`). A streamed body stops when its reader cancels it.
 */
const sparqlRows = (rows, binding, pieces = 'whole') => {
  if (pieces === 'whole') return json({ head: { vars: ['x'] }, results: { bindings: Array.from({ length: rows }, (_, i) => binding(i)) } });
  const encoder = new TextEncoder();
  const head = encoder.encode('{"head":{"vars":["x"]},"results":{"bindings":[');
  let i = 0;
  let queued = [head];
  const body = new ReadableStream({
    pull(controller) {
      if (!queued.length) {
        if (i >= rows) return controller.close();
        const text = `${i ? ',' : ''}${JSON.stringify(binding(i))}${i + 1 >= rows ? ']}}' : ''}`;
        i++;
        const bytes = encoder.encode(text);
        queued = pieces === 'byte' ? Array.from(bytes, (b) => Uint8Array.of(b)) : [bytes];
      }
      controller.enqueue(queued.shift());
    },
  });
  return new Response(body, { headers: { 'content-type': 'application/sparql-results+json' } });
};

/** A small stable number from a string, so answers are the same for the same request. */
const hash = (text) => {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
};

/** Wikimedia's User-Agent policy: a name plus a way to reach the operator (a URL or an e-mail), not a library default. */
const descriptive = (ua) => !!ua && /\S+\/\S+/.test(ua) && /(https?:\/\/|@|\(.+\))/.test(ua);
/** The part of the policy a name alone does not meet: an e-mail address or a URL to reach the operator by. */
const withContact = (ua) => !!ua && /(https?:\/\/\S+|[^\s(;]+@[^\s);]+\.[a-z]+)/i.test(ua);

/**
 * The query service: each query costs `costMs(query)` of query time (the answer waits that long). Over
 * `queryMsPerMinute` of query time, or `errorsPerMinute` failed queries, in the last minute, it answers 429 with a
 * Retry-After until the minute is back under budget. `failWhen(query)` makes a query fail (HTTP 500, counted as an error).
 */
export const createWdqsStandIn = ({
  queryMsPerMinute = 60_000,
  errorsPerMinute = 30,
  costMs = () => 50,
  failWhen = () => false,
  now = () => Date.now(),
  rows = 1,
  pieces = 'whole',
} = {}) => {
  const spent = []; // [answeredAt, ms]
  const errors = [];
  const forced = [];
  let retryUntil = 0;
  const s = { requests: 0, answered: 0, tooMany: 0, failed: 0, insideRetryAfter: 0, peakQueryMsPerMinute: 0, withoutUserAgent: 0, withoutContact: 0, queries: new Map() };

  const usedMs = (t) => spent.filter(([at]) => at > t - MINUTE).reduce((a, [, ms]) => a + ms, 0);
  const recentErrors = (t) => errors.filter((at) => at > t - MINUTE).length;
  const tooMany = (seconds) => {
    const t = now();
    retryUntil = Math.max(retryUntil, t + seconds * 1000);
    s.tooMany++;
    return new Response('Too Many Requests: see the query service usage policy', { status: 429, headers: { 'retry-after': String(seconds) } });
  };

  const handle = async (request) => {
    const t = now();
    s.requests++;
    if (!descriptive(request.headers.get('user-agent'))) s.withoutUserAgent++;
    if (!withContact(request.headers.get('user-agent'))) s.withoutContact++;
    if (t < retryUntil) {
      s.insideRetryAfter++;
      return tooMany(Math.ceil((retryUntil - t) / 1000));
    }
    if (forced.length) return tooMany(forced.shift());
    const url = new URL(request.url);
    const query = url.searchParams.get('query') ?? new URLSearchParams(await request.text()).get('query') ?? '';
    if (usedMs(t) >= queryMsPerMinute) {
      const oldest = spent.filter(([at]) => at > t - MINUTE).sort((a, b) => a[0] - b[0])[0];
      return tooMany(Math.max(1, Math.ceil((oldest[0] + MINUTE - t) / 1000)));
    }
    if (recentErrors(t) >= errorsPerMinute) {
      const oldest = Math.min(...errors.filter((at) => at > t - MINUTE));
      return tooMany(Math.max(1, Math.ceil((oldest + MINUTE - t) / 1000)));
    }
    s.queries.set(query, (s.queries.get(query) ?? 0) + 1);
    const cost = costMs(query);
    await sleep(cost);
    const done = now();
    spent.push([done, cost]);
    s.peakQueryMsPerMinute = Math.max(s.peakQueryMsPerMinute, usedMs(done));
    if (failWhen(query)) {
      errors.push(done);
      s.failed++;
      return new Response('java.util.concurrent.ExecutionException: query failed', { status: 500 });
    }
    s.answered++;
    const first = hash(query) % 90_000;
    return sparqlRows(rows, (i) => ({ x: { type: 'uri', value: `http://www.wikidata.org/entity/Q${((first + i) % 90_000) + 10}` } }), pieces);
  };

  return {
    handle,
    /** The next `count` queries are answered 429 with this Retry-After (seconds), whatever the budget. */
    forceRetryAfter: (seconds, count = 1) => {
      for (let i = 0; i < count; i++) forced.push(seconds);
    },
    /** When the current Retry-After window ends (0: none). */
    retryUntil: () => retryUntil,
    stats: () => ({ ...s, distinctQueries: s.queries.size, queries: undefined }),
  };
};

/**
 * Wikimedia's API request limit per client and minute, counted across its projects (2026: 10 for a client known only
 * by its IP, 200 with a contact in its User-Agent, 200–2,000 authenticated). One limit is shared by the stand-ins of
 * every MediaWiki host it is given to. Over it a request is answered 429 with a Retry-After (until enough of the
 * minute's requests have left the window), and a request arriving inside a Retry-After is counted as a breach.
 */
export const createPerMinuteLimit = (limit, { now = () => Date.now() } = {}) => {
  const admitted = [];
  let retryUntil = 0;
  const s = { admitted: 0, overBudget: 0, insideRetryAfter: 0, peakPerMinute: 0 };
  return {
    /** Counts one request at `t`: undefined when it is within the limit, else the Retry-After (seconds) to answer with. */
    take(t = now()) {
      while (admitted.length && admitted[0] <= t - MINUTE) admitted.shift();
      if (t < retryUntil) s.insideRetryAfter++;
      if (admitted.length >= limit) {
        s.overBudget++;
        const seconds = Math.max(1, Math.ceil((admitted[0] + MINUTE - t) / 1000));
        retryUntil = Math.max(retryUntil, t + seconds * 1000);
        return seconds;
      }
      admitted.push(t);
      s.admitted++;
      s.peakPerMinute = Math.max(s.peakPerMinute, admitted.length);
      return undefined;
    },
    stats: () => ({ ...s, limit }),
  };
};

/**
 * The MediaWiki Action API (Wikipedia search and pages, Wikidata's wbgetentities). `perMinute` (createPerMinuteLimit)
 * enforces Wikimedia's per-client request limit, shared with the other hosts given the same one. `lagSeconds(now)` is the
 * replication lag: a request whose `maxlag` is below it gets MediaWiki's maxlag error with Retry-After (and a request
 * inside that window is counted as a breach). It also counts requests without maxlag or a descriptive User-Agent,
 * and the most requests it served at once (the etiquette asks for one at a time).
 */
export const createMediaWikiStandIn = ({ lagSeconds = () => 0, retryAfterSeconds = 5, latencyMs = 10, now = () => Date.now(), searchHits = 1, extraEntities = 0, perMinute, answer: custom } = {}) => {
  let retryUntil = 0;
  let inflight = 0;
  const s = { requests: 0, maxlagAnswers: 0, tooMany: 0, insideRetryAfter: 0, withoutMaxlag: 0, withoutUserAgent: 0, withoutContact: 0, peakConcurrency: 0, distinct: new Set() };
  /** The query string of every request, and of every request answered, in order. */
  const received = [];
  const answered = [];

  const answer = (p) => {
    const action = p.get('action');
    if (action === 'wbgetentities') {
      const ids = (p.get('ids') ?? '').split('|').filter(Boolean);
      const extra = Array.from({ length: extraEntities }, (_, i) => `Q${900_000 + i}`);
      return { entities: Object.fromEntries([...extra, ...ids].map((id) => [id, { id, labels: { en: { language: 'en', value: `Entity ${id}` } } }])) };
    }
    if (action === 'parse') return { parse: { title: p.get('page'), text: `<p>${p.get('page')} is a topic.</p><table><tr><th>Year</th><th>Value</th></tr><tr><td>2001</td><td>7</td></tr></table>` } };
    if (p.get('list') === 'search') {
      const q = p.get('srsearch') ?? '';
      const hits = Array.from({ length: searchHits }, (_, i) => ({ title: `${q} (topic${i ? ` ${i + 1}` : ''})`, snippet: `<span class="searchmatch">${q}</span> is described here.` }));
      return { query: { search: hits } };
    }
    const title = p.get('titles') ?? '';
    const id = `Q${(hash(title) % 90_000) + 10}`;
    return {
      query: {
        pages: [{ title, pageprops: { wikibase_item: id }, extract: `${title} is a subject of a stand-in page.\n\n== History ==\nIt began in ${1900 + (hash(title) % 120)}.` }],
      },
    };
  };

  const handle = async (request) => {
    const t = now();
    s.requests++;
    inflight++;
    s.peakConcurrency = Math.max(s.peakConcurrency, inflight);
    try {
      if (!descriptive(request.headers.get('user-agent'))) s.withoutUserAgent++;
      if (!withContact(request.headers.get('user-agent'))) s.withoutContact++;
      const url = new URL(request.url);
      s.distinct.add(url.search);
      received.push(url.search);
      if (t < retryUntil) s.insideRetryAfter++;
      const over = perMinute?.take(t);
      if (over !== undefined) {
        s.tooMany++;
        return json({ error: { code: 'ratelimited', info: 'You have exceeded your rate limit. Please wait some time and try again.' } }, 429, { 'retry-after': String(over) });
      }
      const maxlag = url.searchParams.get('maxlag');
      if (maxlag === null) s.withoutMaxlag++;
      const lag = lagSeconds(t);
      await sleep(latencyMs);
      if (maxlag !== null && lag > Number(maxlag)) {
        s.maxlagAnswers++;
        retryUntil = Math.max(retryUntil, now() + retryAfterSeconds * 1000);
        return json(
          { error: { code: 'maxlag', info: `Waiting for a database server: ${lag} seconds lagged.`, host: 'db1', lag } },
          200,
          { 'retry-after': String(retryAfterSeconds), 'x-database-lag': String(lag), 'mediawiki-api-error': 'maxlag' },
        );
      }
      const res = (await custom?.(url.searchParams)) ?? json(answer(url.searchParams));
      answered.push(url.search);
      return res;
    } finally {
      inflight--;
    }
  };

  // Counting by pattern: a run of an earlier test may still be fetching in the background (a prefetched page) and
  // land here, so a test counts the requests of its own questions.
  const count = (list, pattern) => list.filter((q) => pattern.test(decodeURIComponent(q.replace(/\+/g, ' ')))).length;
  return {
    handle,
    retryUntil: () => retryUntil,
    stats: () => ({ ...s, distinct: s.distinct.size }),
    /** Requests whose decoded query string matches `pattern`. */
    received: (pattern) => count(received, pattern),
    /** Of those, the ones answered successfully. */
    answered: (pattern) => count(answered, pattern),
  };
};

/**
 * Serves a stand-in on 127.0.0.1 for benches and dev servers (Node only).
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export const serveStandIn = async (handle, { port = 0, host = '127.0.0.1', path = '/' } = {}) => {
  const { createServer } = await import('node:http');
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const request = new Request(`http://${host}${req.url}`, { method: req.method, headers: req.headers, body: req.method === 'GET' ? undefined : body });
    const response = await handle(request).catch((err) => new Response(String(err), { status: 500 }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    // Chunk by chunk, as written (one HTTP chunk each), until the body ends or the client goes away.
    const reader = response.body?.getReader();
    res.once('close', () => reader?.cancel().catch(() => {}));
    for (let next = await reader?.read(); next && !next.done && !res.destroyed; next = await reader.read()) {
      if (!res.write(next.value)) {
        await new Promise((r) => {
          const done = () => (res.off('drain', done), res.off('close', done), r());
          res.on('drain', done).on('close', done);
        });
      }
    }
    res.end();
  });
  server.keepAliveTimeout = 1_000;
  await new Promise((resolve) => server.listen(port, host, resolve));
  return { url: `http://${host}:${server.address().port}${path}`, close: () => new Promise((r) => server.close(r)) };
};
