/// <reference types="node" />
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEvaluation } from '../../src/eval/node/evaluate';
import { progressLine } from '../../src/eval/runner/progress';
import type { EvalItem } from '../../src/eval/types';

const item = (id: string, question: string, gold: string, category: string): EvalItem => ({
  id,
  question,
  category,
  gold: { kind: 'mintaka', answerType: 'entity', text: gold, kg: null },
});

const items: EvalItem[] = [
  item('q1', 'Capital of France?', 'Paris', 'geography'),
  item('q2', 'Author of Dune?', 'Frank Herbert', 'books'),
  item('q3', 'Flaky question', 'Rome', 'geography'),
  item('q4', 'Broken question', 'Berlin', 'geography'),
  item('q5', 'Injected question', 'Oslo', 'geography'),
];

/** Imitates POST /v1/answer: answers by question; q3 fails once with 503, q4 fails with 400 until healed. */
class StubService {
  server!: Server;
  url = '';
  bodies: { question: string; variant?: string; mode?: string; context?: unknown }[] = [];
  keys: string[] = [];
  flakyLeft = 1;
  broken = true;
  answers: Record<string, string> = {
    'Capital of France?': 'Paris',
    'Author of Dune?': 'Frank Herbert',
    'Flaky question': 'Rome',
    'Broken question': 'Berlin',
    'Injected question': '<script>alert("x")</script>',
  };

  async start() {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method !== 'POST' || req.url !== '/v1/answer') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no"}}');
      return;
    }
    const body = JSON.parse(raw);
    this.bodies.push(body);
    this.keys.push(String(req.headers['idempotency-key'] ?? ''));
    if (body.question === 'Flaky question' && this.flakyLeft-- > 0) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"busy","message":"try later"}}');
      return;
    }
    if (body.question === 'Broken question' && this.broken) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"code":"bad_request","message":"nope"}}');
      return;
    }
    const answer = this.answers[body.question] ?? 'unknown';
    const n = this.bodies.length;
    // Like the service: a request without a mode runs its variant's default, and program mode answers from its table.
    const mode = body.mode ?? (body.variant === 'hybridqa' ? 'program' : 'agent');
    const answers = mode === 'program' ? { table: answer } : { wikipedia: answer, wikidata: n % 2 ? answer : 'unknown', parametric: 'Madrid' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        runId: `run-${n}`,
        question: body.question,
        status: 'done',
        answer,
        mode,
        answers,
        sources: [],
        // Odd runs quote the page that holds the answer; even runs cite a page that does not, so nothing verifies.
        confidence: n % 2 ? 'one_source' : 'none',
        agreementSources: n % 2 ? ['wikipedia'] : [],
        citations: [{ source: 'wikipedia', key: `evidence page ["Q${n}"]`, kind: 'wikipedia', verified: n % 2 === 1, ...(n % 2 ? { quote: `… ${answer} …` } : {}) }],
        steps: [],
        usage: { llmCalls: 3, toolCalls: n, promptTokens: 100 * n, completionTokens: 10, byPurpose: {} },
        timings: { totalMs: 50 * n },
      }),
    );
  }

  stop() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

