import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { liveDraft } from '../../src/api/live-draft';
import { installScript } from '../../src/llm/scripted';
import { boundedMcpResponse, MAX_BACKLOG_BYTES } from '../../src/mcp/bounded-stream';
import { draftProgress } from '../../src/mcp/draft-progress';
import { MAX_PROGRESS_TOKEN_CHARS } from '../../src/mcp/server';
import { deployedStyle, uniqueKey } from './helpers';

// Issue 33: MCP clients that misbehave — a huge progress token, a client that does not read its progress, and
// clients that cancel or drop an `answer` call, whose run must then end `cancelled`.
const apiKey = uniqueKey('mcp-clients');
const call = deployedStyle({ API_KEYS: apiKey });
const auth = { authorization: `Bearer ${apiKey}` };
const headers = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const noValidation = { getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined }) };

const connect = async () => {
  const client = new Client({ name: 'mcp-clients-test', version: '1.0.0' }, { jsonSchemaValidator: noValidation });
  await client.connect(new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), { fetch: async (url, init) => call(new URL(url).pathname, init), requestInit: { headers: auth } }));
  return client;
};

/** A slow run: 100 ticks 100 ms apart, so it is still running when the client lets go. */
const slowAnswer = (question: string) => ({ name: 'answer', arguments: { question, variant: 'crag', mode: 'test-tool-loop', options: { calls: 100, delayMs: 100 } } });

const statusOf = async (runId: string) => (await (await call(`/v1/runs/${runId}`, { headers: auth })).json<{ status: string }>()).status;
const endedStatus = async (runId: string) => {
  for (let i = 0; i < 200; i++) {
    const status = await statusOf(runId);
    if (['succeeded', 'failed', 'cancelled', 'limited'].includes(status)) return status;
    await new Promise((r) => setTimeout(r, 50));
  }
  return 'still running';
};

/** Reads an SSE body until `pattern` appears; the reader stays open. */
const readUntil = async (reader: ReadableStreamDefaultReader<Uint8Array>, pattern: RegExp) => {
  let text = '';
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  return text;
};

describe('MCP answer calls that are cancelled', () => {
  beforeEach(() => void installScript({ final: ['all ticks done'] }));

  it('a notifications/cancelled from the official client (a POST of its own) cancels the run', async () => {
    const client = await connect();
    const controller = new AbortController();
    let runId: string | undefined;
    const answer = client.callTool(slowAnswer('tick slowly, then be cancelled'), undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        runId ??= /run (\S+) started/.exec(p.message ?? '')?.[1];
        if (runId) controller.abort('the user changed their mind');
      },
    });
    await expect(answer).rejects.toThrow();
    expect(runId).toBeDefined();
    expect(await endedStatus(runId!)).toBe('cancelled');
    const run = await (await call(`/v1/runs/${runId}`, { headers: auth })).json<{ error: { code: string } }>();
    expect(run.error.code).toBe('cancelled');
    await client.close();
  });

  it('a client that drops the connection cancels the run', async () => {
    const res = await call('/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { ...slowAnswer('tick slowly, then hang up'), _meta: { progressToken: 1 } } }) });
    const reader = res.body!.getReader();
    const runId = /run (\S+) started/.exec(await readUntil(reader, /run \S+ started/))?.[1];
    expect(runId).toBeDefined();
    await reader.cancel();
    expect(await endedStatus(runId!)).toBe('cancelled');
  });

  it('a cancel for a call of another caller or an unknown id changes nothing', async () => {
    const res = await call('/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 'mine', method: 'tools/call', params: { ...slowAnswer('tick slowly and finish'), _meta: { progressToken: 2 } } }) });
    const reader = res.body!.getReader();
    const runId = /run (\S+) started/.exec(await readUntil(reader, /run \S+ started/))?.[1]!;
    const otherKey = deployedStyle({ API_KEYS: `${apiKey},other` });
    const cancel = (id: string) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    expect((await otherKey('/mcp', { method: 'POST', headers: { ...headers, authorization: 'Bearer other' }, body: cancel('mine') })).status).toBe(202);
    expect((await call('/mcp', { method: 'POST', headers, body: cancel('not-mine') })).status).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(runId)).not.toBe('cancelled');
    await reader.cancel();
  });
});

