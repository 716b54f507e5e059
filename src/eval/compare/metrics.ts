import { aggregateRows, binaryMetrics } from '../scorers/index';
import type { QuestionRow, ScoreOptions } from '../scorers/types';
import type { Interval } from '../stats/bootstrap';
import { mcnemarExact, pairedBootstrapDelta, pairedPermutationP } from '../stats/paired';
import type { Benchmark, EvalItem } from '../types';
import { roundInterval, roundP, roundPoints } from './round';

export interface MetricComparison {
  a: number | null;
  b: number | null;
  /** b − a, in points. */
  delta: number | null;
  ci95: Interval | null;
  p: number | null;
  /** How p was computed: McNemar's exact test for 0/1 per-question metrics, a paired permutation test otherwise. */
  test: 'mcnemar-exact' | 'paired-permutation';
}

export interface CategoryComparison {
  n: number;
  a: number | null;
  b: number | null;
  delta: number | null;
  ci95: Interval | null;
}

/**
 * Per metric: both values on the paired questions, the delta, its paired-bootstrap interval and a p-value, rounded
 * as printed (the delta from the unrounded values). Rows of evaluations run in epochs are averaged per question
 * first, so their values are not 0/1 and the permutation test applies.
 */
export const compareMetrics = (benchmark: Benchmark, ra: QuestionRow[], rb: QuestionRow[], opts: ScoreOptions): Record<string, MetricComparison> => {
  const ma = aggregateRows(benchmark, ra, opts);
  const mb = aggregateRows(benchmark, rb, opts);
  const binaryB = binaryMetrics(benchmark, rb, opts);
  const binary = new Set([...binaryMetrics(benchmark, ra, opts)].filter((m) => binaryB.has(m)));
  const out: Record<string, MetricComparison> = {};
  for (const name of Object.keys(ma)) {
    const a = ma[name];
    const b = mb[name] ?? null;
    const metric = (rows: readonly QuestionRow[]) => aggregateRows(benchmark, rows, opts)[name] ?? null;
    let p: number | null;
    if (binary.has(name)) {
      let onlyA = 0;
      let onlyB = 0;
      ra.forEach((r, i) => {
        if (r.values[name] === 1 && rb[i].values[name] === 0) onlyA++;
        if (r.values[name] === 0 && rb[i].values[name] === 1) onlyB++;
      });
      p = mcnemarExact(onlyA, onlyB);
    } else p = pairedPermutationP(ra, rb, metric);
    out[name] = {
      a: roundPoints(a),
      b: roundPoints(b),
      delta: a === null || b === null ? null : roundPoints(b - a),
      ci95: roundInterval(pairedBootstrapDelta(ra, rb, metric)),
      p: roundP(p),
      test: binary.has(name) ? 'mcnemar-exact' : 'paired-permutation',
    };
  }
  return out;
};

/** The main metric per category of the paired questions (Mintaka's categories, CompMix's domains, CRAG's, …). */
export const compareByCategory = (benchmark: Benchmark, paired: readonly EvalItem[], ra: QuestionRow[], rb: QuestionRow[], main: string, opts: ScoreOptions): Record<string, CategoryComparison> => {
  const groups = new Map<string, number[]>();
  paired.forEach((item, i) => {
    if (item.category) groups.set(item.category, [...(groups.get(item.category) ?? []), i]);
  });
  const metric = (rows: readonly QuestionRow[]) => aggregateRows(benchmark, rows, opts)[main] ?? null;
  const out: Record<string, CategoryComparison> = {};
  for (const [category, idx] of [...groups].sort(([x], [y]) => x.localeCompare(y))) {
    const a = idx.map((i) => ra[i]);
    const b = idx.map((i) => rb[i]);
    const [va, vb] = [metric(a), metric(b)];
    out[category] = { n: idx.length, a: roundPoints(va), b: roundPoints(vb), delta: va === null || vb === null ? null : roundPoints(vb - va), ci95: roundInterval(pairedBootstrapDelta(a, b, metric)) };
  }
  return out;
};