describe('npm run eval runner against a stub /v1/answer', () => {
  const stub = new StubService();
  const out = mkdtempSync(join(tmpdir(), 'eval-runner-'));
  let progress = '';
  const stream = { isTTY: false, write: (s: string) => (progress += s) };

  beforeAll(() => stub.start());
  afterAll(() => stub.stop());

  it('asks every question, retries a 503, records a 400 as an error, writes the three files', async () => {
    const summary = await runEvaluation({ benchmark: 'mintaka', items, url: stub.url, outDir: out, concurrency: 2, retries: 2, backoffMs: 1, progress: stream });
    expect(summary).toMatchObject({ asked: 5, skipped: 0, errors: 1, n: 5 });
    // q1, q2, q3 right; q4 errored; q5 wrong → EM 60
    expect(summary.metrics.em).toBeCloseTo(60, 9);
    expect(stub.bodies.filter((b) => b.question === 'Flaky question')).toHaveLength(2);
    expect(stub.bodies.filter((b) => b.question === 'Broken question')).toHaveLength(1); // 4xx is not retried
    expect(stub.bodies[0]).toMatchObject({ variant: 'mintaka', options: { booleanStyle: 'true-false' } });

    const lines = readFileSync(join(out, 'predictions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(5);
    const q1 = lines.find((l) => l.id === 'q1');
    expect(q1).toMatchObject({ answer: 'Paris', answers: { wikipedia: 'Paris' }, runId: expect.stringMatching(/^run-/), usage: { toolCalls: expect.any(Number) } });
    expect(q1.confidence).toMatch(/one_source|none/);
    // The predictions keep what each answer cites, so the report can say how many answers evidence backs.
    expect(q1.citations).toEqual([expect.objectContaining({ source: 'wikipedia', verified: expect.any(Boolean) })]);
    expect(lines.find((l) => l.id === 'q4')).toMatchObject({ answer: null, error: expect.stringContaining('HTTP 400 bad_request') });

    const metrics = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8'));
    expect(metrics).toMatchObject({ benchmark: 'mintaka', n: 5, errors: 1, variant: 'mintaka' });
    // Whether the confidence is worth anything: accuracy per confidence level over the answered questions, and the
    // share of answers a verified citation backs, both as the predictions say.
    const answered = lines.filter((l) => !l.error);
    const verified = answered.filter((l) => l.citations.some((c: { verified: boolean }) => c.verified));
    expect(metrics.verifiedCitationRate).toBeCloseTo((100 * verified.length) / answered.length, 9);
    expect(summary.verifiedCitationRate).toBe(metrics.verifiedCitationRate);
    expect(metrics.byConfidence).toEqual(summary.byConfidence);
    for (const row of metrics.byConfidence.filter((r: { label: string }) => r.label !== 'unreported')) {
      const group = answered.filter((l) => l.confidence === row.label);
      expect(row.n).toBe(group.length);
      expect(row.accuracy).toBeCloseTo((100 * group.filter((l) => l.id !== 'q5').length) / group.length, 9);
    }
    expect(progress).toContain('5/5');
    expect(progress).toMatch(/errors 1/);
  });

  it('refuses to overwrite a run without --resume', async () => {
    await expect(runEvaluation({ benchmark: 'mintaka', items, url: stub.url, outDir: out })).rejects.toThrow(/--resume/);
  });

  it('resume asks only the questions without an error-free answer', async () => {
    stub.broken = false;
    const before = stub.bodies.length;
    const summary = await runEvaluation({ benchmark: 'mintaka', items, url: stub.url, outDir: out, resume: true, backoffMs: 1 });
    expect(summary).toMatchObject({ asked: 1, skipped: 4, errors: 0 });
    expect(stub.bodies.slice(before).map((b) => b.question)).toEqual(['Broken question']);
    // The resumed question carries the Idempotency-Key it had before (the eval id is kept in eval.json): a run the
    // service had started for it would be attached to, not paid for again. Each question has its own key.
    const keyOf = (q: string) => new Set(stub.bodies.map((b, i) => (b.question === q ? stub.keys[i] : undefined)).filter(Boolean));
    expect([...keyOf('Broken question')]).toHaveLength(1);
    expect([...keyOf('Broken question')][0]).toMatch(/^eval-[0-9a-f-]{36}-[0-9a-f]{32}$/);
    expect(new Set(items.map((i) => [...keyOf(i.question)][0])).size).toBe(items.length);
    expect(summary.metrics.em).toBeCloseTo(80, 9);
    const metrics = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8'));
    expect(metrics.errors).toBe(0);
  });

  it('writes a self-contained report: charts as SVG, escaped model output, links to runs', () => {
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).not.toMatch(/<link|src="http/);
    expect(html.match(/<svg/g)!.length).toBeGreaterThanOrEqual(5);
    expect(html).toContain(`href="${stub.url}/runs/run-`);
    for (const heading of ['Accuracy per category', 'Per-source answers', 'Accuracy by confidence', 'Tool calls per question', 'Tokens per question', 'Latency', 'Selective answering (risk–coverage)', 'Every question, by outcome (5)']) {
      expect(html).toContain(heading);
    }
    expect(html).toMatch(/Answers with a verified citation: \d+\.\d%/);
    // per-source table: parametric always says "Madrid", never right; wikipedia carries the answer
    expect(html).toMatch(/<td>parametric<\/td><td class="num">100\.0<\/td><td class="num">0\.0<\/td>/);
    expect(html).toMatch(/<td>wikipedia<\/td><td class="num">100\.0<\/td><td class="num">80\.0<\/td><td class="num">80\.0<\/td>/);
  });

  it('titles the report and metrics.json with the mode the service ran when the eval named none', () => {
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<h1>mintaka — mintaka / agent</h1>');
    expect(html).not.toContain('default mode');
    expect(JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8')).mode).toBe('agent');
  });

  it('a program-mode report charts the table it answered from, not Wikipedia, Wikidata or parametric rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eval-program-'));
    const table: EvalItem = { id: 'h1', question: 'Capital of France?', gold: { kind: 'hybridqa', answer: 'Paris', tableId: 't1' } };
    await runEvaluation({ benchmark: 'hybridqa', items: [table], url: stub.url, outDir: dir });
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<h1>hybridqa — hybridqa / program</h1>');
    const sourceTable = html.slice(html.indexOf('Per-source answers'), html.indexOf('Accuracy by confidence'));
    expect(sourceTable).toMatch(/<td>table<\/td><td class="num">100\.0<\/td><td class="num">100\.0<\/td>/);
    for (const absent of ['wikipedia', 'wikidata', 'parametric']) expect(sourceTable).not.toContain(absent);
  });

  it('sends CRAG pages as context in rag mode', async () => {
    const crag: EvalItem = {
      id: 'c1',
      question: 'Capital of France?',
      gold: { kind: 'crag', answer: 'paris', alternatives: [] },
      context: { pages: [{ url: 'https://example.org', html: '<p>Paris</p>' }], queryTime: '03/01/2024, 10:00:00 PT' },
    };
    const before = stub.bodies.length;
    const summary = await runEvaluation({ benchmark: 'crag', items: [crag], url: stub.url, outDir: mkdtempSync(join(tmpdir(), 'eval-crag-')) });
    expect(stub.bodies[before]).toEqual({ question: 'Capital of France?', variant: 'crag', mode: 'rag', context: crag.context });
    expect(summary).toMatchObject({ judge: 'none', metrics: { correct: 100, score: 100 } });
  });
});

describe('progress line', () => {
  it('shows done/total, rate, ETA and errors', () => {
    expect(progressLine({ done: 5, total: 20, errors: 1, elapsedMs: 10_000 })).toBe('[######..................] 5/20 25% 0.50 q/s ETA 30s errors 1');
  });
});
