import { mulberry32 } from '../../fewshot/prng';

export type Interval = [number, number];

export interface BootstrapSettings {
  /** Resamples drawn (at least 1,000 for a 95 % interval worth printing). */
  resamples: number;
  seed: number;
}

export const BOOTSTRAP: BootstrapSettings = { resamples: 2000, seed: 0 };

/** The q-quantile of sorted values with linear interpolation between order statistics (numpy's default). */
export const quantile = (sorted: readonly number[], q: number): number => {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
};

/** The 2.5 % and 97.5 % quantiles: a percentile 95 % interval. */
export const percentileInterval = (values: readonly number[]): Interval => {
  const sorted = [...values].sort((a, b) => a - b);
  return [quantile(sorted, 0.025), quantile(sorted, 0.975)];
};

/** `resamples` index lists of length n drawn with replacement from 0..n-1, from one seeded generator. */
export function* resampleIndices(n: number, settings: BootstrapSettings = BOOTSTRAP): Generator<number[]> {
  const next = mulberry32(settings.seed);
  for (let r = 0; r < settings.resamples; r++) {
    const idx = new Array<number>(n);
    for (let i = 0; i < n; i++) idx[i] = Math.floor(next() * n);
    yield idx;
  }
}

/**
 * A seeded percentile bootstrap over questions: draw the questions with replacement, recompute every metric on the
 * draw (a corpus-level metric such as Macro F1 QALD is recomputed, not averaged), and keep the middle 95 %. A metric
 * that is null on the full set has a null interval.
 */
export const bootstrapCi = <T>(
  rows: readonly T[],
  aggregate: (rows: readonly T[]) => Record<string, number | null>,
  settings: BootstrapSettings = BOOTSTRAP,
): Record<string, Interval | null> => {
  const full = aggregate(rows);
  const draws: Record<string, number[]> = {};
  for (const [k, v] of Object.entries(full)) if (v !== null) draws[k] = [];
  if (rows.length === 0) return Object.fromEntries(Object.keys(full).map((k) => [k, null]));
  for (const idx of resampleIndices(rows.length, settings)) {
    const m = aggregate(idx.map((i) => rows[i]));
    for (const k of Object.keys(draws)) {
      const v = m[k];
      if (typeof v === 'number' && Number.isFinite(v)) draws[k].push(v);
    }
  }
  return Object.fromEntries(Object.keys(full).map((k) => [k, draws[k]?.length ? percentileInterval(draws[k]) : null]));
};

/** An interval as printed: "[lo, hi]" with one decimal. */
export const formatInterval = (ci: Interval | null | undefined, digits = 1): string =>
  ci ? `[${ci[0].toFixed(digits)}, ${ci[1].toFixed(digits)}]` : '';
