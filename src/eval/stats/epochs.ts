import { mulberry32 } from '../../fewshot/prng';
import type { Metrics, QuestionRow } from '../scorers/types';
import { BOOTSTRAP, bootstrapCi, percentileInterval, type BootstrapSettings, type Interval } from './bootstrap';

/**
 * Figures of an evaluation that asked every question K times (`--epochs K`). A number then moves for two reasons:
 * which questions were drawn, and how the model's answer to one question varies between samples. The interval here
 * counts both with a two-level bootstrap: each resample draws the questions with replacement (from the same seeded
 * generator as the interval over questions alone), then for each drawn question K epochs with replacement from its
 * own K answers (a second generator), and takes the mean over those K pseudo-epochs of the metric. When every epoch
 * gave the same answers it is exactly the interval over questions alone; the more they differ, the wider it grows.
 */

export interface Spread {
  mean: number;
  /** Sample standard deviation over the epochs (0 for one epoch). */
  sd: number;
  min: number;
  max: number;
}

export interface EpochFigures {
  /** Each epoch's metrics, in epoch order. */
  perEpoch: Metrics[];
  /** The mean over epochs of each metric: the headline. */
  metrics: Metrics;
  spread: Record<string, Spread>;
  /** Both sources of variance (questions and epochs). */
  ci95: Record<string, Interval | null>;
  /** Questions only: the bootstrap over the per-question means, for comparison. */
  ci95QuestionsOnly: Record<string, Interval | null>;
  method: string;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

const spreadOf = (xs: readonly number[]): Spread => {
  const m = mean(xs);
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean: m, sd, min: Math.min(...xs), max: Math.max(...xs) };
};

/** The mean over epochs of every metric that is a number in each of them. */
const meanMetrics = (perEpoch: readonly Metrics[]): Metrics =>
  Object.fromEntries(Object.keys(perEpoch[0] ?? {}).map((k) => {
    const xs = perEpoch.map((m) => m[k]);
    return [k, xs.every((x): x is number => typeof x === 'number') ? mean(xs) : null];
  }));

/** One row per question with every value averaged over the epochs: what compare and the table pair by question. */
export const averagedRows = (rows: readonly (readonly QuestionRow[])[]): QuestionRow[] =>
  (rows[0] ?? []).map((first, i) => {
    const all = rows.map((r) => r[i]);
    const keys = [...new Set(all.flatMap((r) => Object.keys(r.values)))];
    const right = all.filter((r) => r.correct).length;
    return {
      id: first.id,
      score: mean(all.map((r) => r.score)),
      // Right in most epochs (a tie is not right).
      correct: right * 2 > all.length,
      missing: all.every((r) => r.missing),
      ...(first.emptyGold ? { emptyGold: true } : {}),
      values: Object.fromEntries(keys.map((k) => [k, mean(all.map((r) => r.values[k] ?? 0))])),
    };
  });

/** Checks that every epoch holds the same questions in the same order (the caller aligns them by id). */
const checkAligned = (rows: readonly (readonly QuestionRow[])[]) => {
  for (const r of rows) {
    if (r.length !== rows[0].length || r.some((row, i) => row.id !== rows[0][i].id)) throw new Error('epochs must hold the same questions in the same order');
  }
};

/** rows[e][i]: question i's row in epoch e. */
export const epochFigures = (
  rows: readonly (readonly QuestionRow[])[],
  aggregate: (rows: readonly QuestionRow[]) => Metrics,
  settings: BootstrapSettings = BOOTSTRAP,
): EpochFigures => {
  checkAligned(rows);
  const k = rows.length;
  const n = rows[0]?.length ?? 0;
  const perEpoch = rows.map((r) => aggregate(r));
  const metrics = meanMetrics(perEpoch);
  const names = Object.keys(metrics).filter((m) => metrics[m] !== null);
  const spread = Object.fromEntries(names.map((m) => [m, spreadOf(perEpoch.map((x) => x[m] as number))]));
  const draws: Record<string, number[]> = Object.fromEntries(names.map((m) => [m, []]));
  if (n > 0) {
    const nextQuestion = mulberry32(settings.seed);
    const nextEpoch = mulberry32(settings.seed + 7919);
    for (let r = 0; r < settings.resamples; r++) {
      const idx = Array.from({ length: n }, () => Math.floor(nextQuestion() * n));
      const sums: Record<string, number> = Object.fromEntries(names.map((m) => [m, 0]));
      let complete = true;
      for (let j = 0; j < k; j++) {
        const pseudo = idx.map((i) => rows[Math.floor(nextEpoch() * k)][i]);
        const m = aggregate(pseudo);
        for (const name of names) {
          const v = m[name];
          if (typeof v === 'number' && Number.isFinite(v)) sums[name] += v;
          else complete = false;
        }
      }
      if (complete) for (const name of names) draws[name].push(sums[name] / k);
    }
  }
  const ci95 = Object.fromEntries(Object.keys(metrics).map((m) => [m, draws[m]?.length ? percentileInterval(draws[m]) : null]));
  return {
    perEpoch,
    metrics,
    spread,
    ci95,
    ci95QuestionsOnly: bootstrapCi(averagedRows(rows), aggregate, settings),
    method: `two-level percentile bootstrap (${settings.resamples} resamples, seed ${settings.seed}): questions with replacement, then for each drawn question ${k} epochs with replacement; the metric is the mean over those pseudo-epochs`,
  };
};
