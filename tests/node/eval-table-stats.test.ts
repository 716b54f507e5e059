import { describe, expect, it } from 'vitest';
import { compareMetrics } from '../../src/eval/compare/metrics';
import type { Comparison } from '../../src/eval/compare/compare';
import { estimateCost } from '../../src/eval/estimate';
import { mulberry32 } from '../../src/fewshot/prng';
import { countRuns, unfinishedWarning } from '../../src/eval/run-statuses';
import type { QuestionRow } from '../../src/eval/scorers/types';
import { bootstrapCi } from '../../src/eval/stats/bootstrap';
import { averagedRows, epochFigures } from '../../src/eval/stats/epochs';
import { holm } from '../../src/eval/stats/holm';
import { buildTable } from '../../src/eval/table/build';
import { tableCsv, tableHtml, tableMarkdown, tableTex } from '../../src/eval/table/render';
import type { EvalItem, Prediction } from '../../src/eval/types';

/** The statistics of tables, epochs and estimates, each against the test's own computation. */

/** Holm by its definition, one hypothesis at a time: the largest (m − r)·p over every p at or below its own, capped at 1. */
const holmByHand = (ps: number[]): number[] => {
  const sorted = [...ps].sort((a, b) => a - b);
  const m = ps.length;
  return ps.map((p) => {
    let worst = 0;
    sorted.forEach((q, r) => {
      if (q <= p) worst = Math.max(worst, Math.min(1, (m - r) * q));
    });
    return worst;
  });
};

/** The test's own percentile (linear interpolation) of sorted values. */
const pct = (sorted: number[], q: number) => {
  const h = (sorted.length - 1) * q;
  return sorted[Math.floor(h)] + (h - Math.floor(h)) * (sorted[Math.ceil(h)] - sorted[Math.floor(h)]);
};

const row = (id: string, v: number): QuestionRow => ({ id, score: v, correct: v === 1, missing: false, values: { em: v } });
const mean = (rows: readonly QuestionRow[]) => ({ em: rows.length ? (100 * rows.reduce((s, r) => s + r.values.em, 0)) / rows.length : 0 });

describe('Holm’s correction', () => {
  it('matches the textbook example and the definition on random p-values; a null stays out of the family', () => {
    expect(holm([0.01, 0.04, 0.03, 0.005])).toEqual([0.03, 0.06, 0.06, 0.02].map((x) => expect.closeTo(x, 12)));
    const next = mulberry32(5);
    for (let t = 0; t < 50; t++) {
      const ps = Array.from({ length: 1 + Math.floor(next() * 12) }, () => next() ** 2);
      holm(ps).forEach((p, i) => expect(p).toBeCloseTo(holmByHand(ps)[i], 12));
    }
    expect(holm([0.02, null, 0.04])).toEqual([0.04, null, 0.04]);
    // 0.8 × 2 is over 1: capped; 0.9 × 1 keeps the running maximum.
    expect(holm([0.9, 0.8])).toEqual([1, 1]);
    expect(holm([0.3, 0.2])).toEqual([0.4, 0.4]);
  });
});

