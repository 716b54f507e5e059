// @module-tag slow
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMintaka } from '../../src/eval/loaders/mintaka';
import { startStub } from '../support/openai-stub.mjs';
import { startDev, type DevServer } from '../support/dev-server.mjs';
import { dataPath, needsData } from '../support/benchmark-data';

/**
 * `npm run eval` end to end: the eval CLI as a child process against a real `wrangler dev` whose model is the
 * OpenAI-compatible stub, on 20 Mintaka questions in parametric mode. The stub answers "Yes" to everything, which the
 * runner's Mintaka convention turns into "True", so the expected EM is known from the gold file alone (only the
 * questions whose gold is "True" can match).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const DATA = dataPath('mintaka/dev_sample.json');
const N = 20;

const runCli = (args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((ok) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/eval.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => ok({ code, stdout, stderr }));
  });

describe.skipIf(!existsSync(DATA))(needsData('npm run eval against wrangler dev with a model stub'), () => {
  let stub: { url: string; setScript: (s: Record<string, string[]>) => void; close: () => Promise<void> };
  let dev: DevServer | undefined;
  let base = '';
  let out = '';

  beforeAll(async () => {
    stub = await startStub({ port: 0, latencyMs: 20 });
    stub.setScript({ parametric: ['Yes'] });
    out = mkdtempSync(join(tmpdir(), 'eval-e2e-out-'));
    dev = await startDev({ vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, RATE_LIMIT_PER_MINUTE: '100000' } });
    base = dev.url;
  }, 120_000);

  afterAll(async () => {
    await dev?.stop();
    await stub?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('answers 20 questions with progress and writes predictions, metrics and a report with charts and run links', async () => {
    const { code, stdout, stderr } = await runCli([
      '--benchmark', 'mintaka', '--data', DATA, '--url', base, '--mode', 'parametric', '--limit', String(N), '--concurrency', '4', '--out', out,
    ]);
    expect(code, stderr).toBe(0);

    // Progress bar lines on stderr, ending at 20/20 with no errors.
    expect(stderr).toMatch(/\] 0\/20 /);
    expect(stderr).toMatch(/\] 20\/20 100% .* errors 0/);

    const lines = readFileSync(join(out, 'predictions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(N);
    const items = loadMintaka(readFileSync(DATA, 'utf8')).slice(0, N);
    expect(new Set(lines.map((p) => p.id))).toEqual(new Set(items.map((i) => i.id)));
    for (const p of lines) {
      expect(p.error).toBeUndefined();
      expect(p.answer).toBe('True');
      expect(p.answers).toEqual({ parametric: 'True' });
      expect(p.runId).toMatch(/^[0-9a-f-]{36}$/);
    }

    // Only "True" golds match a "True" answer (Mintaka's text EM is containment of the gold tokens).
    const yes = items.filter((i) => i.gold.kind === 'mintaka' && i.gold.text?.toLowerCase() === 'true').length;
    expect(yes).toBeGreaterThan(0);
    const metrics = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8'));
    expect(Object.keys(metrics.metrics).sort()).toEqual(['em', 'f1', 'hits1']);
    expect(metrics.n).toBe(N);
    expect(metrics.errors).toBe(0);
    expect(metrics.metrics.em).toBeCloseTo((100 * yes) / N, 9);
    expect(metrics.metrics.hits1).toBe(metrics.metrics.em);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ benchmark: 'mintaka', n: N, metrics: metrics.metrics });

    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<svg/g)!.length).toBeGreaterThanOrEqual(5);
    // Every question, right or wrong, links to the run page of the service that answered it.
    const links = [...html.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1]);
    expect(links).toHaveLength(N);
    expect(html).toContain(`wrong (${N - yes})`);
    for (const href of links) expect(href.startsWith(`${base}/runs/`)).toBe(true);
    const page = await fetch(links[0]);
    expect(page.status).toBe(200);
  }, 90_000);
});
