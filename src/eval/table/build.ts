import type { Comparison } from '../compare/compare';
import { roundInterval, roundP, roundPoints } from '../compare/round';
import type { RunCounts } from '../run-statuses';
import type { Interval } from '../stats/bootstrap';
import { holm } from '../stats/holm';
import type { TableBenchmark, TableCell, TableComparison, TableDoc, TableSystem } from './types';

/** A cell from its evaluation's metrics.json: the main metric, its interval, how many runs finished. */
export const cellOf = (folder: string, doc: Record<string, unknown>, main: string): TableCell => {
  const metrics = (doc.metrics ?? {}) as Record<string, number | null>;
  const ci95 = (doc.ci95 ?? {}) as Record<string, Interval | null>;
  const runs = doc.runs as RunCounts | undefined;
  return {
    folder,
    n: typeof doc.n === 'number' ? doc.n : 0,
    value: roundPoints(metrics[main] ?? null),
    ci95: roundInterval(ci95[main] ?? null),
    metrics: Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, roundPoints(v)])),
    epochs: (doc.epochs as { k?: number } | undefined)?.k ?? 1,
    finished: runs ? { n: runs.finished, of: runs.n } : null,
    warnings: Array.isArray(doc.warnings) ? (doc.warnings as string[]) : [],
  };
};

/**
 * The table: every cell, and every row's comparison with the baseline row on each benchmark, its p-values corrected
 * together (Holm over all the table's comparisons: (systems − 1) × benchmarks of them).
 */
export const buildTable = (o: {
  title: string;
  benchmarks: TableBenchmark[];
  systems: TableSystem[];
  baseline: string;
  cells: TableDoc['cells'];
  /** compared[system][benchmark key]: the system's evaluation against the baseline's. */
  compared: Record<string, Record<string, Comparison>>;
}): TableDoc => {
  const keys = o.systems.filter((s) => s.name !== o.baseline).flatMap((s) => o.benchmarks.map((b) => [s.name, b.key] as const));
  const mains = keys.map(([s, b]) => {
    const c = o.compared[s]?.[b];
    return c ? { c, m: c.metrics[c.mainMetric] } : undefined;
  });
  const corrected = holm(mains.map((x) => x?.m?.p ?? null));
  const comparisons: TableDoc['comparisons'] = {};
  keys.forEach(([s, b], i) => {
    const x = mains[i];
    if (!x) return;
    const row: TableComparison = {
      n: x.c.n,
      delta: x.m?.delta ?? null,
      ci95: x.m?.ci95 ?? null,
      p: x.m?.p ?? null,
      test: x.m?.test ?? 'none',
      pHolm: roundP(corrected[i]),
      differences: x.c.manifestDiff.map((d) => d.field),
      warnings: x.c.warnings,
    };
    (comparisons[s] ??= {})[b] = row;
  });
  return {
    title: o.title,
    benchmarks: o.benchmarks,
    systems: o.systems,
    baseline: o.baseline,
    cells: o.cells,
    comparisons,
    correction: {
      method: 'holm',
      comparisons: corrected.filter((p) => p !== null).length,
      description: 'Holm step-down: the i-th smallest of m p-values times m − i + 1, kept in order, at most 1',
    },
    createdAt: new Date().toISOString(),
  };
};