describe('epochs: per-epoch scores, spread and an interval over questions and epochs', () => {
  const n = 40;
  const ids = Array.from({ length: n }, (_, i) => `q${i}`);
  /** Epoch e of question i right with a fixed pattern: `agree` gives every epoch the same answers. */
  const epochs = (agree: boolean) => [0, 1, 2].map((e) => ids.map((id, i) => row(id, agree ? Number(i % 2 === 0) : Number((i + e) % 3 !== 0 || i % 5 === 0))));

  /** The two-level bootstrap written out: questions from one generator, then each drawn question's epochs from another. */
  const byHand = (rows: QuestionRow[][], resamples = 2000, seed = 0): [number, number] => {
    const q = mulberry32(seed);
    const e = mulberry32(seed + 7919);
    const stats: number[] = [];
    for (let r = 0; r < resamples; r++) {
      const drawn: number[] = [];
      for (let i = 0; i < n; i++) drawn.push(Math.floor(q() * n));
      let sum = 0;
      for (let j = 0; j < rows.length; j++) {
        let right = 0;
        for (const i of drawn) right += rows[Math.floor(e() * rows.length)][i].values.em;
        sum += (100 * right) / n;
      }
      stats.push(sum / rows.length);
    }
    stats.sort((a, b) => a - b);
    return [pct(stats, 0.025), pct(stats, 0.975)];
  };

  it('gives each epoch’s score, their mean and spread, and the interval an independent computation gives', () => {
    const rows = epochs(false);
    const f = epochFigures(rows, mean);
    const perEpoch = rows.map((r) => (100 * r.filter((x) => x.values.em === 1).length) / n);
    expect(f.perEpoch.map((m) => m.em)).toEqual(perEpoch);
    expect(f.metrics.em).toBeCloseTo(perEpoch.reduce((s, x) => s + x, 0) / 3, 12);
    const m = f.metrics.em!;
    expect(f.spread.em.sd).toBeCloseTo(Math.sqrt(perEpoch.reduce((s, x) => s + (x - m) ** 2, 0) / 2), 12);
    expect(new Set(perEpoch).size).toBeGreaterThan(1);
    const [lo, hi] = byHand(rows);
    expect(f.ci95.em![0]).toBeCloseTo(lo, 9);
    expect(f.ci95.em![1]).toBeCloseTo(hi, 9);
  });

  it('is the interval over questions alone when the epochs agree, and wider when they differ', () => {
    const same = epochFigures(epochs(true), mean);
    expect(same.ci95.em).toEqual(bootstrapCi(epochs(true)[0], mean).em);
    expect(same.ci95.em).toEqual(same.ci95QuestionsOnly.em);
    expect(same.spread.em.sd).toBe(0);
    const differ = epochFigures(epochs(false), mean);
    const width = (ci: [number, number] | null) => ci![1] - ci![0];
    expect(width(differ.ci95.em)).toBeGreaterThan(width(differ.ci95QuestionsOnly.em));
  });

  it('averages each question over its epochs for pairing: the value, the score, right in most epochs', () => {
    const avg = averagedRows([[row('a', 1), row('b', 0)], [row('a', 1), row('b', 1)], [row('a', 0), row('b', 0)]]);
    expect(avg.map((r) => [r.id, r.values.em, r.correct])).toEqual([['a', 2 / 3, true], ['b', 1 / 3, false]]);
    // Averaged values are not 0/1: compare uses the permutation test, not McNemar's.
    const cmp = compareMetrics('mintaka', avg.map((r) => ({ ...r, values: { em: r.values.em, f1: r.values.em, hits1: r.values.em } })), avg.map((r) => ({ ...r, values: { em: 1, f1: 1, hits1: 1 } })), {});
    expect(cmp.em.test).toBe('paired-permutation');
  });
});

describe('how runs ended', () => {
  it('counts each status with its share, the abstentions, and warns when any run did not finish', () => {
    const items = ['a', 'b', 'c', 'd'].map((id) => ({ id, question: id }) as EvalItem);
    const predictions = new Map<string, Prediction>([
      ['a', { id: 'a', answer: 'x', status: 'limited' }],
      ['b', { id: 'b', answer: "I don't know", status: 'succeeded' }],
      ['c', { id: 'c', error: 'HTTP 500' }],
      ['d', { id: 'd', answer: 'y', status: 'limited' }],
    ]);
    const c = countRuns(items, predictions);
    expect(c.statuses).toMatchObject({ succeeded: { n: 1, share: 25 }, limited: { n: 2, share: 50 }, failed: { n: 0, share: 0 }, cancelled: { n: 0, share: 0 }, error: { n: 1, share: 25 } });
    expect(c.abstained).toEqual({ n: 1, share: 25 });
    expect(unfinishedWarning(c)).toMatch(/^3 of 4 runs did not finish \(limited 2, error 1\)/);
    expect(unfinishedWarning(countRuns(items.slice(1, 2), predictions))).toBeUndefined();
  });
});

describe('--estimate', () => {
  it('gives calls, tokens and cost per question with a bootstrap interval, and the projection for the selection', () => {
    const usage = [[3, 1000, 100], [5, 3000, 300], [4, 2000, 200], [6, 4000, 400]];
    const pilot: Prediction[] = [...usage.map(([calls, pt, ct], i) => ({ id: `p${i}`, usage: { llmCalls: calls, promptTokens: pt, completionTokens: ct } })), { id: 'failed', error: 'HTTP 503' }];
    const e = estimateCost(pilot, 200, { in: 1, out: 2 });
    expect(e).toMatchObject({ pilot: 5, measured: 4, selection: 200 });
    expect(e.perQuestion.calls.mean).toBe(4.5);
    expect(e.perQuestion.tokens.mean).toBe(2750);
    expect(e.perQuestion.cost!.mean).toBeCloseTo((2500 * 1 + 250 * 2) / 1e6, 15);
    expect(e.projection.calls.mean).toBe(900);
    // The interval of the mean calls, by the test's own bootstrap of the four questions.
    const next = mulberry32(0);
    const draws: number[] = [];
    for (let r = 0; r < 2000; r++) {
      let s = 0;
      for (let i = 0; i < 4; i++) s += usage[Math.floor(next() * 4)][0];
      draws.push(s / 4);
    }
    draws.sort((a, b) => a - b);
    expect(e.perQuestion.calls.ci95![0]).toBeCloseTo(pct(draws, 0.025), 12);
    expect(e.projection.calls.ci95![1]).toBeCloseTo(200 * pct(draws, 0.975), 9);
  });
});

