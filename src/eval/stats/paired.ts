import { mulberry32 } from '../../fewshot/prng';
import { BOOTSTRAP, percentileInterval, resampleIndices, type BootstrapSettings, type Interval } from './bootstrap';

/** ln(k!) by summation (n stays in the thousands here). */
const logFactorials = (n: number): number[] => {
  const out = new Array<number>(n + 1);
  out[0] = 0;
  for (let k = 1; k <= n; k++) out[k] = out[k - 1] + Math.log(k);
  return out;
};

/**
 * McNemar's exact test on the discordant pairs: b questions only A got right, c only B got right. Under the null
 * each discordant pair goes either way with probability ½, so p = min(1, 2·P[X ≤ min(b, c)]) with X ~ Bin(b + c, ½).
 */
export const mcnemarExact = (b: number, c: number): number => {
  const n = b + c;
  if (n === 0) return 1;
  const lf = logFactorials(n);
  let tail = 0;
  for (let k = 0; k <= Math.min(b, c); k++) tail += Math.exp(lf[n] - lf[k] - lf[n - k] - n * Math.LN2);
  return Math.min(1, 2 * tail);
};

/** A paired-bootstrap 95 % interval of aggregate(B) − aggregate(A): the same questions drawn for both sides. */
export const pairedBootstrapDelta = <T>(
  a: readonly T[],
  b: readonly T[],
  metric: (rows: readonly T[]) => number | null,
  settings: BootstrapSettings = BOOTSTRAP,
): Interval | null => {
  if (a.length === 0 || a.length !== b.length) return null;
  const deltas: number[] = [];
  for (const idx of resampleIndices(a.length, settings)) {
    const ma = metric(idx.map((i) => a[i]));
    const mb = metric(idx.map((i) => b[i]));
    if (ma !== null && mb !== null) deltas.push(mb - ma);
  }
  return deltas.length ? percentileInterval(deltas) : null;
};

/**
 * A paired permutation test: under the null the two systems' answers to a question are exchangeable, so each
 * question's pair is swapped with probability ½ and the metric recomputed (corpus-level metrics too). Two-sided
 * p = (1 + #{|Δ*| ≥ |Δ|}) / (1 + resamples).
 */
export const pairedPermutationP = <T>(
  a: readonly T[],
  b: readonly T[],
  metric: (rows: readonly T[]) => number | null,
  settings: BootstrapSettings = BOOTSTRAP,
): number | null => {
  const ma = metric(a);
  const mb = metric(b);
  if (ma === null || mb === null || a.length !== b.length) return null;
  const observed = Math.abs(mb - ma);
  const next = mulberry32(settings.seed + 1);
  let extreme = 0;
  for (let r = 0; r < settings.resamples; r++) {
    const sa: T[] = [];
    const sb: T[] = [];
    for (let i = 0; i < a.length; i++) {
      const swap = next() < 0.5;
      sa.push(swap ? b[i] : a[i]);
      sb.push(swap ? a[i] : b[i]);
    }
    const pa = metric(sa);
    const pb = metric(sb);
    // A small tolerance so float noise in a recomputed mean does not decide a tie.
    if (pa !== null && pb !== null && Math.abs(pb - pa) >= observed - 1e-9) extreme++;
  }
  return (1 + extreme) / (1 + settings.resamples);
};
