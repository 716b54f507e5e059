// Slow (starts npm run dev): gets the slow module tag when the test tags of branch i42-speed are on main.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';
import { workerdOf } from '../support/workerd-watch.mjs';

/**
 * Issue 41, item 7: when workerd died or restarted under `npm run dev`, the request in flight was answered by
 * wrangler's dev proxy with `500 "Error: Network connection lost."` and a stack naming files of this machine. Now
 * the user's port is cli/dev-front.mjs's: a client gets JSON it can act on, a stream is cut off with a comment, never
 * a path; and the front costs nothing else — streams still stream, large bodies pass whole.
 */
let dev: DevServer;
let stub: Stub;
/** What must never reach a client: paths of this machine, module files with line numbers, stack frames. */
const MACHINE = /\/work\/|\/home\/|\/tmp\/|node_modules|\.m?js:\d+|\n\s+at /;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const latency = (ms: number) => fetch(`${stub.url.replace(/\/v1$/, '')}/__latency`, { method: 'POST', body: JSON.stringify({ ms }) });
const ask = (question: string, accept = 'application/json') =>
  fetch(`${dev.url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify({ question }) });

beforeAll(async () => {
  stub = await startStub({ latencyMs: 0 });
  stub.setScript({ agent: ['Thought: I know it.\nFinal Answer: Shakespeare'], parametric: ['Shakespeare'], final: ['Shakespeare'] });
  dev = await startDev({ vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub' }, timeoutMs: 110_000 });
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  await stub?.close();
});

/** Kills the workerd that runs the Worker (not wrangler's proxy) once the model has been asked `question`. */
const killWorkerdWhenAsked = async (question: string) => {
  for (let i = 0; i < 300 && !stub.requests.some((r) => JSON.stringify(r.body).includes(question)); i++) await wait(50);
  const workerd = workerdOf(dev.pid);
  expect(workerd).toBeDefined();
  process.kill(workerd!, 'SIGKILL');
};

/** /healthz answers ok again (miniflare starts a new workerd), and npm run dev itself never had to restart wrangler. */
const servesAgain = async () => {
  let ok = false;
  for (let i = 0; i < 120 && !ok; i++) {
    const res = await fetch(`${dev.url}/healthz`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    ok = res?.status === 200 && ((await res.json()) as { ok: boolean }).ok === true;
    if (!ok) await wait(250);
  }
  expect(ok, dev.log().slice(-2_000)).toBe(true);
  expect(dev.exited()).toBe(false);
  expect(dev.log()).not.toContain('restarting it');
};

/** Reads a stream to its end: the text, and whether it ended properly or was cut off. */
const readAll = async (res: Response, onText: (soFar: string) => unknown = () => {}) => {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true });
      await onText(text);
    }
    return { text, ending: 'complete' };
  } catch {
    return { text, ending: 'cut off' };
  }
};

describe('npm run dev when workerd dies mid-request', () => {
  it('answers the request in flight with a JSON error and no machine path, then serves again', async () => {
    await latency(4_000);
    const question = `Who wrote Hamlet? ${crypto.randomUUID()}`;
    const answer = ask(question);
    await killWorkerdWhenAsked(question);
    const res = await answer;
    const text = await res.text();
    expect(text).not.toMatch(MACHINE);
    expect([...res.headers].join('\n')).not.toMatch(MACHINE);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(text)).toEqual({ error: { code: 'dev_server_unavailable', message: expect.stringContaining('retry') } });
    await servesAgain();
    // wrangler's own words stay in the terminal, where the developer reads them.
    expect(dev.log()).toContain('the client got 503 dev_server_unavailable');
  }, 120_000);

  it('cuts an open SSE stream off with a comment and no machine path; the run is still there afterwards', async () => {
    await latency(4_000);
    const question = `Who wrote Macbeth? ${crypto.randomUUID()}`;
    const res = await ask(question, 'text/event-stream');
    expect(res.status).toBe(200);
    let killed: Promise<void> | undefined;
    const { text, ending } = await readAll(res, (soFar) => {
      if (!killed && soFar.includes('event: run')) killed = killWorkerdWhenAsked(question);
    });
    await killed;
    expect(ending).toBe('cut off');
    expect(text).toContain(': the local Worker stopped');
    expect(text).not.toMatch(MACHINE);
    await servesAgain();
    const runId = /"runId":"([^"]+)"/.exec(text)![1];
    const run = await fetch(`${dev.url}/v1/runs/${runId}`);
    expect(run.status).toBe(200);
    expect(((await run.json()) as { question: string }).question).toBe(question);
  }, 120_000);

  it('still streams: the first SSE event arrives while the run is still working', async () => {
    await latency(2_000);
    const res = await ask(`Who wrote Othello? ${crypto.randomUUID()}`, 'text/event-stream');
    let statusAtFirstEvent: string | undefined;
    const { text, ending } = await readAll(res, async (soFar) => {
      const runId = /"runId":"([^"]+)"/.exec(soFar)?.[1];
      if (statusAtFirstEvent || !runId) return;
      statusAtFirstEvent = ((await (await fetch(`${dev.url}/v1/runs/${runId}`)).json()) as { status: string }).status;
    });
    expect(ending).toBe('complete');
    expect(['queued', 'running']).toContain(statusAtFirstEvent);
    expect(text).toMatch(/event: done\n[^]*"status":"succeeded"/);
  }, 120_000);

  it('passes a 12 MB request body whole, and the Worker still answers a 17 MB one with its own 413', async () => {
    const page = (n: number) => ({ url: `https://example.org/${n}`, html: `<p>${'Shakespeare wrote plays. '.repeat(150_000)}</p>` });
    const body = (pages: number) => JSON.stringify({ question: 'Who wrote Hamlet?', variant: 'crag', mode: 'rag', context: { pages: Array.from({ length: pages }, (_, i) => page(i)) } });
    const whole = body(3);
    expect(whole.length).toBeGreaterThan(11_000_000);
    const checked = await fetch(`${dev.url}/v1/answer/check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: whole });
    expect(checked.status, await checked.clone().text()).toBe(200);
    expect(await checked.json()).toMatchObject({ valid: true, mode: 'rag' });
    const over = await fetch(`${dev.url}/v1/answer/check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(5) });
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBeTypeOf('string');
  }, 120_000);
});
