import type { Interval } from '../stats/bootstrap';

/** One row of a table: a mode and the options it runs with. */
export interface TableSystem {
  name: string;
  mode?: string;
  options?: Record<string, unknown>;
  /** Options for one column only (its key), on top of `options`. */
  byBenchmark?: Record<string, Record<string, unknown>>;
}

/** One column: a benchmark file and how its questions were chosen. */
export interface TableBenchmark {
  key: string;
  benchmark: string;
  mainMetric: string;
  data: { path: string; sha256: string };
  questions: number;
}

export interface TableCell {
  /** The evaluation's folder, relative to the table's. */
  folder: string;
  n: number;
  /** The main metric, its interval, and every metric. */
  value: number | null;
  ci95: Interval | null;
  metrics: Record<string, number | null>;
  epochs: number;
  /** How many runs finished of how many (a cell whose runs were cut short says so). */
  finished: { n: number; of: number } | null;
  warnings: string[];
}

/** A row's cell against the baseline row's, on the same questions. */
export interface TableComparison {
  n: number;
  delta: number | null;
  ci95: Interval | null;
  p: number | null;
  test: string;
  /** p corrected for every comparison of the table (Holm). */
  pHolm: number | null;
  /** Every manifest field that differs from the baseline's cell, and the warnings (what could explain the delta). */
  differences: string[];
  warnings: string[];
}

export interface TableDoc {
  title: string;
  benchmarks: TableBenchmark[];
  systems: TableSystem[];
  baseline: string;
  /** cells[system][benchmark key] */
  cells: Record<string, Record<string, TableCell>>;
  /** comparisons[system][benchmark key], for every system but the baseline. */
  comparisons: Record<string, Record<string, TableComparison>>;
  correction: { method: 'holm'; comparisons: number; description: string };
  createdAt: string;
}
