import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';
import { createWdqsStandIn, serveStandIn } from '../support/wikimedia-standins.mjs';
import { watchWorkerd } from '../support/workerd-watch.mjs';

/**
 * Issue 33, items 3 and 5, over real sockets: upstream bodies without end, written in tiny pieces (one HTTP chunk per
 * write), against `npm run dev`. The model's deadline stays at its default minute and the query service's at 15 s,
 * so what ends each body here is its cap, counted as the pieces arrive. Issue 41, item 5: what is refused is a
 * trickle (pieces a few bytes each on average), never an honest server's many small writes.
 */
let dev: DevServer;
let stub: Stub;
let wdqs: { url: string; close(): Promise<void> };
beforeAll(async () => {
  const byTag = {
    '#per-binding': createWdqsStandIn({ rows: Infinity, pieces: 'binding' }),
    '#per-byte': createWdqsStandIn({ rows: Infinity, pieces: 'byte' }),
    '#whole': createWdqsStandIn({ rows: 200_000 }),
  };
  const pick = (request: Request) => Object.entries(byTag).find(([tag]) => new URL(request.url).searchParams.get('query')?.includes(tag))![1];
  wdqs = await serveStandIn((request) => pick(request).handle(request), { path: '/sparql' });
  stub = await startStub();
  dev = await startDev({ vars: { LLM_BASE_URL: stub.url, LLM_MAX_RETRIES: '0', EVIDENCE: 'live', WIKIDATA_SPARQL_URL: wdqs.url } });
}, 180_000);
afterAll(async () => {
  await dev?.stop();
  await stub?.close();
  await wdqs?.close();
});

const runQuery = async (query: string) => {
  const res = await fetch(`${dev.url}/v1/tools/runQuery`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: query }) });
  const body = (await res.json()) as { output?: string; error?: { message: string } };
  return body.output ?? body.error?.message ?? '';
};

describe('an upstream body without end, in tiny pieces', () => {
  it('SPARQL results one binding or one byte per write are refused by their pieces, long before 8 MB', async () => {
    expect(await runQuery('SELECT ?x WHERE { ?x ?p ?o } #per-binding')).toMatch(/sent its answer in 1,025 pieces averaging \d+\.\d bytes \(under the 256 a piece must average\); the answer was not read/);
    expect(await runQuery('SELECT ?x WHERE { ?x ?p ?o } #per-byte')).toMatch(/sent its answer in 1,025 pieces averaging 1\.\d bytes/);
    // Rows that ignore the LIMIT, written in large pieces: the byte cap.
    expect(await runQuery('SELECT ?x WHERE { ?x ?p ?o } #whole')).toMatch(/sent more than 8 MB; the answer was not read/);
  });

  it('a model reply one byte per write is refused by the cap, streamed or not, with llm_response_too_large', async () => {
    stub.trickle({ bytes: 1 });
    const res = await fetch(`${dev.url}/v1/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What is the capital of France?', mode: 'parametric' }),
    });
    const run = (await res.json()) as any;
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'llm_response_too_large' });
    expect(run.error.message).toMatch(/came in 1025 pieces averaging 1\.\d bytes \(\d+ bytes in all\): a trickle, since past the first 1024 pieces a reply's pieces must average at least 32 bytes/);

    // Followed as it runs, the model is asked to stream: the same reply as events, a byte per write.
    stub.trickle({ bytes: 1 });
    const streamed = await fetch(`${dev.url}/v1/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ question: 'What is the capital of Italy?', mode: 'parametric' }),
    });
    const text = await streamed.text();
    expect(text).toMatch(/event: error\n(id: \d+\n)?data: \{"code":"llm_response_too_large"/);
    expect(stub.requests.at(-1)?.body.stream).toBe(true);
  });

  it("an honest 6,000-token streamed reply, each event in three writes (~0.9 MB, 18,000 pieces), is read whole", async () => {
    // Issue 41, item 5: under the old cap (one piece per 64 bytes of the 1 MiB byte cap) this failed at 16,384 pieces.
    // 16 characters a token: the stub sends one per event, so 6,000 events of about 150 bytes.
    const reply = Array.from({ length: 6_000 }, (_, i) => `${String(i).padStart(6, '0')} lorem ip `).join('');
    stub.setScript({ parametric: [reply] });
    stub.split({ writes: 3 });
    const before = stub.requests.length;
    const watched = await watchWorkerd(dev, async () => {
      const res = await fetch(`${dev.url}/v1/answer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ question: 'Write a long answer, please.', mode: 'parametric' }),
      });
      return res.text();
    });
    stub.setScript({});
    expect(stub.requests.slice(before).some((r) => r.body.stream === true)).toBe(true);
    const done = /event: done\n(?:id: \d+\n)?data: (\{.*\})/.exec(watched.value)!;
    expect(JSON.parse(done[1]).status).toBe('succeeded');
    expect(watched.value).not.toMatch(/llm_response_too_large/);
    // /healthz answered ok throughout, and the server held about the reply's size, not hundreds of MB.
    expect(watched.health.asked).toBeGreaterThan(0);
    expect(watched.health.ok).toBe(watched.health.asked);
    if (Number.isFinite(watched.rssBefore)) expect(watched.rssPeak - watched.rssBefore).toBeLessThan(200 * 1024 * 1024);
  });
});