describe('the table', () => {
  const comparison = (p: number, delta: number, warnings: string[] = []): Comparison =>
    ({ n: 20, mainMetric: 'hits1', metrics: { hits1: { a: 50, b: 50 + delta, delta, ci95: [delta - 5, delta + 5], p, test: 'mcnemar-exact' } }, manifestDiff: [{ field: 'mode', a: 'agent', b: 'x' }], warnings }) as unknown as Comparison;
  const cell = (v: number) => ({ folder: 'f', n: 20, value: v, ci95: [v - 10, v + 10] as [number, number], metrics: { hits1: v }, epochs: 1, finished: { n: 20, of: 20 }, warnings: [] });
  const t = buildTable({
    title: 'Ablations_1 & friends',
    benchmarks: [
      { key: 'mintaka', benchmark: 'mintaka', mainMetric: 'hits1', data: { path: 'm.json', sha256: 'a'.repeat(64) }, questions: 71 },
      { key: 'compmix', benchmark: 'compmix', mainMetric: 'p_at_1', data: { path: 'c.json', sha256: 'b'.repeat(64) }, questions: 40 },
    ],
    systems: [{ name: 'agent', mode: 'agent' }, { name: 'closed', mode: 'parametric' }, { name: 'zero', mode: 'zero-shot', options: { recipe: 'paper' } }],
    baseline: 'agent',
    cells: { agent: { mintaka: cell(50), compmix: cell(60) }, closed: { mintaka: cell(30), compmix: cell(40) }, zero: { mintaka: cell(45), compmix: cell(61) } },
    compared: {
      closed: { mintaka: comparison(0.001, -20), compmix: comparison(0.02, -20, ['service.settings.limits.maxLLMCalls differs (A 40, B 3): it could explain the delta']) },
      zero: { mintaka: comparison(0.4, -5), compmix: comparison(0.9, 1) },
    },
  });

  it('corrects every row’s p against the baseline together (Holm over all of them)', () => {
    const raw = [0.001, 0.02, 0.4, 0.9];
    const corrected = holmByHand(raw);
    expect([t.comparisons.closed.mintaka.pHolm, t.comparisons.closed.compmix.pHolm, t.comparisons.zero.mintaka.pHolm, t.comparisons.zero.compmix.pHolm]).toEqual(corrected.map((x) => Number(x.toPrecision(3))));
    expect(t.correction).toMatchObject({ method: 'holm', comparisons: 4 });
    expect(t.comparisons.agent).toBeUndefined();
    expect(t.comparisons.closed.compmix.differences).toEqual(['mode']);
  });

  it('writes the same table as markdown, CSV, LaTeX and HTML, with intervals, p and Holm’s p, and the footnotes', () => {
    const md = tableMarkdown(t);
    expect(md).toMatch(/\| closed +\| parametric \| +\| 30\.0 \[20\.0, 40\.0\] +\| -20\.0 \[-25\.0, -15\.0\] p=0\.001 Holm 0\.004 +\|/);
    expect(md).toContain('closed on compmix: service.settings.limits.maxLLMCalls differs');
    const csv = tableCsv(t).trim().split('\n');
    expect(csv).toHaveLength(1 + 3 * 2);
    expect(csv[0]).toBe('system,mode,options,benchmark,metric,n,value,ci_lo,ci_hi,delta,delta_lo,delta_hi,p,test,p_holm,finished,warnings');
    expect(csv[3]).toMatch(/^closed,parametric,,mintaka,hits1,20,30,20,40,-20,-25,-15,0\.001,mcnemar-exact,0\.004,20\/20,/);
    const tex = tableTex(t);
    expect(tex).toContain('\\begin{tabular}{lrrrr}');
    expect(tableTex({ ...t, systems: [...t.systems, { name: 'a_b&c' }] })).toContain('a\\_b\\&c & ');
    expect(tex).toMatch(/^zero & \$45\.0_\{\[35\.0,55\.0\]\}\$ & \$-5\.0\$ \(\$p_\{\\mathrm\{Holm\}\}\$=0\.800\)/m);
    expect(tableHtml(t)).toContain('<tr class="base"><td>agent</td>');
  });
});
