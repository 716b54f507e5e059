// The live-evidence cases of bench/hostile: `npm run dev` with EVIDENCE=live pointed at a local stand-in of
// Wikimedia that answers with bodies that never end (or end late), each case through `POST /v1/tools/<tool>` next
// to a normal getLabel call measured just before it. What it shows: a response is abandoned at its byte cap
// (src/evidence/live/http.ts, 8 MiB), so the Worker's memory stays flat and the next call works.
import { createServer } from 'node:http';
import { measureCase } from './measure.mjs';

const MB = 1024 * 1024;
const ROW = '{"a":{"type":"uri","value":"http://www.wikidata.org/entity/Q64"}},';

/**
 * Streams `head`, then `unit` until `bytes` (or for ever), then `tail`; stops when the client goes away. With `everyMs`,
 * one `unit` per tick (a body that keeps arriving slowly). Shared with the model group (model.mjs).
 */
export const stream = (res, { status = 200, head, unit, bytes = Infinity, tail = '', everyMs = 0, type = 'application/json' }) => {
  res.writeHead(status, { 'content-type': type });
  res.write(head);
  let sent = head.length;
  if (everyMs) {
    const tick = setInterval(() => res.write(unit), everyMs);
    return void res.on('close', () => clearInterval(tick));
  }
  const block = unit.repeat(Math.ceil(64 * 1024 / unit.length));
  const pump = () => {
    while (sent < bytes) {
      sent += block.length;
      if (!res.write(block)) return void res.once('drain', pump);
    }
    res.end(tail);
  };
  res.on('close', () => (sent = Infinity));
  pump();
};

/** A Wikimedia stand-in: which answer comes back is chosen by the query text, so each case can pick its own. */
const startHostileWikimedia = async () => {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const query = url.searchParams.get('query') ?? '';
    if (url.pathname === '/wikidata/w/api.php') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ entities: { Q64: { labels: { en: { value: 'Berlin' } }, descriptions: { en: { value: 'capital of Germany' } } } } }));
    }
    if (url.pathname === '/sparql') {
      const head = '{"head":{"vars":["a"]},"results":{"bindings":[';
      if (query.includes('#endless')) return stream(res, { head, unit: ROW });
      if (query.includes('#error-page')) return stream(res, { status: 500, head: '<html><body>Internal error', unit: ' trace line' });
      if (query.includes('#seven-mb')) return stream(res, { head, unit: ROW, bytes: 7 * MB, tail: `${ROW.slice(0, -1)}]}}` });
      return stream(res, { head, unit: ROW, bytes: 0, tail: `${ROW.slice(0, -1)}]}}` });
    }
    // Wikipedia: every search is an answer that never ends.
    return stream(res, { head: '{"query":{"search":[', unit: '{"title":"Berlin","snippet":"capital"},' });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    vars: { EVIDENCE: 'live', WIKIPEDIA_API_URL: `${base}/w/api.php`, WIKIDATA_SPARQL_URL: `${base}/sparql`, WIKIDATA_API_URL: `${base}/wikidata/w/api.php` },
    close: () => new Promise((r) => server.close(r)),
  };
};

export const liveCases = [
  { name: 'live: SPARQL results that never end', tool: 'runQuery', input: 'SELECT ?a WHERE { ?a ?b ?c } #endless' },
  { name: 'live: search answer that never ends', tool: 'wikisearch', input: 'Berlin' },
  { name: 'live: error page that never ends (HTTP 500)', tool: 'runQuery', input: 'SELECT ?a WHERE { ?a ?b ?c } #error-page' },
  { name: 'live: 7 MB SPARQL answer (under the cap)', tool: 'runQuery', input: 'SELECT ?a WHERE { ?a ?b ?c } #seven-mb' },
];

const tool = async (url, name, input) => {
  const res = await fetch(`${url}/v1/tools/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  const body = await res.json().catch(() => ({}));
  return String(body.output ?? body.error?.message ?? res.status);
};

/** bench/hostile group: needs its own dev server (live evidence), whose variables `setup` returns. */
export const liveGroup = {
  setup: startHostileWikimedia,
  run: async ({ url, pid }) => {
    const reference = () => tool(url, 'getLabel', 'Q64');
    await reference();
    const rows = [];
    for (const c of liveCases) {
      const m = await measureCase({ url, pid, reference, work: () => tool(url, c.tool, c.input), next: async () => /Berlin/.test(await reference()) });
      rows.push({ name: c.name, ...m, output: m.result });
    }
    return rows;
  },
};
