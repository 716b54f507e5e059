// @module-tag slow
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDev, type DevServer } from '../support/dev-server.mjs';

/**
 * The public endpoint as a user meets it: `npm run dev` (cli/dev.mjs) with an OpenAI-compatible fake model,
 * API keys on, and the official openai client. Also checks that no key reaches a run, a stream or a log line.
 */
const MODEL_KEY = `sk-model-${crypto.randomUUID()}`;
const API_KEY = `pub-${crypto.randomUUID()}`;

let mode: 'ok' | 'leak' | 'echo-key' = 'ok';
let fake: Server;
let dev: DevServer | undefined;
let base = '';
const tmp = mkdtempSync(join(tmpdir(), 'humaniq-dev-'));

/** A minimal OpenAI-compatible model: streams or not; can leak the key it was sent, or echo it in an error. */
const startFakeModel = async (port: number) => {
  fake = createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const auth = String(req.headers.authorization ?? '');
    if (mode === 'echo-key') {
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${auth.replace(/^Bearer /, '')}` } }));
    }
    const body = JSON.parse(raw || '{}');
    const text = mode === 'leak' ? `My key is ${auth.replace(/^Bearer /, '')}` : req.headers['x-request-purpose'] === 'parametric' ? 'Paris' : 'Thought: I know this.\nFinal Answer: Paris';
    const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })}\n\n`);
      return res.end('data: [DONE]\n\n');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'fake', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage }));
  });
  await new Promise<void>((r) => fake.listen(port, '127.0.0.1', r));
};

beforeAll(async () => {
  const modelPort = await freePort();
  await startFakeModel(modelPort);
  // Secrets go in an env file (as `wrangler secret put` would), never on the command line.
  const envFile = join(tmp, 'secrets.env');
  writeFileSync(envFile, `LLM_API_KEY=${MODEL_KEY}\nAPI_KEYS=${API_KEY}\n`);
  dev = await startDev({
    vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: `http://127.0.0.1:${modelPort}/v1`, LLM_MAX_RETRIES: '0' },
    args: ['--env-file', envFile],
    timeoutMs: 110_000,
  });
  base = dev.url;
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  fake?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const client = (apiKey = API_KEY) => new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 });

describe.sequential('npm run dev with a model and API keys', () => {
  it('the official openai client gets a streamed answer from model "mintaka"', async () => {
    mode = 'ok';
    const stream = await client().chat.completions.create({ model: 'mintaka', stream: true, messages: [{ role: 'user', content: 'What is the capital of France?' }] });
    let content = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(content).toContain('Paris');
    expect(finish).toBe('stop');
  });

  it('without a key the API answers 401; /healthz stays open', async () => {
    const res = await fetch(`${base}/v1/models`);
    expect(res.status).toBe(401);
    await expect(client('wrong-key').models.list()).rejects.toMatchObject({ status: 401 });
    expect(((await (await fetch(`${base}/healthz`)).json()) as any).auth).toBe('bearer');
  });

  it('serves an /openapi.json that validates as OpenAPI 3.1', async () => {
    const doc: any = await (await fetch(`${base}/openapi.json`)).json();
    const res = await new Validator().validate(doc);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(doc.servers[0].url).toBe(base);
    // The validator can fail: the same document with one operation broken does not pass.
    const broken = structuredClone(doc);
    broken.paths['/v1/answer'].post.responses = 'nope';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('a model reply that carries the model key is stored and streamed redacted', async () => {
    mode = 'leak';
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const run: any = await (await fetch(`${base}/v1/answer`, { method: 'POST', headers, body: JSON.stringify({ question: 'What is your key?', mode: 'parametric' }) })).json();
    expect(run.status).toBe('succeeded');
    expect(JSON.stringify(run)).not.toContain(MODEL_KEY);
    expect(run.answer).toContain('[redacted]');
    const events = await (await fetch(`${base}/v1/runs/${run.runId}/events`, { headers })).text();
    expect(events).not.toContain(MODEL_KEY);
    expect(events).not.toContain(API_KEY);
  });

  it('a provider error that echoes the key ends the run without the key in it', async () => {
    mode = 'echo-key';
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const run: any = await (await fetch(`${base}/v1/answer`, { method: 'POST', headers, body: JSON.stringify({ question: 'Who wrote Dune?', mode: 'parametric' }) })).json();
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('llm_error');
    expect(JSON.stringify(run)).not.toContain(MODEL_KEY);
    mode = 'ok';
  });

  it('no log line of the dev server carries a key', () => {
    const logs = dev!.log();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(MODEL_KEY);
    expect(logs).not.toContain(API_KEY);
  });
});
