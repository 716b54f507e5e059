// @module-tag slow
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMintaka } from '../../src/eval/loaders/mintaka';
import { loadQald9Plus } from '../../src/eval/loaders/qald9plus';
import { sha256File } from '../../src/eval/node/input-files';
import { readPredictionLines } from '../../src/eval/node/read-text';
import { rehearse } from '../../src/eval/node/rehearse';
import { renderReport } from '../../src/eval/report/html';
import { goldAnswerText } from '../../src/eval/rehearse/gold-answer';
import { goldReplies } from '../../src/eval/rehearse/script';
import { indexPredictions, scoreBenchmark } from '../../src/eval/score';
import { mulberry32 } from '../../src/fewshot/prng';
import type { EvalItem, Prediction } from '../../src/eval/types';
import { dataPath, needsData } from '../support/benchmark-data';
import { freePort, startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';

/**
 * A paper's table from one command, end to end: the eval CLIs as child processes against two `npm run dev` servers
 * (one with MAX_LLM_CALLS=3) whose model is the OpenAI-compatible stub, on the real Mintaka and QALD-9-Plus samples.
 * Every figure the table prints is recomputed here from the cells' own predictions (McNemar by the binomial tail,
 * Holm by its definition, the bootstrap interval by the test's own loop).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const MINTAKA = dataPath('mintaka/dev_sample.json');
const QALD = dataPath('qald9plus/qald_9_plus_test_wikidata_half_a.json');

const run = (script: string, args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((ok) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => ok({ code, stdout, stderr }));
  });
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const lastLine = (s: string) => JSON.parse(s.trim().split('\n').at(-1)!);
const predictionsOf = (dir: string) => indexPredictions(readPredictionLines(join(dir, 'predictions.jsonl')) as Prediction[]);

/** McNemar's exact p from the discordant pairs, by the binomial tail written out. */
const mcnemar = (b: number, c: number) => {
  const n = b + c;
  if (!n) return 1;
  let tail = 0;
  for (let k = 0, coef = 1; k <= Math.min(b, c); k++, coef = (coef * (n - k + 1)) / k) tail += coef / 2 ** n;
  return Math.min(1, 2 * tail);
};
const holmByHand = (ps: number[]) => ps.map((p) => Math.max(...[...ps].sort((a, b) => a - b).map((q, r) => (q <= p ? Math.min(1, (ps.length - r) * q) : 0))));
const sig3 = (p: number) => Number(p.toPrecision(3));

describe.skipIf(!existsSync(MINTAKA) || !existsSync(QALD))(needsData('a paper’s table from one command, against npm run dev with the stub'), () => {
  let stub: Stub;
  let dev: DevServer | undefined;
  let limited: DevServer | undefined;
  const out = mkdtempSync(join(tmpdir(), 'eval-table-'));
  const mintaka = () => loadMintaka(readFileSync(MINTAKA, 'utf8'));
  const qald = () => loadQald9Plus(readFileSync(QALD, 'utf8'));
  const key = (q: string) => q.normalize('NFC').trim();

  beforeAll(async () => {
    stub = await startStub({ port: await freePort() });
    const vars = { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub-model', RATE_LIMIT_PER_MINUTE: '100000' };
    [dev, limited] = await Promise.all([startDev({ vars }), startDev({ vars: { ...vars, MAX_LLM_CALLS: '3' } })]);
  }, 240_000);

  afterAll(async () => {
    await dev?.stop();
    await limited?.stop();
    await stub?.close();
    rmSync(out, { recursive: true, force: true });
  });

  const search = ' I look it up.\nAction: wikisearch\nAction Input: {entity}';

  it('records the service’s settings; runs cut short are counted and warned about; compare names the limit that explains the delta', async () => {
    stub.setScript({ byTurn: { agent: [search, ' Found it.\nFinal Answer: {entity}'] }, parametric: ['Paris'] });
    const a = join(out, 'full');
    const full = await run('cli/eval.ts', ['--benchmark', 'mintaka', '--data', MINTAKA, '--url', dev!.url, '--mode', 'agent', '--limit', '40', '--concurrency', '6', '--record', 'evidence.jsonl', '--out', a]);
    expect(full.code, full.stderr).toBe(0);
    stub.setScript({ byTurn: { agent: [search] }, parametric: ['Paris'] });
    const b = join(out, 'limited');
    const cut = await run('cli/eval.ts', ['--benchmark', 'mintaka', '--data', MINTAKA, '--url', limited!.url, '--mode', 'agent', '--limit', '40', '--concurrency', '6', '--out', b]);
    expect(cut.code, cut.stderr).toBe(0);
    const [ma, mb] = [json(join(a, 'metrics.json')), json(join(b, 'metrics.json'))];
    // GET /v1/config as each server answered it, and the options the runs resolved to (the recipe is no longer null).
    expect(ma.manifest.service.settings.limits.maxLLMCalls).toBe(40);
    expect(mb.manifest.service.settings.limits.maxLLMCalls).toBe(3);
    expect(mb.manifest.resolvedOptions).toMatchObject({ recipe: 'ours', fewshot: 'dpp', k: 3, library: 'mintaka', limits: { maxLLMCalls: 3 } });
    expect(ma.manifest).toMatchObject({ recipe: 'ours', service: { settings: { evidence: { mode: 'static' }, purposes: { agent: { model: 'stub-model', temperature: 0 } } } } });
    // 40 of 40 limited: counted with its share, warned about on the summary line, in metrics.json and in the report.
    expect(mb.runs.statuses.limited).toEqual({ n: 40, share: 100 });
    expect(mb.runs).toMatchObject({ n: 40, finished: 0, unfinished: 40 });
    expect(mb.metricsFinished).toBeNull();
    expect(mb.warnings.join('\n')).toContain('40 of 40 runs did not finish (limited 40)');
    expect(cut.stderr).toMatch(/^n=40 em .* · 40 of 40 runs did not finish \(limited 40\)$/m);
    expect(cut.stderr).toContain('warning: 40 of 40 runs did not finish (limited 40)');
    const reportB = readFileSync(join(b, 'report.html'), 'utf8');
    expect(reportB).toContain('How the runs ended');
    expect(reportB).toContain('40 of 40 runs did not finish (limited 40)');
    expect(ma.runs.statuses.succeeded.n).toBe(40);
    // The evidence archive beside the outputs, named in the manifest by its hash.
    expect(ma.manifest.evidenceArchive).toMatchObject({ file: join(a, 'evidence.jsonl'), sha256: sha256File(join(a, 'evidence.jsonl')), runs: 40, failed: 0 });
    const cmp = await run('cli/compare.ts', [a, b, '--out', join(out, 'cmp-limits')]);
    expect(cmp.code, cmp.stderr).toBe(0);
    expect(cmp.stdout).toMatch(/manifest fields that differ: .*service\.settings\.limits\.maxLLMCalls/);
    expect(cmp.stdout).toContain('warning: service.settings.limits.maxLLMCalls differs (A 40, B 3): it could explain the delta');
    expect(cmp.stdout).toContain('warning: B: 40 of 40 runs did not finish (limited 40)');
    expect(json(join(out, 'cmp-limits/comparison.json')).warnings).toEqual(expect.arrayContaining([expect.stringContaining('resolvedOptions.limits.maxLLMCalls differs')]));
  }, 300_000);

  const specItems = (): EvalItem[] => [...mintaka().slice(0, 20), ...qald().slice(0, 20)];

  it('npm run table: two benchmarks × three systems, five files, intervals and Holm-corrected p-values as recomputed here; a second run asks nothing', async () => {
    const byQuestion: Record<string, Record<string, string[]>> = {};
    specItems().forEach((item, i) => {
      const gold = goldAnswerText(item);
      byQuestion[key(item.question)] = { ...goldReplies(item, 'agent', gold), parametric: [i % 3 === 0 ? gold : 'Paris'] };
    });
    stub.setScript({ byQuestion });
    const spec = join(out, 'spec.json');
    writeFileSync(spec, JSON.stringify({
      title: 'Three systems on two samples',
      benchmarks: { mintaka: { data: MINTAKA, limit: 20 }, qald9plus: { data: QALD, limit: 20, wikidataApi: 'none' } },
      systems: { agent: { mode: 'agent' }, 'closed-book': { mode: 'parametric' }, 'zero-shot': { mode: 'zero-shot' } },
      baseline: 'agent',
    }));
    const dir = join(out, 'table');
    const first = await run('cli/table.ts', ['--spec', spec, '--url', dev!.url, '--out', dir, '--concurrency', '6']);
    expect(first.code, first.stderr).toBe(0);
    for (const f of ['table.json', 'table.md', 'table.csv', 'table.tex', 'table.html']) expect(existsSync(join(dir, f)), f).toBe(true);
    const t = json(join(dir, 'table.json'));
    expect(t.systems.map((s: { mode: string }) => s.mode)).toEqual(['agent', 'parametric', 'zero-shot']);
    // Mintaka's p recomputed from the cells' predictions (hits@1 is 0/1: McNemar's exact test); QALD's main metric is
    // corpus-level, so its p is the permutation test's. Then Holm over all four by its definition.
    const raw: number[] = [];
    for (const system of ['closed-book', 'zero-shot']) {
      for (const [bench, items] of [['mintaka', mintaka().slice(0, 20)], ['qald9plus', qald().slice(0, 20)]] as const) {
        const right = async (s: string) => new Map((await scoreBenchmark(bench, items, predictionsOf(join(dir, bench, s)))).items.map((r) => [r.id, r.correct]));
        const [ra, rb] = [await right('agent'), await right(system)];
        const onlyA = items.filter((i) => ra.get(i.id) && !rb.get(i.id)).length;
        const onlyB = items.filter((i) => !ra.get(i.id) && rb.get(i.id)).length;
        const c = t.comparisons[system][bench];
        if (bench === 'mintaka') expect(c.p, `${system} ${bench}`).toBe(sig3(mcnemar(onlyA, onlyB)));
        raw.push(c.p);
      }
    }
    expect([t.comparisons['closed-book'].mintaka, t.comparisons['closed-book'].qald9plus, t.comparisons['zero-shot'].mintaka, t.comparisons['zero-shot'].qald9plus].map((c) => c.pHolm)).toEqual(holmByHand(raw).map(sig3));
    expect(t.comparisons['closed-book'].mintaka.delta).toBeLessThan(0);
    // The agent cell's interval by the test's own percentile bootstrap over its 20 per-question hits@1.
    const cell = t.cells.agent.mintaka;
    const hits = (await scoreBenchmark('mintaka', mintaka().slice(0, 20), predictionsOf(join(dir, cell.folder)))).items.map((r) => r.values!.hits1);
    const next = mulberry32(0);
    const draws = Array.from({ length: 2000 }, () => (100 * Array.from({ length: 20 }, () => hits[Math.floor(next() * 20)]).reduce((s, x) => s + x, 0)) / 20).sort((x, y) => x - y);
    const at = (q: number) => {
      const h = (draws.length - 1) * q;
      return draws[Math.floor(h)] + (h - Math.floor(h)) * (draws[Math.ceil(h)] - draws[Math.floor(h)]);
    };
    expect(cell.ci95).toEqual([Math.round(at(0.025) * 100) / 100, Math.round(at(0.975) * 100) / 100]);
    expect(readFileSync(join(dir, 'table.md'), 'utf8')).toContain(`| closed-book | parametric |`);
    expect(readFileSync(join(dir, 'table.tex'), 'utf8')).toContain('\\begin{tabular}{lrrrr}');
    // Resumable: the same command again asks the model nothing and writes the same table.
    const asked = stub.requests.length;
    const again = await run('cli/table.ts', ['--spec', spec, '--url', dev!.url, '--out', dir]);
    expect(again.code, again.stderr).toBe(0);
    expect(stub.requests.length).toBe(asked);
    expect(json(join(dir, 'table.json')).comparisons).toEqual(t.comparisons);
  }, 600_000);

  it('--sweep takes a mode per set and saves its table the same way', async () => {
    const sets = join(out, 'sets.json');
    writeFileSync(sets, JSON.stringify({ agent: { mode: 'agent' }, closed: { mode: 'parametric', abstainBelow: 'none' } }));
    const dir = join(out, 'sweep');
    const r = await run('cli/eval.ts', ['--benchmark', 'mintaka', '--data', MINTAKA, '--url', dev!.url, '--limit', '6', '--sweep', sets, '--out', dir]);
    expect(r.code, r.stderr).toBe(0);
    const t = json(join(dir, 'table.json'));
    expect(t.systems).toEqual([{ name: 'agent', mode: 'agent', options: {} }, { name: 'closed', mode: 'parametric', options: { abstainBelow: 'none' } }]);
    expect(json(join(dir, 'closed/metrics.json')).mode).toBe('parametric');
    expect(t.comparisons.closed.mintaka.pHolm).toBe(t.comparisons.closed.mintaka.p);
    for (const f of ['table.md', 'table.csv', 'table.tex', 'table.html']) expect(existsSync(join(dir, f))).toBe(true);
  }, 300_000);

  it('--epochs 3: a seed and a key per epoch, three per-epoch scores, and a wider interval when the epochs differ', async () => {
    const items = mintaka().slice(0, 20);
    const right = (i: number, e: number) => [i % 2 === 0, i % 3 === 0, i % 4 !== 0][e];
    stub.setScript({ byQuestion: Object.fromEntries(items.map((item, i) => [key(item.question), { parametric: [0, 1, 2].map((e) => (right(i, e) ? goldAnswerText(item) : 'Paris')) }])) });
    const since = stub.requests.length;
    const dir = join(out, 'epochs');
    const r = await run('cli/eval.ts', ['--benchmark', 'mintaka', '--data', MINTAKA, '--url', dev!.url, '--mode', 'parametric', '--limit', '20', '--epochs', '3', '--concurrency', '4', '--out', dir]);
    expect(r.code, r.stderr).toBe(0);
    const m = json(join(dir, 'metrics.json'));
    const expected = [0, 1, 2].map((e) => (100 * items.filter((_, i) => right(i, e)).length) / 20);
    expect(m.epochs.perEpoch.map((x: { hits1: number }) => x.hits1)).toEqual(expected);
    expect(m.metrics.hits1).toBeCloseTo(expected.reduce((s, x) => s + x, 0) / 3, 9);
    expect(m.ci95.hits1[1] - m.ci95.hits1[0]).toBeGreaterThan(m.epochs.ci95QuestionsOnly.hits1[1] - m.epochs.ci95QuestionsOnly.hits1[0]);
    expect(new Set(stub.requests.slice(since).map((q) => q.body.seed))).toEqual(new Set([1, 2, 3]));
    expect(new Set([1, 2, 3].map((e) => json(join(dir, `epoch-${e}/eval.json`)).evalId)).size).toBe(3);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('href="epoch-2/report.html"');
    // Compared with itself, question by question over the epochs: each question's three scores averaged.
    const cmp = await run('cli/compare.ts', [dir, dir, '--out', join(out, 'cmp-epochs')]);
    expect(cmp.stdout).toContain('epochs per question: A 3, B 3');
  }, 300_000);

  it('--estimate asks a pilot and prints calls, tokens and cost per question with intervals and the projection, then stops', async () => {
    const dir = join(out, 'estimate');
    const r = await run('cli/eval.ts', ['--benchmark', 'mintaka', '--data', MINTAKA, '--url', dev!.url, '--mode', 'parametric', '--limit', '30', '--estimate', '--pilot', '5', '--price-in', '1', '--price-out', '2', '--out', dir]);
    expect(r.code, r.stderr).toBe(0);
    const { estimate } = lastLine(r.stdout);
    expect(estimate).toMatchObject({ pilot: 5, measured: 5, selection: 30, perQuestion: { calls: { mean: 1, ci95: [1, 1] } }, projection: { calls: { mean: 30 } } });
    expect(estimate.projection.cost.mean).toBeCloseTo(30 * estimate.perQuestion.cost.mean, 12);
    expect(r.stderr).toMatch(/projection for the 30 questions selected: 30 \[30, 30\] model calls/);
    expect(existsSync(join(dir, 'metrics.json'))).toBe(false);
  }, 300_000);

  it('refuses to compare a rehearsal with a real run', async () => {
    const items = mintaka().slice(0, 5);
    const dir = join(out, 'rehearsal');
    await rehearse({ benchmark: 'mintaka', items, outDir: dir, manifest: { data: { path: MINTAKA, sha256: sha256File(MINTAKA), questions: 71 }, rehearsal: true }, service: { url: dev!.url, setScript: (s) => stub.setScript(s) } });
    const r = await run('cli/compare.ts', [dir, join(out, 'full'), '--out', join(out, 'cmp-rehearsal')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/rehearsal.*is a rehearsal \(its model echoed the gold answers\).*--allow-rehearsal/s);
  }, 300_000);

  it('the report shows every question’s trace with the servers stopped', async () => {
    await dev!.stop();
    await limited!.stop();
    await expect(fetch(`${dev!.url}/healthz`)).rejects.toThrow();
    const dir = join(out, 'full');
    const saved = readFileSync(join(dir, 'report.html'), 'utf8');
    // Rebuilt from the folder alone: the steps come from predictions.jsonl, nothing from the service.
    const items = mintaka().slice(0, 40);
    const predictions = predictionsOf(dir);
    const rebuilt = renderReport(items, predictions, await scoreBenchmark('mintaka', items, predictions));
    for (const html of [saved, rebuilt]) {
      expect(html.match(/<details class="trace"><summary>trace \(\d+ steps\)/g)?.length).toBe(40);
      expect(html).toContain('<td class="step">action</td><td><code>wikisearch</code>');
      expect(html).toContain('<td class="step">observation</td>');
      expect(html).toContain('I look it up.');
    }
  }, 120_000);
});
