// The upstream group of bench/hostile (issue 33, items 3, 5 and 10): `npm run dev` with every upstream — Wikipedia,
// the query service, the Wikidata API, the model server and the OTLP collector — pointed at one hostile stand-in that
// sends its bodies in tiny pieces (one SPARQL binding, one search hit or one byte per write, without end) or answers
// lists far longer than asked. The model keeps its default LLM_TIMEOUT_MS (60 s) and retries, so what ends a reply
// is its byte cap, not a deadline. Per case, besides the shared figures (measure.mjs): the workerd process's CPU
// time over the case, and for model calls what GET /v1/runs/{id} said while the call was under way.
import { createServer } from 'node:http';
import { cpuOf, measureCase, rssOf } from './measure.mjs';

const ROW = '{"a":{"type":"uri","value":"http://www.wikidata.org/entity/Q64"}},';
const HIT = '{"ns":0,"title":"Berlin","snippet":"<span class=\\"searchmatch\\">Berlin</span> is the capital and largest city of Germany"},';
const SPARQL_HEAD = '{"head":{"vars":["a"]},"results":{"bindings":[';
const COMPLETION_HEAD = '{"id":"x","object":"chat.completion","model":"hostile","choices":[{"index":0,"message":{"role":"assistant","content":"';
const COMPLETION_TAIL = '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":10,"total_tokens":20}}';
const event = (content, finish = null) =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'hostile', choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`;

/**
 * Writes `head`, then `unit(i)` for i = 0, 1, … one write each (so one HTTP chunk each) until `count` or for ever, then
 * `tail`; waits for the socket to drain like a real server, and stops when the client goes away.
 */
const perWrite = (res, { status = 200, type = 'application/json', head = '', unit, count = Infinity, tail = '' }) => {
  res.writeHead(status, { 'content-type': type });
  if (head) res.write(head);
  let i = 0;
  let gone = false;
  res.on('close', () => (gone = true));
  const pump = () => {
    while (!gone && i < count) {
      if (!res.write(unit(i++))) return void res.once('drain', pump);
    }
    if (!gone) res.end(tail);
  };
  pump();
};
/** The bytes of `text` one per write, over and over. */
const byteByByte = (text) => (i) => text[i % text.length];

const json = (res, body) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const wikimedia = (url, res) => {
  const p = url.searchParams;
  if (url.pathname === '/sparql') {
    const query = p.get('query') ?? '';
    if (query.includes('#binding-per-write')) return perWrite(res, { head: SPARQL_HEAD, unit: () => ROW });
    if (query.includes('#byte-per-write')) return perWrite(res, { head: SPARQL_HEAD, unit: byteByByte(ROW) });
    if (query.includes('#rows-100000')) {
      const rows = Array.from({ length: 100_000 }, (_, i) => ({ a: { type: 'uri', value: `http://www.wikidata.org/entity/Q${i + 1}` } }));
      return json(res, { head: { vars: ['a'] }, results: { bindings: rows } });
    }
    return json(res, { head: { vars: ['c'] }, results: { bindings: [{ c: { type: 'uri', value: 'http://www.wikidata.org/entity/Q183' } }] } });
  }
  if (url.pathname === '/wikidata/w/api.php') {
    const ids = (p.get('ids') ?? '').split('|');
    if (ids.includes('Q1')) return perWrite(res, { head: '{"entities":{', unit: (i) => `"Q${i + 10}":{"labels":{"en":{"value":"Entity ${i}"}}},` });
    const extra = ids.includes('Q2') ? Array.from({ length: 10_000 }, (_, i) => [`Q${i + 100}`, { labels: { en: { value: `Unasked ${i}` } } }]) : [];
    return json(res, { entities: { ...Object.fromEntries(extra), ...Object.fromEntries(ids.map((id) => [id, { labels: { en: { value: id === 'Q64' ? 'Berlin' : `Entity ${id}` } } }])) } });
  }
  const search = p.get('srsearch') ?? '';
  const title = p.get('titles') ?? p.get('page') ?? '';
  if (search.includes('hit per write')) return perWrite(res, { head: '{"query":{"search":[', unit: () => HIT });
  if (search.includes('byte per write')) return perWrite(res, { head: '{"query":{"search":[', unit: byteByByte(HIT) });
  if (search.includes('ten thousand hits')) {
    const hits = Array.from({ length: 10_000 }, (_, i) => ({ ns: 0, title: `Berlin ${i}`, snippet: `<span class="searchmatch">Berlin</span> ${'is the capital and largest city of Germany by both area and population. '.repeat(3)}` }));
    return json(res, { query: { search: hits } });
  }
  if (title.includes('Error page')) return perWrite(res, { status: 500, type: 'text/html', head: '<html><body>Internal error', unit: byteByByte(' trace line') });
  if (title.includes('Byte page') && p.get('action') === 'query') {
    return perWrite(res, { head: '{"query":{"pages":[{"title":"Byte page","extract":"', unit: byteByByte('Berlin is the capital of Germany. ') });
  }
  if (p.get('action') === 'parse') return json(res, { parse: { title, text: '<p>Berlin</p>' } });
  return json(res, { query: { pages: [{ title: title || 'Berlin', pageprops: { wikibase_item: 'Q64' }, extract: 'Berlin is the capital of Germany.' }] } });
};

