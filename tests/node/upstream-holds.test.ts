// @module-tag slow
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';
import { createMediaWikiStandIn, createWdqsStandIn, serveStandIn } from '../support/wikimedia-standins.mjs';

/**
 * Upstreams that misbehave, against a real `npm run dev` with two API keys: a model front that answers one call
 * `429 Retry-After: 999999` holds the model back for POLITENESS_MAX_BACKOFF_MS (10 s here), not 11 days, and /healthz
 * says so meanwhile; a mirror serving one request at a time takes key B's search right after the one in flight,
 * however many key A queued first.
 */
const MAX_BACKOFF_MS = 10_000;
let stub: Stub;
let dev: DevServer;
const searched: string[] = [];
const served: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  stub = await startStub({ port: await freePort() });
  // A mirror's Wikipedia API that takes 500 ms per answer and notes the order searches reach it.
  const wiki = createMediaWikiStandIn({ latencyMs: 500 });
  const handle = (request: Request) => {
    const q = new URL(request.url).searchParams.get('srsearch');
    if (q) searched.push(q);
    return wiki.handle(request);
  };
  served.push(await serveStandIn(handle, { port: await freePort(), path: '/w/api.php' }));
  served.push(await serveStandIn(createWdqsStandIn().handle, { port: await freePort(), path: '/sparql' }));
  served.push(await serveStandIn(createMediaWikiStandIn().handle, { port: await freePort(), path: '/w/api.php' }));
  const [wikipedia, wdqs, wikidata] = served as unknown as Array<{ url: string }>;
  dev = await startDev({
    vars: {
      LLM_BASE_URL: stub.url,
      LLM_MODEL: 'stub',
      TEST_MODE: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
      API_KEYS: 'key-a,key-b',
      EVIDENCE: 'live',
      WIKIPEDIA_API_URL: wikipedia.url,
      WIKIDATA_SPARQL_URL: wdqs.url,
      WIKIDATA_API_URL: wikidata.url,
      POLITENESS_MAX_BACKOFF_MS: String(MAX_BACKOFF_MS),
    },
  });
}, 180_000);
afterAll(async () => {
  await dev?.stop();
  await stub?.close();
  for (const s of served) await s.close();
});

const as = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const health = async () => (await (await fetch(`${dev.url}/healthz`)).json()) as { llm: { ready: boolean; message?: string }; warnings?: string[] };

describe('a model front that says Retry-After: 999999', () => {
  it('holds the model for POLITENESS_MAX_BACKOFF_MS, /healthz says so meanwhile, and the run succeeds once it has passed', async () => {
    await fetch(stub.url.replace(/\/v1$/, '/__faults'), { method: 'POST', body: JSON.stringify({ status: 429, count: 1, retryAfter: 999999 }) });
    const running = fetch(`${dev.url}/v1/answer`, {
      method: 'POST',
      headers: as('key-a'),
      body: JSON.stringify({ question: 'held run', mode: 'test-tool-loop', options: { calls: 1, think: true } }),
    }).then((r) => r.json() as Promise<any>);
    let during = await health();
    for (let i = 0; i < 200 && !during.warnings; i++) {
      await new Promise((r) => setTimeout(r, 50));
      during = await health();
    }
    expect(during.llm.ready).toBe(false);
    expect(during.llm.message).toMatch(/^127\.0\.0\.1:\d+ \(model stub\) is held back for another \d+(\.\d)? s: the host asked every client to wait \(HTTP 429 with Retry-After 999999 s; held for at most 10 s \(POLITENESS_MAX_BACKOFF_MS\)\)/);
    expect(during.warnings).toEqual([during.llm.message]);

    const run = await running;
    expect(run.status).toBe('succeeded');
    const notes = run.steps.flatMap((s: any) => s.notes ?? []).join('\n');
    expect(notes).toMatch(/waited \d+(\.\d)? s at the politeness gate of 127\.0\.0\.1:\d+ \(model stub\): the host asked every client to wait/);
    const after = await health();
    expect(after.llm.ready).toBe(true);
    expect(after.warnings).toBeUndefined();
  });
});

describe('a fair gate in front of a slow mirror', () => {
  it("takes key B's one search right after the one in flight, not after key A's whole burst", async () => {
    const search = (key: string, q: string) =>
      fetch(`${dev.url}/v1/tools/wikisearch`, { method: 'POST', headers: as(key), body: JSON.stringify({ input: q }) }).then((r) => r.json() as Promise<any>);
    const before = searched.length;
    const burst = Array.from({ length: 6 }, (_, i) => search('key-a', `burst a${i}`));
    // B asks once A's first search is at the mirror and the rest of A's burst is queued behind it.
    for (let i = 0; i < 400 && searched.length === before; i++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 100));
    const sentAt = searched.length;
    const b = await search('key-b', 'single b');
    expect(b.error).toBeUndefined();
    expect(b.output).toContain('single b');
    // Searches that reached the mirror after B asked and before B's own: at most the one that held the slot.
    const ahead = searched.slice(sentAt).indexOf('single b');
    expect(ahead).toBeGreaterThanOrEqual(0);
    expect(ahead).toBeLessThanOrEqual(1);
    const a = await Promise.all(burst);
    expect(a.every((r) => !r.error)).toBe(true);
  });
});
