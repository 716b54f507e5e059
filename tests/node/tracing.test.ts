// @module-tag slow
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';

/**
 * OpenTelemetry export end to end: wrangler dev with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP
 * receiver (127.0.0.1), the model an OpenAI-compatible stub. One run must arrive as one trace whose spans are the
 * run, its steps, its model calls, its tool calls and its evidence requests; a dead collector must not hurt a run.
 */

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code: number };
}

const received: Array<{ headers: Record<string, unknown>; spans: Span[]; resources: Array<{ attributes: Span['attributes'] }> }> = [];
let receiver: Server;
let stub: Stub;
let dev: DevServer;

const attr = (s: Span, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v ? (v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue ?? v.arrayValue) : undefined;
};

const spansOf = (traceId: string) => received.flatMap((r) => r.spans).filter((s) => s.traceId === traceId);

const ask = async (question: string) => {
  const res = await fetch(`${dev.url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, variant: 'mintaka', mode: 'agent', options: { fewshot: 'zero-shot' } }) });
  return { res, run: (await res.json()) as any };
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const spans = body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans));
      if (req.url === '/v1/traces') received.push({ headers: req.headers, spans, resources: body.resourceSpans.map((r: any) => r.resource) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const collector = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stub = await startStub({ port: 0 });
  stub.setScript({
    agent: ['Thought: I look it up.\nAction: wikisearch\nAction Input: Forrest Gump', 'Thought: The article names the director.\nFinal Answer: Robert Zemeckis'],
    default: ['Robert Zemeckis'],
  });
  dev = await startDev({
    vars: {
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: stub.url,
      LLM_MODEL: 'stub-model',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%3D1',
    },
  });
}, 180_000);

afterAll(async () => {
  await dev?.stop();
  await stub?.close();
  receiver?.close();
});

describe('OpenTelemetry export of runs', () => {
  it('exports one run as one trace: run, steps, model calls with GenAI attributes, tool calls, evidence requests', async () => {
    const { res, run } = await ask('Who directed Forrest Gump?');
    expect(run.status).toBe('succeeded');
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers.get('x-trace-id')).toBe(run.traceId);

    // Spans leave in the background, one export after each step and one at the end, and the exports can arrive in any
    // order (the run's own span before the last step's): wait (bounded) for the run's span and one span per step.
    const isRun = (s: Span) => attr(s, 'gen_ai.operation.name') === 'invoke_agent';
    const arrived = () => {
      const now = spansOf(run.traceId);
      return now.some(isRun) && now.filter((s) => s.name.startsWith('step ')).length >= run.timings.steps;
    };
    for (let i = 0; i < 100 && !arrived(); i++) await new Promise((r) => setTimeout(r, 100));
    const spans = spansOf(run.traceId);
    expect(new Set(received.flatMap((r) => r.spans).filter((s) => s.traceId === run.traceId).map((s) => s.traceId)).size).toBe(1);
    expect(received[0]!.headers['x-collector-key']).toBe('k=1');
    // The resource names the service, its release and the deployment's variant (DEFAULT_VARIANT, here the default).
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    const resource = Object.fromEntries(received[0]!.resources[0]!.attributes.map((a) => [a.key, a.value.stringValue]));
    expect(resource).toEqual({ 'service.name': 'humaniq-answers', 'service.version': version, 'humaniq.deployment.variant': 'mintaka' });
    // /healthz says tracing is on, without naming the collector.
    const health = (await (await fetch(`${dev.url}/healthz`)).json()) as { tracing: unknown };
    expect(health.tracing).toEqual({ on: true });
    expect(JSON.stringify(health)).not.toContain('127.0.0.1');

    const runSpans = spans.filter(isRun);
    const steps = spans.filter((s) => s.name.startsWith('step '));
    const models = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
    const tools = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'execute_tool');
    const evidence = spans.filter((s) => s.name.startsWith('evidence '));
    expect(runSpans).toHaveLength(1);
    expect(steps).toHaveLength(run.timings.steps);
    expect(models).toHaveLength(run.usage.llmCalls);
    expect(tools).toHaveLength(run.usage.toolCalls);
    expect(tools.map((s) => attr(s, 'gen_ai.tool.name'))).toContain('wikisearch');
    expect(evidence.length).toBeGreaterThan(0);
    expect(spans).toHaveLength(1 + steps.length + models.length + tools.length + evidence.length);

    // The tree: steps under the run, everything else under a step.
    const stepIds = new Set(steps.map((s) => s.spanId));
    expect(steps.every((s) => s.parentSpanId === runSpans[0]!.spanId)).toBe(true);
    expect([...models, ...tools, ...evidence].every((s) => stepIds.has(s.parentSpanId!))).toBe(true);

    for (const m of models) {
      expect(attr(m, 'gen_ai.request.model')).toBe('stub-model');
      expect(Number(attr(m, 'gen_ai.usage.input_tokens'))).toBeGreaterThan(0);
      expect(Number(attr(m, 'gen_ai.usage.output_tokens'))).toBeGreaterThan(0);
      expect(attr(m, 'humaniq.purpose')).toEqual(expect.any(String));
      expect(attr(m, 'gen_ai.response.finish_reasons')).toBeDefined();
    }
    expect(models.map((m) => attr(m, 'humaniq.purpose'))).toContain('agent');

    // A fork is a run of its own: its own trace, named in the fork's response as in the answer's.
    const fork = await fetch(`${dev.url}/v1/runs/${run.runId}/fork`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fromStep: 0 }) });
    expect(fork.status).toBe(201);
    const { runId: forkId } = (await fork.json()) as { runId: string };
    const forkTrace = fork.headers.get('x-trace-id');
    expect(forkTrace).toMatch(/^[0-9a-f]{32}$/);
    expect(forkTrace).not.toBe(run.traceId);
    const forkView = (await (await fetch(`${dev.url}/v1/runs/${forkId}`)).json()) as { traceId: string };
    expect(forkView.traceId).toBe(forkTrace);
  });

  it('a fork on another model: usage names, per purpose, the model that served it, as the model server saw it', async () => {
    const { run } = await ask('Who directed Forrest Gump, on another model?');
    expect(Object.values(run.usage.byPurpose).map((p: any) => p.model)).toEqual(expect.arrayContaining(['stub-model']));
    const seen = stub.requests.length;
    const fork = await fetch(`${dev.url}/v1/runs/${run.runId}/fork`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fromStep: 0, model: 'other-model' }) });
    expect(fork.status).toBe(201);
    const { runId } = (await fork.json()) as { runId: string };
    let view: any;
    for (let i = 0; i < 120; i++) {
      view = await (await fetch(`${dev.url}/v1/runs/${runId}`)).json();
      if (!['queued', 'running'].includes(view.status)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(view.status).toBe('succeeded');
    // What the model server was asked, per purpose, is what usage reports.
    const served: Record<string, Set<string>> = {};
    for (const r of stub.requests.slice(seen)) (served[String(r.purpose)] ??= new Set()).add(String(r.body.model));
    expect(Object.keys(view.usage.byPurpose).sort()).toEqual(Object.keys(served).sort());
    for (const [purpose, p] of Object.entries(view.usage.byPurpose as Record<string, { model: string }>)) {
      expect([...served[purpose]!]).toEqual(['other-model']);
      expect(p.model).toBe('other-model');
    }
  }, 90_000);

  it('a dead collector leaves the run succeeded', async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    receiver.closeAllConnections();
    const { run } = await ask('Who directed Forrest Gump, once more?');
    expect(run.status).toBe('succeeded');
    expect(run.answer).toBe('Robert Zemeckis');
    const health = await fetch(`${dev.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