const model = (body, res) => {
  const streamed = /"stream"\s*:\s*true/.test(body);
  if (body.includes('#json-byte-per-write')) return perWrite(res, { head: COMPLETION_HEAD, unit: () => 'a' });
  if (body.includes('#events-byte-per-write')) return perWrite(res, { type: 'text/event-stream', unit: byteByByte(event('a ')) });
  if (body.includes('#event-per-write')) return perWrite(res, { type: 'text/event-stream', unit: () => event('a ') });
  if (streamed) return perWrite(res, { type: 'text/event-stream', unit: (i) => [event('Paris'), event(undefined, 'stop')][i], count: 2, tail: 'data: [DONE]\n\n' });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(`${COMPLETION_HEAD}Paris${COMPLETION_TAIL}`);
};

/** One server for every upstream: Wikimedia's three endpoints, the model server and the trace collector. */
const startHostileUpstream = async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === '/v1/chat/completions') return model(body, res);
      if (url.pathname === '/v1/models') return void res.writeHead(404).end();
      // A collector that accepts the spans and then answers without end, one byte per write.
      if (url.pathname === '/v1/traces') return perWrite(res, { unit: byteByByte('{"partialSuccess":{}}') });
      return wikimedia(url, res);
    });
  });
  await new Promise((r) => server.listen(Number(process.env.BENCH_PORTS?.split(',')[3] ?? 0), '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    vars: {
      EVIDENCE: 'live',
      WIKIPEDIA_API_URL: `${base}/w/api.php`,
      WIKIDATA_SPARQL_URL: `${base}/sparql`,
      WIKIDATA_API_URL: `${base}/wikidata/w/api.php`,
      LLM_BASE_URL: `${base}/v1`,
      OTEL_EXPORTER_OTLP_ENDPOINT: base,
    },
    close: () => new Promise((r) => (server.closeAllConnections?.(), server.close(r))),
  };
};


const tool = async (url, name, input) => {
  const res = await fetch(`${url}/v1/tools/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  const body = await res.json().catch(() => ({}));
  return String(body.output ?? body.error?.message ?? res.status);
};

/** What an observation holds, for the list cases: its lines and size, and its first line. */
const listed = (out) => `${out.split('\n').length} lines, ${Math.round(Buffer.byteLength(out) / 1024)} KB: ${out.split('\n')[0]}`;

/** Looks at the newest run every second while `work` runs: what a client polling GET /v1/runs/{id} sees mid-call. */
const watchRun = (url) => {
  const seen = new Set();
  let on = true;
  const loop = (async () => {
    await new Promise((r) => setTimeout(r, 700));
    while (on) {
      const list = await (await fetch(`${url}/v1/runs?limit=1`)).json().catch(() => ({}));
      const id = list.runs?.[0]?.runId;
      if (id) {
        const run = await (await fetch(`${url}/v1/runs/${id}`)).json().catch(() => ({}));
        if (run.status && !['succeeded', 'failed', 'limited', 'cancelled'].includes(run.status)) {
          const w = run.waitingOn?.[0];
          seen.add(`${run.status}${w ? ` (waiting on ${w.kind}${w.purpose ? ` ${w.purpose}` : ''})` : ''}, ${run.steps?.length ?? 0} steps`);
        }
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return async () => ((on = false), await loop, [...seen].join(' / ') || 'nothing seen mid-call');
};

/** A parametric run; `follow` reads it as an event stream (so the model is asked to stream), else waits for the JSON. */
const ask = async (url, question, follow = false) => {
  const watch = watchRun(url);
  const res = await fetch(`${url}/v1/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(follow ? { accept: 'text/event-stream' } : {}) },
    body: JSON.stringify({ question, mode: 'parametric' }),
  });
  let outcome;
  if (follow) {
    const text = await res.text();
    const done = /event: done\ndata: (.*)/.exec(text)?.[1];
    const error = /event: error\n(?:id: \d+\n)?data: (.*)/.exec(text)?.[1];
    const answer = /event: answer\n(?:id: \d+\n)?data: (.*)/.exec(text)?.[1];
    outcome = `${done ? JSON.parse(done).status : res.status}${error ? ` ${JSON.parse(error).code}: ${JSON.parse(error).message}` : `: ${answer ? JSON.parse(answer).answer : ''}`}`;
  } else {
    const run = await res.json().catch(() => ({}));
    outcome = run.error ? `${run.status} ${run.error.code}: ${run.error.message}` : `${run.status ?? res.status}: ${run.answer ?? ''}`;
  }
  return `${outcome} — mid-call: ${await watch()}`;
};

