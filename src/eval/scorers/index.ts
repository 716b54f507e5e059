import type { Benchmark } from '../types';
import { compmixScorer } from './compmix';
import { cragScorer } from './crag';
import { hybridqaScorer } from './hybridqa';
import { mintakaScorer } from './mintaka';
import { mmqaScorer } from './mmqa';
import { qaldScorer } from './qald';
import type { BenchmarkScorer, Metrics, QuestionRow, ScoreOptions } from './types';

/** One scorer per benchmark: the official per-question rules and how the metrics are built from them. */
export const SCORERS: Record<Benchmark, BenchmarkScorer> = {
  mintaka: mintakaScorer,
  qald9plus: qaldScorer,
  compmix: compmixScorer,
  hybridqa: hybridqaScorer,
  mmqa: mmqaScorer,
  crag: cragScorer,
};

/** Per-question values added beside a benchmark's own (e.g. `--judge`'s verdict), each a mean metric of its name. */
const EXTRA_MEANS = ['judge_accuracy'] as const;

/** The benchmark's metrics over any rows (a subset, a bootstrap resample), plus the extra means the rows carry. */
export const aggregateRows = (benchmark: Benchmark, rows: readonly QuestionRow[], opts: ScoreOptions = {}): Metrics => {
  const metrics = SCORERS[benchmark].aggregate(rows, opts);
  for (const key of EXTRA_MEANS) {
    if (!rows.some((r) => key in r.values)) continue;
    metrics[key] = rows.length ? (100 * rows.reduce((s, r) => s + (r.values[key] ?? 0), 0)) / rows.length : 0;
  }
  return metrics;
};

/** The metrics that are a mean of 0/1 per-question values in these rows: the ones McNemar's exact test applies to. */
export const binaryMetrics = (benchmark: Benchmark, rows: readonly QuestionRow[], opts: ScoreOptions = {}): Set<string> => {
  const candidates = [...SCORERS[benchmark].means(opts), ...EXTRA_MEANS];
  return new Set(candidates.filter((m) => rows.length > 0 && rows.every((r) => r.values[m] === 0 || r.values[m] === 1)));
};
