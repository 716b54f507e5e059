// A local stand-in for the Wikibase API (`api.php?action=wbgetentities`) on 127.0.0.1: answers from a small
// table of names, so tests and rehearsals fetch labels and aliases without touching Wikimedia.
//
//   const api = await startWikidataApi({ Q30: { en: ['United States of America', 'USA'] } });
//   api.url  → http://127.0.0.1:<port>/w/api.php ; api.requests → the query strings received
import { createServer } from 'node:http';

/** @param {Record<string, Record<string, string[]>>} names  id → language → [label, ...aliases] */
export const startWikidataApi = async (names, { host = '127.0.0.1' } = {}) => {
  const requests = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://stub');
    requests.push(url.search);
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname !== '/w/api.php' || url.searchParams.get('action') !== 'wbgetentities') return send(404, { error: { info: 'unknown action' } });
    const ids = (url.searchParams.get('ids') ?? '').split('|').filter(Boolean);
    if (ids.length > 50) return send(200, { error: { code: 'too-many', info: 'Too many values supplied for parameter "ids". The limit is 50.' } });
    const languages = (url.searchParams.get('languages') ?? 'en').split('|');
    const entities = {};
    for (const id of ids) {
      const known = names[id];
      if (!known) {
        entities[id] = { id, missing: '' };
        continue;
      }
      const labels = {};
      const aliases = {};
      for (const lang of languages) {
        const [label, ...rest] = known[lang] ?? [];
        if (label) labels[lang] = { language: lang, value: label };
        if (rest.length) aliases[lang] = rest.map((value) => ({ language: lang, value }));
      }
      entities[id] = { type: 'item', id, labels, aliases };
    }
    send(200, { entities, success: 1 });
  });
  await new Promise((resolve) => server.listen(0, host, resolve));
  const { port } = server.address();
  return { url: `http://${host}:${port}/w/api.php`, requests, close: () => new Promise((r) => server.close(r)) };
};
