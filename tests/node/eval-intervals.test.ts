import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/fewshot/prng';
import { honestFigures } from '../../src/eval/honest';
import { loadMintaka } from '../../src/eval/loaders/mintaka';
import { loadQald9Plus } from '../../src/eval/loaders/qald9plus';
import { buildManifest } from '../../src/eval/manifest';
import { compareFolders } from '../../src/eval/node/compare-folders';
import { sha256File } from '../../src/eval/node/provenance';
import { goldAnswerText } from '../../src/eval/rehearse/gold-answer';
import { indexPredictions, scoreBenchmark } from '../../src/eval/score';
import { mcnemarExact } from '../../src/eval/stats/paired';
import type { EvalItem, Prediction } from '../../src/eval/types';
import { dataPath, needsData } from '../support/benchmark-data';

const MINTAKA = dataPath('mintaka/dev_sample.json');
const QALD = dataPath('qald9plus/qald_9_plus_test_wikidata_half_a.json');

/** The test's own percentile bootstrap: its own resampling loop and its own interpolated quantile. */
const independentInterval = (n: number, statistic: (idx: number[]) => number, resamples = 2000, seed = 0): [number, number] => {
  const next = mulberry32(seed);
  const stats: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const idx: number[] = [];
    for (let i = 0; i < n; i++) idx.push(Math.floor(next() * n));
    stats.push(statistic(idx));
  }
  stats.sort((a, b) => a - b);
  const at = (q: number) => {
    const h = (stats.length - 1) * q;
    return stats[Math.floor(h)] + (h - Math.floor(h)) * (stats[Math.ceil(h)] - stats[Math.floor(h)]);
  };
  return [at(0.025), at(0.975)];
};

/** What a model that knows every gold answer writes (as the rehearsal's stub does); `wrong` ids get another answer. */
const goldPredictions = (items: readonly EvalItem[], wrong: ReadonlySet<string> = new Set()): Prediction[] =>
  items.map((i) => ({ id: i.id, answer: wrong.has(i.id) ? 'Nobody knows this answer' : goldAnswerText(i), runId: `run-${i.id}` }));

