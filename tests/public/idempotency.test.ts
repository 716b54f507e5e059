import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { claimRunId, IDEMPOTENCY_WINDOW_MS } from '../../src/api/idempotency';
import { installScript } from '../../src/llm/scripted';
import { deployedStyle, uniqueKey } from './helpers';

const apiKey = uniqueKey('idem');
const otherApiKey = uniqueKey('idem-other');
const call = deployedStyle({ API_KEYS: `${apiKey},${otherApiKey}` });

const post = (path: string, body: unknown, headers: Record<string, string> = {}, key = apiKey) =>
  call(path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('Idempotency-Key on POST /v1/answer', () => {
  it('a retry with the same key and body returns the first run, and the model saw one run', async () => {
    const llm = installScript({ parametric: ['Paris', 'Lyon'] });
    const key = crypto.randomUUID();
    const first = await post('/v1/answer', { question: 'Capital of France?', mode: 'parametric' }, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const run = await first.json<any>();
    expect(run).toMatchObject({ status: 'succeeded', answer: 'Paris' });
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // Same body with its fields in another order: the same request.
    const retry = await post('/v1/answer', { mode: 'parametric', question: 'Capital of France?' }, { 'Idempotency-Key': key });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-run-id')).toBe(run.runId);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json<any>()).toMatchObject({ runId: run.runId, answer: 'Paris' });
    expect(llm.requests).toHaveLength(run.usage.llmCalls);
    expect(llm.remaining().parametric).toBe(1);
  });

  it('two identical requests at once start one run', async () => {
    const llm = installScript({ parametric: ['Rome', 'Milan'] });
    const key = crypto.randomUUID();
    const body = { question: 'Capital of Italy?', mode: 'parametric' };
    const [a, b] = await Promise.all([post('/v1/answer', body, { 'idempotency-key': key }), post('/v1/answer', body, { 'idempotency-key': key })]);
    const [ra, rb] = [await a.json<any>(), await b.json<any>()];
    expect(ra.runId).toBe(rb.runId);
    expect([ra.answer, rb.answer]).toEqual(['Rome', 'Rome']);
    expect(llm.remaining().parametric).toBe(1);
  });

  it('the same key with a different body is a 422 and starts nothing', async () => {
    const llm = installScript({ parametric: ['Berlin', 'Bonn'] });
    const key = crypto.randomUUID();
    expect((await post('/v1/answer', { question: 'Capital of Germany?', mode: 'parametric' }, { 'idempotency-key': key })).status).toBe(200);
    const res = await post('/v1/answer', { question: 'Former capital of Germany?', mode: 'parametric' }, { 'idempotency-key': key });
    expect(res.status).toBe(422);
    expect((await res.json<any>()).error.code).toBe('idempotency_key_reused');
    expect(llm.requests).toHaveLength(1);
  });

  it('keys are scoped to the API key: another key with the same Idempotency-Key gets its own run', async () => {
    installScript({ parametric: ['Madrid', 'Madrid'] });
    const key = crypto.randomUUID();
    const body = { question: 'Capital of Spain?', mode: 'parametric' };
    const mine = await (await post('/v1/answer', body, { 'idempotency-key': key })).json<any>();
    const theirs = await post('/v1/answer', body, { 'idempotency-key': key }, otherApiKey);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((await theirs.json<any>()).runId).not.toBe(mine.runId);
  });

  it('a rejected request does not use up its key, and a malformed key is a 400', async () => {
    installScript({ parametric: ['Vienna'] });
    const key = crypto.randomUUID();
    expect((await post('/v1/answer', { question: 'Capital of Austria?', mode: 'no-such-mode' }, { 'idempotency-key': key })).status).toBe(400);
    expect((await post('/v1/answer', { question: 'Capital of Austria?', mode: 'parametric' }, { 'idempotency-key': key })).status).toBe(200);
    const bad = await post('/v1/answer', { question: 'q', mode: 'parametric' }, { 'idempotency-key': 'x'.repeat(256) });
    expect(bad.status).toBe(400);
    expect((await bad.json<any>()).error.message).toContain('Idempotency-Key');
  });

  it('a replay asked for as a stream streams the first run from its start', async () => {
    installScript({ parametric: ['Lisbon'] });
    const key = crypto.randomUUID();
    const body = { question: 'Capital of Portugal?', mode: 'parametric' };
    const run = await (await post('/v1/answer', body, { 'idempotency-key': key })).json<any>();
    const res = await post('/v1/answer', body, { 'idempotency-key': key, accept: 'text/event-stream' });
    const text = await res.text();
    expect(res.headers.get('x-run-id')).toBe(run.runId);
    expect(text).toContain('event: run');
    expect(text).toContain('Lisbon');
    expect(text).toContain('event: done');
  });
});

describe('Idempotency-Key on fork and chat completions', () => {
  it('a retried fork returns the first fork and the parent lists it once', async () => {
    installScript({ final: ['parent', 'fork', 'spare'] });
    const parent = await (await post('/v1/answer', { question: 'tick twice', mode: 'test-tool-loop', options: { calls: 2, runKey: 'idem-fork' } })).json<any>();
    const key = crypto.randomUUID();
    const first = await post(`/v1/runs/${parent.runId}/fork`, { fromStep: 1 }, { 'idempotency-key': key });
    const again = await post(`/v1/runs/${parent.runId}/fork`, { fromStep: 1 }, { 'idempotency-key': key });
    expect([first.status, again.status]).toEqual([201, 201]);
    const { runId } = await first.json<any>();
    expect((await again.json<any>()).runId).toBe(runId);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await post(`/v1/runs/${parent.runId}/fork`, { fromStep: 2 }, { 'idempotency-key': key })).status).toBe(422);
    const view = await (await call(`/v1/runs/${parent.runId}`, { headers: { authorization: `Bearer ${apiKey}` } })).json<any>();
    expect(view.forks).toEqual([{ runId, fromStep: 1 }]);
  });

  it('a retried chat completion answers from the first run', async () => {
    const llm = installScript({ parametric: ['Athens', 'Sparta'] });
    const key = crypto.randomUUID();
    const body = { model: 'mintaka:parametric', messages: [{ role: 'user', content: 'Capital of Greece?' }] };
    const first = await (await post('/v1/chat/completions', body, { 'idempotency-key': key })).json<any>();
    const again = await post('/v1/chat/completions', body, { 'idempotency-key': key });
    expect((await again.json<any>()).id).toBe(first.id);
    expect(first.choices[0].message.content).toBe('Athens');
    expect(llm.requests).toHaveLength(1);
    expect((await post('/v1/chat/completions', { ...body, stream: true }, { 'idempotency-key': key })).status).toBe(422);
  });
});

describe('the claim itself', () => {
  it('forgets a key after 24 hours', async () => {
    const input = { scope: 'key:test', key: crypto.randomUUID(), operation: 'POST /v1/answer', body: { question: 'q' } };
    const t0 = Date.now();
    expect(await claimRunId(env.DB, { ...input, now: t0 }, 'run-a')).toEqual({ runId: 'run-a', replayed: false });
    expect(await claimRunId(env.DB, { ...input, now: t0 + 1000 }, 'run-b')).toEqual({ runId: 'run-a', replayed: true });
    expect(await claimRunId(env.DB, { ...input, now: t0 + IDEMPOTENCY_WINDOW_MS + 1 }, 'run-c')).toEqual({ runId: 'run-c', replayed: false });
  });
});