describe('MCP progress to a client', () => {
  it(`refuses a progress token over ${MAX_PROGRESS_TOKEN_CHARS} characters with -32602, before a run starts`, async () => {
    const question = `a huge token ${crypto.randomUUID()}`;
    const res = await call('/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'answer', arguments: { question, mode: 'parametric' }, _meta: { progressToken: 'x'.repeat(60_000) } } }),
    });
    const text = await res.text();
    expect(text.length).toBeLessThan(2_000);
    expect(text).toContain('"code":-32602');
    expect(text).toMatch(/progressToken is 60000 characters; at most 256/);
    const runs = await (await call('/v1/runs?limit=50', { headers: auth })).json<{ runs: Array<{ question: string }> }>();
    expect(runs.runs.some((r) => r.question === question)).toBe(false);
    // At the limit it is accepted.
    const ok = await call('/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'getLabel', arguments: { ids: ['Q42'] }, _meta: { progressToken: 'y'.repeat(MAX_PROGRESS_TOKEN_CHARS) } } }) });
    expect(await ok.text()).toContain('Douglas Adams');
  });

  /** An SDK-like SSE response: `count` progress messages at once, then the result. */
  const sdkResponse = (count: number) => {
    const encoder = new TextEncoder();
    const frame = (m: unknown) => encoder.encode(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 1; i <= count; i++) controller.enqueue(frame({ method: 'notifications/progress', params: { progressToken: 1, progress: i, message: `step ${i} `.padEnd(300, '.') }, jsonrpc: '2.0' }));
        controller.enqueue(frame({ result: { content: [{ type: 'text', text: 'the answer' }] }, jsonrpc: '2.0', id: 1 }));
        controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };

  it('keeps a bounded backlog for a client that does not read: the oldest progress goes, the result always arrives', async () => {
    const res = boundedMcpResponse(sdkResponse(3_000), () => {});
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('step 1 ');
    // The client stops reading while the SDK writes everything else.
    await new Promise((r) => setTimeout(r, 100));
    const rest = await new Response(new ReadableStream({ pull: async (c) => { const r = await reader.read(); if (r.done) c.close(); else c.enqueue(r.value); } })).text();
    const messages = rest.split('\n\n').filter(Boolean).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)));
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    expect(rest.length).toBeLessThan(MAX_BACKLOG_BYTES + 2_000);
    expect(progress.length).toBeLessThan(3_000 / 10);
    expect(progress[0].params.message).toMatch(/^\(\d+ progress messages skipped: the client read slower than the run wrote\) step \d+ /);
    expect(progress.at(-1).params.progress).toBe(3_000);
    const numbers = progress.map((p: { params: { progress: number } }) => p.params.progress);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ text: 'the answer' }] } });
  });

  it('sends a keep-alive when quiet, and tells the server when the client goes away', async () => {
    let cancelled = false;
    let gone = false;
    const quiet = new Response(new ReadableStream({ cancel: () => void (cancelled = true) }), { headers: { 'content-type': 'text/event-stream' } });
    const res = boundedMcpResponse(quiet, () => (gone = true), { maxBacklogBytes: MAX_BACKLOG_BYTES, keepAliveMs: 50 });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': keep-alive\n\n');
    await reader.cancel();
    expect(gone).toBe(true);
    expect(cancelled).toBe(true);
  });

  it('a gap in the model\'s text is said in the chat panel and in MCP progress', () => {
    const panel = liveDraft();
    panel.delta({ call: 1, purpose: 'final', text: 'The answer ' });
    expect(panel.delta({ call: 1, purpose: 'final', text: 'Paris.', skipped: true })).toBe("\n(some of the model's text was skipped here: this stream was read slower than it was written)\nModel (final): Paris.");
    const progress = draftProgress(() => 0);
    progress.delta({ call: 1, purpose: 'final', text: 'The answer ' });
    expect(progress.delta({ call: 1, purpose: 'final', text: 'Paris.', skipped: true })).toEqual([
      "(some of the model's text was skipped here: the run's stream was read slower than it was written)",
      'Model (final): Paris.',
    ]);
  });
});
