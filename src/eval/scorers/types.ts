import type { CragJudge } from '../metrics/crag';
import type { HybridQAReference } from '../metrics/hybridqa';
import type { MintakaMode } from '../metrics/mintaka';
import type { QaldLabelTable } from '../metrics/qald-labels';
import type { EvalItem, ItemScore, Prediction } from '../types';

export interface ScoreOptions {
  mintakaMode?: MintakaMode;
  reference?: HybridQAReference;
  /** CRAG's LLM judge; without one only exact matches count as correct. */
  judge?: CragJudge;
  judgeName?: string;
  /** QALD: names of the gold entities, to map text answers to IRIs. */
  qaldLabels?: QaldLabelTable;
  /** QALD: the language the questions were asked in (the label table's language). */
  language?: string;
}

/** One question's score: the main per-question score plus every value the benchmark's metrics are built from. */
export type QuestionRow = ItemScore & { values: Record<string, number> };

export type Metrics = Record<string, number | null>;

/**
 * One benchmark's official scoring, split in two so a metric can be recomputed on any subset or resample of the
 * questions: `score` judges each question once (CRAG may ask its judge model), `aggregate` turns rows into metrics.
 */
export interface BenchmarkScorer {
  /** The metric each paper reports first. */
  main: string;
  /** Metrics that are the mean (in %) of the per-question value of the same name: McNemar's test applies when 0/1. */
  means(opts: ScoreOptions): readonly string[];
  score(items: readonly EvalItem[], predictions: Map<string, Prediction>, opts: ScoreOptions): Promise<{ rows: QuestionRow[]; notes: string[]; judge?: string }>;
  aggregate(rows: readonly QuestionRow[], opts: ScoreOptions): Metrics;
}

export const row = (id: string, values: Record<string, number>, main: number, missing: boolean, correct = main === 1, emptyGold = false): QuestionRow => ({
  id,
  score: main,
  correct,
  missing,
  ...(emptyGold ? { emptyGold } : {}),
  values,
});

/** The mean of one value over the rows, in percent; 0 for no rows (as the official scorers divide by max(n, 1)). */
export const meanOf = (rows: readonly QuestionRow[], key: string): number => {
  if (rows.length === 0) return 0;
  let sum = 0;
  for (const r of rows) sum += r.values[key] ?? 0;
  return (100 * sum) / rows.length;
};
