/**
 * Holm's step-down correction for m comparisons made together (e.g. every row of a table against its baseline, on
 * every benchmark): sort the p-values, multiply the i-th smallest (from 0) by m − i, carry the running maximum so
 * the order is kept, cap at 1. It controls the family-wise error rate like Bonferroni's m·p, and rejects at least as
 * much. A null p (no test was possible) is not part of the family and stays null.
 */
export const holm = (ps: readonly (number | null)[]): (number | null)[] => {
  const present = ps.map((p, i) => ({ p, i })).filter((x): x is { p: number; i: number } => x.p !== null && Number.isFinite(x.p));
  const m = present.length;
  const out: (number | null)[] = ps.map(() => null);
  let running = 0;
  [...present]
    .sort((x, y) => x.p - y.p || x.i - y.i)
    .forEach(({ p, i }, rank) => {
      running = Math.max(running, Math.min(1, (m - rank) * p));
      out[i] = running;
    });
  return out;
};
