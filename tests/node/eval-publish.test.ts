// @module-tag slow
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMintaka } from '../../src/eval/loaders/mintaka';
import { loadQald9Plus } from '../../src/eval/loaders/qald9plus';
import { seededSample } from '../../src/eval/sample';
import { startStub, type Stub } from '../support/openai-stub.mjs';
import { freePort, startDev, type DevServer } from '../support/dev-server.mjs';
import { dataPath, needsData } from '../support/benchmark-data';

/**
 * What makes an evaluation's numbers publishable, end to end: the eval CLI as a child process against a real
 * `wrangler dev` whose model is the OpenAI-compatible stub, on the real Mintaka and QALD-9-Plus samples.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const MINTAKA = dataPath('mintaka/dev_sample.json');
const QALD = dataPath('qald9plus/qald_9_plus_test_wikidata_half_a.json');

const start = (args: string[]) => spawn(process.execPath, ['--import', 'tsx', 'cli/eval.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
const finish = (child: ChildProcess) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((ok) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('close', (code) => ok({ code, stdout, stderr }));
  });
const runCli = (args: string[]) => finish(start(args));
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe.skipIf(!existsSync(MINTAKA) || !existsSync(QALD))(needsData('publishable evaluations against wrangler dev with a model stub'), () => {
  let stub: Stub;
  let dev: DevServer | undefined;
  let base = '';
  const outs: string[] = [];
  const out = () => {
    const dir = mkdtempSync(join(tmpdir(), 'eval-publish-'));
    outs.push(dir);
    return dir;
  };
  /** How many model calls mention each question, among the calls the stub received from `since` on. */
  const questionsAsked = (questions: readonly string[], since = 0) =>
    questions.map((q) => stub.requests.slice(since).filter((r) => JSON.stringify(r.body.messages).includes(JSON.stringify(q).slice(1, -1))).length);

  beforeAll(async () => {
    stub = await startStub({ port: await freePort() });
    dev = await startDev({ vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub-model', RATE_LIMIT_PER_MINUTE: '100000' } });
    base = dev.url;
  }, 120_000);

  afterAll(async () => {
    await dev?.stop();
    await stub?.close();
    for (const d of outs) rmSync(d, { recursive: true, force: true });
  });

  it('writes every manifest field, from the service, the runs and the command line', async () => {
    stub.setScript({ parametric: ['Yes'] });
    const dir = out();
    const { code, stderr, stdout } = await runCli([
      '--benchmark', 'mintaka', '--data', MINTAKA, '--url', base, '--mode', 'parametric', '--sample', '12', '--seed', '3', '--limit', '8',
      '--concurrency', '2', '--recipe', 'ours', '--option', 'abstainBelow=none', '--price-in', '2.5', '--price-out', '10', '--out', dir,
    ]);
    expect(code, stderr).toBe(0);
    const metrics = json(join(dir, 'metrics.json'));
    const m = metrics.manifest;
    const ids = seededSample(loadMintaka(readFileSync(MINTAKA, 'utf8')), 12, 3).slice(0, 8).map((i) => i.id);
    const health = (await (await fetch(`${base}/healthz`)).json()) as { version: string; commit: string };
    expect(health.version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect(m).toMatchObject({
      service: { url: base, version: health.version, commit: health.commit, configuredModel: { provider: 'openai', model: 'stub-model' } },
      models: { parametric: ['stub-model'] },
      variant: 'mintaka',
      mode: 'parametric',
      recipe: 'ours',
      options: { booleanStyle: 'true-false', recipe: 'ours', abstainBelow: 'none' },
      data: { path: MINTAKA, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), questions: 71 },
      sample: { n: 12, seed: 3 },
      limit: 8,
      asked: { n: 8, ids },
      evalCli: { version: health.version, commit: expect.stringMatching(/^([0-9a-f]{40}(-dirty)?|unknown)$/) },
      concurrency: 2,
      judge: null,
      rehearsal: false,
    });
    expect(health.commit).toMatch(/^([0-9a-f]{40}(-dirty)?|unknown)$/);
    expect(m.evalId).toBe(json(join(dir, 'eval.json')).evalId);
    expect(Date.parse(m.endedAt)).toBeGreaterThanOrEqual(Date.parse(m.startedAt));
    expect(m.tokens.byPurpose.parametric.calls).toBe(8);
    expect(m.tokens.promptTokens).toBeGreaterThan(0);
    expect(m.cost.total).toBeCloseTo((m.tokens.promptTokens * 2.5 + m.tokens.completionTokens * 10) / 1e6, 12);
    // Intervals and flags beside the metrics, on the summary line and at the top of the report.
    expect(Object.keys(metrics.ci95).sort()).toEqual(['em', 'f1', 'hits1']);
    expect(metrics.emptyGold).toBe(0);
    expect(metrics.rehearsal).toBe(false);
    expect(stderr).toMatch(/n=8 em \d+\.\d \[\d+\.\d, \d+\.\d\]/);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!).ci95).toEqual(metrics.ci95);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html.indexOf(m.data.sha256)).toBeLessThan(html.indexOf('Accuracy per category'));
    expect(html).toContain(`commit ${health.commit}`);
    expect(html).toMatch(/95 % CI \[/);
    expect(html).not.toContain('Rehearsal');
    expect(readFileSync(join(dir, 'predictions.csv'), 'utf8').trim().split('\n')).toHaveLength(9);
  }, 120_000);

  it('--option reaches the run: limits end it limited', async () => {
    stub.setScript({ default: ['Thought: I should search.\nAction: wikisearch[Forrest Gump]'] });
    const dir = out();
    const { code, stderr } = await runCli(['--benchmark', 'mintaka', '--data', MINTAKA, '--url', base, '--mode', 'agent', '--limit', '3', '--option', 'limits.maxLLMCalls=1', '--out', dir]);
    expect(code, stderr).toBe(0);
    const lines = readFileSync(join(dir, 'predictions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((p) => p.status)).toEqual(['limited', 'limited', 'limited']);
    expect(json(join(dir, 'metrics.json')).manifest.options).toEqual({ booleanStyle: 'true-false', limits: { maxLLMCalls: 1 } });
  }, 120_000);

  it('--sweep runs one evaluation per option set on the same questions, on top of --options-file, and prints one table', async () => {
    stub.setScript({ parametric: ['Yes'] });
    const dir = out();
    writeFileSync(join(dir, 'common.json'), JSON.stringify({ recipe: 'ours' }));
    writeFileSync(join(dir, 'sweep.json'), JSON.stringify({ plain: {}, strict: { abstainBelow: 'one_source' } }));
    const { code, stderr, stdout } = await runCli(['--benchmark', 'mintaka', '--data', MINTAKA, '--url', base, '--mode', 'parametric', '--limit', '4', '--options-file', join(dir, 'common.json'), '--sweep', join(dir, 'sweep.json'), '--out', join(dir, 'runs')]);
    expect(code, stderr).toBe(0);
    const plain = json(join(dir, 'runs/plain/metrics.json'));
    const strict = json(join(dir, 'runs/strict/metrics.json'));
    expect(plain.manifest.options).toEqual({ booleanStyle: 'true-false', recipe: 'ours' });
    expect(strict.manifest.options).toEqual({ booleanStyle: 'true-false', recipe: 'ours', abstainBelow: 'one_source' });
    expect(strict.manifest.asked.ids).toEqual(plain.manifest.asked.ids);
    // Parametric mode cites nothing: its confidence is always none, so the threshold answers "I don't know" every time.
    const answers = readFileSync(join(dir, 'runs/strict/predictions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).answer);
    expect(answers).toEqual(["I don't know", "I don't know", "I don't know", "I don't know"]);
    // The table of the sets, as npm run table lays it out: each set's own options, hits@1 with its interval, the paired delta.
    expect(stdout).toMatch(/^\| system +\| mode +\| options +\| mintaka hits1 +\| Δ vs plain +\|$/m);
    expect(stdout).toMatch(/^\| plain +\| parametric \| +\| [\d.]+ \[[\d.]+, [\d.]+\] +\| baseline +\|$/m);
    expect(stdout).toMatch(/^\| strict +\| parametric \| \{"abstainBelow":"one_source"\} \| 0\.0 \[0\.0, 0\.0\] +\| [-+]?[\d.]+ \[[-+]?[\d.]+, [-+]?[\d.]+\] p=[\d.]+ Holm [\d.]+ +\|$/m);
    for (const ext of ['json', 'md', 'csv', 'tex', 'html']) expect(existsSync(join(dir, `runs/table.${ext}`)), ext).toBe(true);
  }, 120_000);

  it('a misspelt option stops the eval before the first question, with the service’s message and no files', async () => {
    const dir = out();
    const before = stub.requests.length;
    const { code, stderr } = await runCli(['--benchmark', 'mintaka', '--data', MINTAKA, '--url', base, '--mode', 'agent', '--limit', '3', '--option', 'fewshots=dpp', '--out', dir]);
    expect(code).not.toBe(0);
    expect(stderr).toContain('options.fewshots is not an option of mode "agent"');
    expect(readdirSync(dir)).toEqual([]);
    expect(stub.requests.length).toBe(before);
  }, 60_000);

  it('a dead URL exits non-zero, says connection refused, and writes no report', async () => {
    const dir = out();
    const { code, stderr } = await runCli(['--benchmark', 'mintaka', '--data', MINTAKA, '--url', `http://127.0.0.1:${await freePort()}`, '--limit', '3', '--out', dir]);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/connection refused.*ECONNREFUSED/);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('the QALD sample reports its empty gold sets, the metrics without them, and a warning', async () => {
    stub.setScript({ parametric: ["I don't know"] });
    const dir = out();
    const { code, stderr, stdout } = await runCli(['--benchmark', 'qald9plus', '--data', QALD, '--url', base, '--mode', 'parametric', '--limit', '20', '--concurrency', '8', '--wikidata-api', 'none', '--out', dir]);
    expect(code, stderr).toBe(0);
    const items = loadQald9Plus(readFileSync(QALD, 'utf8')).slice(0, 20);
    const empty = items.filter((i) => i.gold.kind === 'qald9plus' && i.gold.answers.length === 0).length;
    expect(empty).toBeGreaterThan(2);
    const metrics = json(join(dir, 'metrics.json'));
    expect(metrics.emptyGold).toBe(empty);
    expect(metrics.metrics.macro_f1_qald).toBeGreaterThan(0);
    expect(metrics.metricsNonEmptyGold).toMatchObject({ recall: 0, macro_f1_qald: 0 });
    expect(metrics.warnings[0]).toContain(`${empty} of 20 questions`);
    expect(stderr).toContain(`warning: ${empty} of 20 questions`);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!).emptyGold).toBe(empty);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain(`${empty} of 20 questions`);
  }, 120_000);

  it('--resume after a kill starts no second run for a question: the model sees each question once', async () => {
    stub.setScript({ parametric: ['Yes'] });
    const stubBase = stub.url.replace(/\/v1$/, '');
    await fetch(`${stubBase}/__latency`, { method: 'POST', body: JSON.stringify({ ms: 1500 }) });
    const since = stub.requests.length;
    const dir = out();
    const args = ['--benchmark', 'mintaka', '--data', MINTAKA, '--url', base, '--mode', 'parametric', '--limit', '12', '--concurrency', '3', '--out', dir];
    const child = start(args);
    const done = finish(child);
    // Killed while questions are in flight on the service: their runs go on there, with no client waiting.
    for (let i = 0; i < 1200 && stub.requests.length - since < 5; i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await done;
    const answeredBeforeKill = readFileSync(join(dir, 'predictions.jsonl'), 'utf8').trim().split('\n').filter(Boolean).length;
    expect(answeredBeforeKill).toBeLessThan(5);
    await fetch(`${stubBase}/__latency`, { method: 'POST', body: JSON.stringify({ ms: 0 }) });
    const { code, stderr } = await runCli([...args, '--resume']);
    expect(code, stderr).toBe(0);
    const asked = loadMintaka(readFileSync(MINTAKA, 'utf8')).slice(0, 12);
    expect(questionsAsked(asked.map((i) => i.question), since)).toEqual(asked.map(() => 1));
    expect(json(join(dir, 'metrics.json')).n).toBe(12);
  }, 180_000);
});
