import { BOOTSTRAP, bootstrapCi, type Interval } from './stats/bootstrap';
import type { Prediction } from './types';

/**
 * `--estimate`: what a whole evaluation will cost, from a pilot of a few of its questions. Per question: model calls,
 * tokens and (with prices) cost, each a mean with a bootstrap 95 % interval over the pilot's questions; the
 * projection is that mean and interval times the number of questions selected. A pilot question whose request
 * failed reported no usage: it is left out of the means and counted.
 */

export interface Figure {
  mean: number;
  ci95: Interval | null;
}

export interface Estimate {
  pilot: number;
  /** Pilot questions that reported usage (the others failed). */
  measured: number;
  selection: number;
  perQuestion: { calls: Figure; promptTokens: Figure; completionTokens: Figure; tokens: Figure; cost: Figure | null };
  projection: { calls: Figure; tokens: Figure; cost: Figure | null };
  prices: { in: number; out: number } | null;
}

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

interface Row {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  tokens: number;
  cost: number;
}

export const estimateCost = (pilot: readonly Prediction[], selection: number, prices?: { in: number; out: number }): Estimate => {
  const rows: Row[] = pilot
    .filter((p) => !p.error && p.usage)
    .map((p) => {
      const u = p.usage!;
      const [pt, ct] = [n(u.promptTokens), n(u.completionTokens)];
      return { calls: n(u.llmCalls), promptTokens: pt, completionTokens: ct, tokens: pt + ct, cost: prices ? (pt * prices.in + ct * prices.out) / 1e6 : 0 };
    });
  const mean = (r: readonly Row[]) => Object.fromEntries((['calls', 'promptTokens', 'completionTokens', 'tokens', 'cost'] as const).map((k) => [k, r.length ? r.reduce((s, x) => s + x[k], 0) / r.length : null]));
  const means = mean(rows);
  const ci = bootstrapCi(rows, mean, BOOTSTRAP);
  const fig = (k: keyof Row, times = 1): Figure => ({ mean: (means[k] ?? 0) * times, ci95: ci[k] ? [ci[k]![0] * times, ci[k]![1] * times] : null });
  return {
    pilot: pilot.length,
    measured: rows.length,
    selection,
    perQuestion: { calls: fig('calls'), promptTokens: fig('promptTokens'), completionTokens: fig('completionTokens'), tokens: fig('tokens'), cost: prices ? fig('cost') : null },
    projection: { calls: fig('calls', selection), tokens: fig('tokens', selection), cost: prices ? fig('cost', selection) : null },
    prices: prices ?? null,
  };
};

const show = (f: Figure, d = 1) => `${f.mean.toFixed(d)}${f.ci95 ? ` [${f.ci95[0].toFixed(d)}, ${f.ci95[1].toFixed(d)}]` : ''}`;
const whole = (f: Figure) => `${Math.round(f.mean).toLocaleString('en')}${f.ci95 ? ` [${Math.round(f.ci95[0]).toLocaleString('en')}, ${Math.round(f.ci95[1]).toLocaleString('en')}]` : ''}`;

/** The lines `--estimate` prints. */
export const estimateLines = (e: Estimate): string[] => [
  `pilot: ${e.measured} of ${e.pilot} questions reported usage${e.measured < e.pilot ? ` (${e.pilot - e.measured} failed and are left out)` : ''}; 95 % intervals are a bootstrap over them`,
  `per question: ${show(e.perQuestion.calls)} model calls · ${whole(e.perQuestion.tokens)} tokens (${whole(e.perQuestion.promptTokens)} prompt + ${whole(e.perQuestion.completionTokens)} completion)${e.perQuestion.cost ? ` · cost ${show(e.perQuestion.cost, 4)}` : ''}`,
  `projection for the ${e.selection.toLocaleString('en')} questions selected: ${whole(e.projection.calls)} model calls · ${whole(e.projection.tokens)} tokens${e.projection.cost ? ` · cost ${show(e.projection.cost, 2)}` : ' · no cost without --price-in/--price-out'}`,
];
