import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';
import { watchWorkerd } from '../support/workerd-watch.mjs';

/**
 * The model server's politeness gate (src/llm/model-gate.ts), shared by every run of a deployment: at most
 * LLM_CONCURRENCY calls in flight per model, and a 429's Retry-After holds back every run, not only the one that got it.
 */
let stub: Stub;
let dev: DevServer;
beforeAll(async () => {
  stub = await startStub({ port: await freePort(), latencyMs: 150 });
  dev = await startDev({
    vars: { LLM_BASE_URL: stub.url, LLM_MODEL: 'stub', LLM_CONCURRENCY: '2', LLM_MAX_RETRIES: '3', TEST_MODE: 'true', RATE_LIMIT_PER_MINUTE: '100000' },
  });
}, 180_000);
afterAll(async () => {
  await dev?.stop();
  await stub?.close();
});

const control = (path: string, body: unknown) => fetch(stub.url.replace(/\/v1$/, path), { method: 'POST', body: JSON.stringify(body) });

/** A run that asks the model before each of its three tool calls, then for its answer: four model calls. */
const run = async (question: string) => {
  const res = await fetch(`${dev.url}/v1/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question, mode: 'test-tool-loop', options: { calls: 3, think: true } }),
  });
  return (await res.json()) as any;
};

const notes = (r: any): string[] => r.steps.flatMap((s: any) => s.notes ?? []);

describe('the politeness gate of a model server', () => {
  it("a second run waits for the Retry-After the server gave the first, instead of calling inside it", async () => {
    await control('/__concurrency', { max: 0 });
    await control('/__faults', { status: 429, count: 1, retryAfter: 2 });
    const seen = stub.requests.length;
    const first = run('first run');
    // The second run starts once the server has told the first to wait.
    for (let i = 0; i < 600 && stub.requests.length === seen; i++) await new Promise((r) => setTimeout(r, 25));
    const second = await run('second run');
    const firstRun = await first;

    expect(firstRun.status).toBe('succeeded');
    expect(second.status).toBe('succeeded');
    expect(stub.load().insideRetryAfter).toBe(0);
    expect(notes(second).join('\n')).toMatch(
      /waited \d+\.\d s at the politeness gate of 127\.0\.0\.1:\d+ \(model stub\): the host asked every client to wait \(HTTP 429 with Retry-After 2\.0 s\)/,
    );
    expect(second.usage.modelGate.waits).toBeGreaterThan(0);
  });

  it('never has more calls in flight than LLM_CONCURRENCY, so a server that allows that many never refuses one', async () => {
    await control('/__concurrency', { max: 2, retryAfter: 1 });
    await control('/__latency', { ms: 400 });
    const runs = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((q) => run(`concurrent run ${q}`)));
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(stub.load()).toMatchObject({ peak: 2, tooMany: 0, insideRetryAfter: 0, answered: 20 });
    // Five runs on two slots: some calls waited their turn, and their runs say so.
    expect(runs.some((r) => r.usage.modelGate?.waits > 0)).toBe(true);
  });

  it('reads Retry-After as RFC 9110 does (digits or an HTTP date): 0x10, 0o7, 0b11 and 1e1 are ignored, not taken for 16, 7, 3 and 10 s', async () => {
    await control('/__concurrency', { max: 0 });
    await control('/__latency', { ms: 0 });
    const reasons: Record<string, string> = {};
    const watched = await watchWorkerd(dev, async () => {
      const date = () => new Date(Math.ceil((Date.now() + 2_500) / 1000) * 1000).toUTCString();
      let httpDate = '';
      for (const value of ['0x10', '0o7', '0b11', '1e1', '1', 'date']) {
        if (value === 'date') httpDate = date();
        await control('/__faults', { status: 429, count: 1, retryAfter: value === 'date' ? httpDate : value });
        const r = await fetch(`${dev.url}/v1/answer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ question: `Retry-After ${value}`, mode: 'test-tool-loop', options: { calls: 1, think: true } }),
        }).then((res) => res.json() as Promise<any>);
        expect(r.status).toBe('succeeded');
        reasons[value] = notes(r).join('\n').match(/the host asked every client to wait \(([^)]*)\)/)?.[1] ?? '';
      }
      return httpDate;
    });
    // Malformed: ignored (and logged), so the 429 holds every run for the default wait, as a 429 without the header.
    for (const value of ['0x10', '0o7', '0b11', '1e1']) expect(reasons[value]).toBe('HTTP 429');
    // Well-formed: obeyed.
    expect(reasons['1']).toBe('HTTP 429 with Retry-After 1.0 s');
    expect(watched.value).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(reasons.date).toMatch(/^HTTP 429 with Retry-After [0-3]\.\d s$/);
    expect(dev.log()).toMatch(/ignored Retry-After "0x10": neither delay-seconds \(digits\) nor an HTTP date \(RFC 9110\)/);
    expect(watched.health.ok).toBe(watched.health.asked);
  });
});

