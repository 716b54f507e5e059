// @module-tag slow
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';
import { createWdqsStandIn, serveStandIn } from '../support/wikimedia-standins.mjs';

/**
 * Issue 33, items 3 and 5, over real sockets: upstream bodies without end, written in tiny pieces (one HTTP chunk per
 * write), against `npm run dev`. The model's deadline stays at its default minute and the query service's at 15 s,
 * so what ends each body here is its cap, counted as the pieces arrive.
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
    expect(await runQuery('SELECT ?x WHERE { ?x ?p ?o } #per-binding')).toMatch(/sent its answer in more than 32,768 pieces \(under 256 bytes each on average\)/);
    expect(await runQuery('SELECT ?x WHERE { ?x ?p ?o } #per-byte')).toMatch(/sent its answer in more than 32,768 pieces/);
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
    expect(run.error.message).toMatch(/more than 16384 pieces/);

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
});