describe.skipIf(!existsSync(MINTAKA) || !existsSync(QALD))(needsData('intervals, empty gold sets and paired comparisons on the real samples'), () => {
  // Read when the suite runs, not while it is collected: a skipped suite is still collected, and the files may be absent.
  let mintaka: EvalItem[] = [];
  let qald: EvalItem[] = [];
  beforeAll(() => {
    mintaka = loadMintaka(readFileSync(MINTAKA, 'utf8'));
    qald = loadQald9Plus(readFileSync(QALD, 'utf8'));
  });
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('an all-correct run has the interval [100, 100] on every metric', async () => {
    const r = await scoreBenchmark('mintaka', mintaka, indexPredictions(goldPredictions(mintaka)));
    expect(r.metrics).toEqual({ em: 100, f1: 100, hits1: 100 });
    expect(honestFigures('mintaka', r.items).ci95).toEqual({ em: [100, 100], f1: [100, 100], hits1: [100, 100] });
  });

  it('a seeded interval equals an independent computation (a mean, and Macro F1 QALD recomputed per resample)', async () => {
    const wrong = new Set(mintaka.filter((_, i) => i % 3 === 0).map((i) => i.id));
    const r = await scoreBenchmark('mintaka', mintaka, indexPredictions(goldPredictions(mintaka, wrong)));
    const em = r.items.map((s) => (s.correct ? 1 : 0));
    const mine = independentInterval(em.length, (idx) => (100 * idx.reduce((s, i) => s + em[i], 0)) / idx.length);
    const { ci95 } = honestFigures('mintaka', r.items);
    expect(ci95.em![0]).toBeCloseTo(mine[0], 9);
    expect(ci95.em![1]).toBeCloseTo(mine[1], 9);
    expect(ci95.em![0]).toBeLessThan(r.metrics.em!);
    expect(ci95.em![1]).toBeGreaterThan(r.metrics.em!);

    // QALD: all "I don't know" (the case that rewards silence); the F1 of the averaged P and R, per resample.
    const q = await scoreBenchmark('qald9plus', qald, indexPredictions(qald.map((i) => ({ id: i.id, answer: "I don't know" }))));
    const P = q.items.map((s) => s.values!.precision);
    const R = q.items.map((s) => s.values!.recall);
    const f = (idx: number[]) => {
      const p = idx.reduce((s, i) => s + P[i], 0) / idx.length;
      const rr = idx.reduce((s, i) => s + R[i], 0) / idx.length;
      return p + rr === 0 ? 0 : (100 * 2 * p * rr) / (p + rr);
    };
    const qci = honestFigures('qald9plus', q.items).ci95.macro_f1_qald!;
    const expected = independentInterval(P.length, f);
    expect(qci[0]).toBeCloseTo(expected[0], 9);
    expect(qci[1]).toBeCloseTo(expected[1], 9);
  });

  it('the QALD sample counts its empty gold sets and gives every metric without them, with a warning', async () => {
    const q = await scoreBenchmark('qald9plus', qald, indexPredictions(qald.map((i) => ({ id: i.id, answer: "I don't know" }))));
    const empty = qald.filter((i) => i.gold.kind === 'qald9plus' && i.gold.answers.length === 0).length;
    expect(empty).toBeGreaterThan(qald.length / 10);
    const h = honestFigures('qald9plus', q.items);
    expect(h.emptyGold).toBe(empty);
    // Silence scores on the empty golds only: over the others, nothing was recalled.
    expect(q.metrics.macro_f1_qald).toBeGreaterThan(50);
    expect(h.metricsNonEmptyGold).toMatchObject({ recall: 0, macro_f1: 0, macro_f1_qald: 0 });
    expect(h.warnings[0]).toContain(`${empty} of ${qald.length} questions`);
  });

  /** An eval output folder as `npm run eval` leaves it: predictions.jsonl and metrics.json with its manifest. */
  const folder = async (name: string, predictions: Prediction[], options: Record<string, unknown>) => {
    const dir = mkdtempSync(join(tmpdir(), `compare-${name}-`));
    dirs.push(dir);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'predictions.jsonl'), predictions.map((p) => JSON.stringify(p)).join('\n'));
    const manifest = buildManifest(
      { data: { path: MINTAKA, sha256: sha256File(MINTAKA), questions: mintaka.length }, rehearsal: true },
      { url: 'http://127.0.0.1:8787', variant: 'mintaka', mode: 'agent', options, items: mintaka, predictions: indexPredictions(predictions), startedAt: 'x', endedAt: 'y', concurrency: 4 },
    );
    writeFileSync(join(dir, 'metrics.json'), JSON.stringify({ benchmark: 'mintaka', manifest }));
    return dir;
  };

  it('compare: k answers made wrong give delta −k/n·100, k losses, no win, an interval around the delta and McNemar’s exact p', async () => {
    const n = mintaka.length;
    const k = 7;
    const wrong = new Set(mintaka.slice(10, 10 + k).map((i) => i.id));
    const a = await folder('a', goldPredictions(mintaka), { booleanStyle: 'true-false' });
    const b = await folder('b', goldPredictions(mintaka, wrong), { booleanStyle: 'true-false', abstainBelow: 'one_source' });
    const c = await compareFolders(a, b);
    expect(c.n).toBe(n);
    // Figures are rounded as printed: points to two decimals, p to three significant digits.
    expect(c.metrics.em.delta).toBe(Math.round((-k / n) * 100 * 100) / 100);
    expect(c.metrics.hits1.delta).toBe(Math.round((-k / n) * 100 * 100) / 100);
    expect(c).toMatchObject({ losses: k, wins: 0, ties: n - k });
    const [lo, hi] = c.metrics.em.ci95!;
    expect(lo).toBeLessThanOrEqual(c.metrics.em.delta!);
    expect(hi).toBeGreaterThanOrEqual(c.metrics.em.delta!);
    // b = k questions only A got right, c = 0: p = min(1, 2·P[X ≤ 0]) with X ~ Bin(k, ½) = 2·(½)^k.
    expect(c.metrics.em.p).toBe(Number((2 * 0.5 ** k).toPrecision(3)));
    expect(c.metrics.em.test).toBe('mcnemar-exact');
    expect(c.flipped.map((f) => f.id).sort()).toEqual([...wrong].sort());
    expect(c.flipped[0]).toMatchObject({ a: { score: 1, runUrl: expect.stringContaining('/runs/run-') }, b: { answer: 'Nobody knows this answer', score: 0 } });
    expect(c.manifestDiff).toContainEqual({ field: 'options.abstainBelow', a: null, b: 'one_source' });
    expect(Object.keys(c)).toEqual(expect.arrayContaining(['benchmark', 'n', 'metrics', 'wins', 'losses', 'ties', 'flipped', 'manifestDiff']));
  });

  it('McNemar’s exact p matches the binomial tail by hand', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(3, 0)).toBeCloseTo(0.25, 12);
    // b = 2, c = 8: 2·P[X ≤ 2], X ~ Bin(10, ½) = 2·(1 + 10 + 45)/1024.
    expect(mcnemarExact(2, 8)).toBeCloseTo((2 * 56) / 1024, 12);
    expect(mcnemarExact(5, 5)).toBe(1);
  });

  it('compare refuses two different data files, naming both', async () => {
    const a = await folder('a2', goldPredictions(mintaka), {});
    const b = await folder('b2', goldPredictions(mintaka), {});
    const doc = JSON.parse(readFileSync(join(b, 'metrics.json'), 'utf8'));
    doc.manifest.data = { path: QALD, sha256: sha256File(QALD), questions: qald.length };
    writeFileSync(join(b, 'metrics.json'), JSON.stringify(doc));
    await expect(compareFolders(a, b)).rejects.toThrow(/different data files: .*dev_sample\.json.*qald_9_plus/);
    doc.benchmark = 'qald9plus';
    writeFileSync(join(b, 'metrics.json'), JSON.stringify(doc));
    await expect(compareFolders(a, b)).rejects.toThrow(/different benchmarks/);
  });
});