const NORMAL = 'What is the capital of France?';

export const upstreamCases = [
  { name: 'SPARQL: endless bindings, one per write (issue)', work: (url) => tool(url, 'runQuery', 'SELECT ?a WHERE { ?a ?b ?c } #binding-per-write') },
  { name: 'SPARQL: endless answer, one byte per write', work: (url) => tool(url, 'runQuery', 'SELECT ?a WHERE { ?a ?b ?c } #byte-per-write') },
  { name: 'search: endless hits, one per write', work: (url) => tool(url, 'wikisearch', 'hit per write') },
  { name: 'search: endless answer, one byte per write', work: (url) => tool(url, 'wikisearch', 'byte per write') },
  { name: 'entities: endless labels, one per write', work: (url) => tool(url, 'getLabel', 'Q1') },
  { name: 'page: endless extract, one byte per write', work: (url) => tool(url, 'read', 'Byte page') },
  { name: 'page: endless HTTP 500 page, one byte per write', work: (url) => tool(url, 'read', 'Error page') },
  { name: 'model: endless JSON reply, one byte per write (issue)', work: (url) => ask(url, `${NORMAL} #json-byte-per-write`) },
  { name: 'model: endless streamed reply, one byte per write', work: (url) => ask(url, `${NORMAL} #events-byte-per-write`, true) },
  { name: 'model: endless streamed reply, one token event per write', work: (url) => ask(url, `${NORMAL} #event-per-write`, true) },
  { name: 'collector: endless answer, one byte per write; a normal streamed run', work: (url) => ask(url, NORMAL, true) },
  { name: 'search: 10,000 hits to srlimit=5 (issue)', work: async (url) => listed(await tool(url, 'wikisearch', 'ten thousand hits')) },
  { name: 'SPARQL: 100,000 rows to LIMIT 5', work: async (url) => listed(await tool(url, 'runQuery', 'SELECT ?a WHERE { ?a ?b ?c } LIMIT 5 #rows-100000')) },
  { name: 'entities: 10,000 unasked entities with the one asked', work: (url) => tool(url, 'getLabel', 'Q2') },
];

/**
 * The Worker's live JavaScript heap after a full garbage collection, asked of the dev server's inspector
 * (BENCH_PORTS' third port) through the `ws` package that wrangler's miniflare brings (Node's own WebSocket is
 * refused there): what the cases really left behind, which the process's RSS does not say. Undefined when no
 * inspector port is pinned or it does not answer.
 */
const heapAfterGc = async () => {
  const port = process.env.BENCH_PORTS?.split(',')[2];
  const WebSocketClient = (await import('ws').catch(() => undefined))?.default;
  if (!port || !WebSocketClient) return undefined;
  const ws = new WebSocketClient(`ws://127.0.0.1:${port}/ws`);
  try {
    await new Promise((ok, fail) => ws.once('open', ok).once('error', fail));
    const call = (id, method) =>
      new Promise((ok) => {
        const on = (data) => {
          const m = JSON.parse(String(data));
          if (m.id === id) (ws.off('message', on), ok(m.result));
        };
        ws.on('message', on);
        ws.send(JSON.stringify({ id, method }));
      });
    await call(1, 'HeapProfiler.collectGarbage');
    return (await call(2, 'Runtime.getHeapUsage'))?.usedSize;
  } catch {
    return undefined;
  } finally {
    ws.close();
  }
};

const mb = (bytes) => (Number.isFinite(bytes) ? `${Math.round(bytes / 2 ** 20)} MB` : '?');

/** bench/hostile group: its own dev server, every upstream pointed at the hostile stand-in `setup` starts. */
export const upstreamGroup = {
  setup: startHostileUpstream,
  run: async ({ url, pid }) => {
    const reference = () => tool(url, 'getLabel', 'Q64');
    await reference();
    await ask(url, NORMAL);
    const heapBefore = await heapAfterGc();
    const rssBefore = rssOf(pid);
    const rows = [];
    // BENCH_CASES=<regex> runs only the cases whose name matches.
    const only = process.env.BENCH_CASES ? new RegExp(process.env.BENCH_CASES) : undefined;
    for (const c of upstreamCases.filter((c) => !only || only.test(c.name))) {
      const cpu = cpuOf(pid);
      const m = await measureCase({ url, pid, reference, work: () => c.work(url), next: async () => /Berlin/.test(await reference()) });
      const output = `workerd CPU ${(cpuOf(pid) - cpu).toFixed(1)} s; ${m.result}`;
      console.log(`${c.name}: ${Math.round(m.answerMs)} ms, ${output.slice(0, 400)}`);
      rows.push({ name: c.name, ...m, output });
    }
    const heapAfter = await heapAfterGc();
    console.log(`upstream group: the Worker's JS heap after a full GC ${mb(heapBefore)} before the cases, ${mb(heapAfter)} after them; workerd RSS ${mb(rssBefore)} → ${mb(rssOf(pid))}`);
    return rows;
  },
};
