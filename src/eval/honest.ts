import { aggregateRows } from './scorers/index';
import type { QuestionRow, ScoreOptions } from './scorers/types';
import { BOOTSTRAP, bootstrapCi, formatInterval, type BootstrapSettings, type Interval } from './stats/bootstrap';
import type { Benchmark, ItemScore } from './types';

/** Over this share of empty gold sets, a metric can reward silence (QALD: an empty answer to an empty gold scores 1). */
export const EMPTY_GOLD_WARN_SHARE = 0.1;

export interface HonestFigures {
  ci95: Record<string, Interval | null>;
  bootstrap: BootstrapSettings & { method: string };
  emptyGold: number;
  /** Every metric over the questions whose gold is not empty; null when all are empty. */
  metricsNonEmptyGold: Record<string, number | null> | null;
  warnings: string[];
}

const rowsOf = (items: readonly ItemScore[]): QuestionRow[] => items.map((i) => ({ ...i, values: i.values ?? { main: i.score } }));

/** The interval of every metric, the empty-gold count and the metrics without those questions. */
export const honestFigures = (benchmark: Benchmark, items: readonly ItemScore[], opts: ScoreOptions = {}, settings: BootstrapSettings = BOOTSTRAP): HonestFigures => {
  const rows = rowsOf(items);
  const aggregate = (r: readonly QuestionRow[]) => aggregateRows(benchmark, r, opts);
  const nonEmpty = rows.filter((r) => !r.emptyGold);
  const emptyGold = rows.length - nonEmpty.length;
  const warnings: string[] = [];
  if (rows.length && emptyGold / rows.length > EMPTY_GOLD_WARN_SHARE) {
    warnings.push(
      `${emptyGold} of ${rows.length} questions (${((100 * emptyGold) / rows.length).toFixed(0)} %) have an empty gold answer set, where an empty answer scores as right: read metricsNonEmptyGold beside the metrics`,
    );
  }
  return {
    ci95: bootstrapCi(rows, aggregate, settings),
    bootstrap: { ...settings, method: 'percentile bootstrap over questions, every metric recomputed per resample' },
    emptyGold,
    metricsNonEmptyGold: nonEmpty.length ? aggregate(nonEmpty) : null,
    warnings,
  };
};

/** The human summary line: each metric with its interval, then what the metric families add (runs that did not finish). */
export const summaryLine = (metrics: Record<string, number | null>, ci95: Record<string, Interval | null>, n: number, extra: readonly string[] = []): string =>
  `n=${n} ` +
  [...Object.entries(metrics).map(([k, v]) => `${k} ${v === null ? '–' : v.toFixed(1)}${ci95[k] ? ` ${formatInterval(ci95[k])}` : ''}`), ...extra].join(' · ');
