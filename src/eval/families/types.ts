import type { Metrics, QuestionRow } from '../scorers/types';
import type { Benchmark, EvalItem, Prediction } from '../types';

/** What a family of metrics is computed from: the asked items, their predictions and their scored rows. */
export interface FamilyInput {
  benchmark: Benchmark;
  items: readonly EvalItem[];
  predictions: Map<string, Prediction>;
  rows: readonly QuestionRow[];
  /** The benchmark's metrics over any subset of the rows. */
  aggregate: (rows: readonly QuestionRow[]) => Metrics;
}

/** What one family adds to an evaluation's outputs. */
export interface FamilyResult {
  /** Top-level fields of metrics.json (and of the CLI's JSON summary). */
  fields: Record<string, unknown>;
  /** For metrics.json's `warnings`, stderr and the top of the report. */
  warnings: string[];
  /** Appended to the human summary line. */
  summary?: string;
  /** A section of report.html; the family escapes what it shows. */
  report?: { heading: string; html: string };
}

/**
 * A family of figures beside the benchmark's own metrics (how the runs ended, how well citations support answers, …):
 * computed once per evaluation, written into metrics.json, the summary line and the report, and compared by
 * `npm run compare` and the table from the two metrics.json documents.
 */
export interface MetricFamily {
  name: string;
  compute(input: FamilyInput): FamilyResult;
  /** Lines `compare` prints about A and B, and warnings for comparison.json and the table. */
  compare?(a: Record<string, unknown>, b: Record<string, unknown>): { lines: string[]; warnings: string[] };
}
