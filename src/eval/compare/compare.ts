import { isAbstention } from '../run-statuses';
import { SCORERS } from '../scorers/index';
import type { QuestionRow, ScoreOptions } from '../scorers/types';
import type { Benchmark, EvalItem, ItemScore, Prediction } from '../types';
import { compareCitationSupport } from '../metrics/citation-support';
import { explainingDifferences } from './explain';
import { compareByCategory, compareMetrics, type CategoryComparison, type MetricComparison } from './metrics';

export type { CategoryComparison, MetricComparison } from './metrics';

export interface SideOfFlip {
  answer: string | null;
  score: number;
  confidence?: string;
  runId?: string;
  runUrl?: string;
}

export interface Flip {
  id: string;
  question: string;
  gold: string;
  a: SideOfFlip;
  b: SideOfFlip;
}

export interface Comparison {
  benchmark: Benchmark;
  n: number;
  /** The metric each paper reports first (the one per-category deltas and the table use). */
  mainMetric: string;
  metrics: Record<string, MetricComparison>;
  /** Paired questions whose gold answer set is empty (QALD's lost answers), where an empty answer scores as right. */
  emptyGold: number;
  /** Every metric again over the paired questions whose gold is not empty; null when no question has empty gold. */
  metricsNonEmptyGold: Record<string, MetricComparison> | null;
  /** The main metric per category of the paired questions. */
  byCategory: Record<string, CategoryComparison>;
  /** Epochs per question in each evaluation (rows are averaged over them before pairing). */
  epochs: { a: number; b: number };
  /** On the main per-question score: questions where B scores higher, lower, the same. */
  wins: number;
  losses: number;
  ties: number;
  /** Questions right in one evaluation and not in the other. */
  flipped: Flip[];
  manifestDiff: { field: string; a: unknown; b: unknown }[];
  unpaired: { onlyA: number; onlyB: number };
  /** The share (%) of verified citations that support the answer, on the questions both asked (issue 40). */
  citationSupport: { a: number | null; b: number | null; delta: number | null };
  /** What an abstention threshold (or any other change) did to "I don't know": answers given up and gained. */
  abstention: { a: number; b: number; newlyAbstained: { n: number; wereRight: number; wereWrong: number }; newlyAnswered: { n: number; right: number; wrong: number } };
  /** What could explain the delta besides the systems: runs that did not finish, settings that differ. */
  warnings: string[];
  /** What the metric families say about A and B (how many runs finished, …). */
  notes: string[];
}

const abstained = isAbstention;

export interface Side {
  url: string;
  predictions: Map<string, Prediction>;
  rows: ItemScore[];
  scoring: ScoreOptions;
}

const side = (s: Side, id: string, score: ItemScore): SideOfFlip => {
  const p = s.predictions.get(id);
  return {
    answer: p?.error ? `error: ${p.error}` : (p?.answer ?? null),
    score: score.score,
    ...(p?.confidence ? { confidence: p.confidence } : {}),
    ...(p?.runId ? { runId: p.runId, runUrl: `${s.url.replace(/\/+$/, '')}/runs/${encodeURIComponent(p.runId)}` } : {}),
  };
};

const rowsOf = (items: readonly ItemScore[]): QuestionRow[] => items.map((i) => ({ ...i, values: i.values ?? {} }));

/**
 * Two evaluations of the same benchmark file, question by question: only the questions both asked are compared
 * (each side scored as its own evaluation scored it), B against A.
 */
export const compareEvaluations = (
  benchmark: Benchmark,
  items: readonly EvalItem[],
  A: Side,
  B: Side,
  o: {
    gold: (item: EvalItem) => string;
    manifestDiff: Comparison['manifestDiff'];
    aggregateWith?: ScoreOptions;
    epochs?: { a: number; b: number };
    /** The metric families' lines and warnings (src/eval/families/). */
    families?: { lines: string[]; warnings: string[] };
  },
): Comparison => {
  const sa = new Map(A.rows.map((r) => [r.id, r]));
  const sb = new Map(B.rows.map((r) => [r.id, r]));
  const paired = items.filter((i) => sa.has(i.id) && sb.has(i.id));
  const ra = rowsOf(paired.map((i) => sa.get(i.id)!));
  const rb = rowsOf(paired.map((i) => sb.get(i.id)!));
  let wins = 0;
  let losses = 0;
  const flipped: Flip[] = [];
  const abst = { a: 0, b: 0, newlyAbstained: { n: 0, wereRight: 0, wereWrong: 0 }, newlyAnswered: { n: 0, right: 0, wrong: 0 } };
  paired.forEach((item, i) => {
    if (rb[i].score > ra[i].score) wins++;
    else if (rb[i].score < ra[i].score) losses++;
    if (ra[i].correct !== rb[i].correct) flipped.push({ id: item.id, question: item.question, gold: o.gold(item), a: side(A, item.id, ra[i]), b: side(B, item.id, rb[i]) });
    const xa = abstained(A.predictions.get(item.id));
    const xb = abstained(B.predictions.get(item.id));
    abst.a += Number(xa);
    abst.b += Number(xb);
    if (!xa && xb) {
      abst.newlyAbstained.n++;
      if (ra[i].correct) abst.newlyAbstained.wereRight++;
      else abst.newlyAbstained.wereWrong++;
    }
    if (xa && !xb) {
      abst.newlyAnswered.n++;
      if (rb[i].correct) abst.newlyAnswered.right++;
      else abst.newlyAnswered.wrong++;
    }
  });
  const opts = o.aggregateWith ?? A.scoring;
  const nonEmpty = ra.map((r, i) => i).filter((i) => !ra[i].emptyGold);
  const emptyGold = ra.length - nonEmpty.length;
  const mainMetric = SCORERS[benchmark].main;
  return {
    benchmark,
    n: paired.length,
    mainMetric,
    metrics: compareMetrics(benchmark, ra, rb, opts),
    emptyGold,
    metricsNonEmptyGold: emptyGold && nonEmpty.length ? compareMetrics(benchmark, nonEmpty.map((i) => ra[i]), nonEmpty.map((i) => rb[i]), opts) : null,
    byCategory: compareByCategory(benchmark, paired, ra, rb, mainMetric, opts),
    epochs: o.epochs ?? { a: 1, b: 1 },
    wins,
    losses,
    ties: paired.length - wins - losses,
    flipped,
    manifestDiff: o.manifestDiff,
    unpaired: { onlyA: A.rows.length - paired.length, onlyB: B.rows.length - paired.length },
    citationSupport: compareCitationSupport(paired.map((i) => i.id), A.predictions, B.predictions),
    abstention: abst,
    warnings: [
      ...(emptyGold ? [`${emptyGold} of the ${paired.length} paired questions have an empty gold answer set, where saying nothing scores as right: read metricsNonEmptyGold`] : []),
      ...(o.families?.warnings ?? []),
      ...explainingDifferences(o.manifestDiff),
    ],
    notes: o.families?.lines ?? [],
  };
};

const flatten = (v: unknown, path: string, out: Map<string, unknown>) => {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    if (!entries.length) out.set(path, {});
    for (const [k, x] of entries) flatten(x, path ? `${path}.${k}` : k, out);
  } else out.set(path, v);
};

const shown = (v: unknown) => (Array.isArray(v) && v.length > 10 ? `[${v.length} values]` : v);

/** Every manifest field (as a dotted path) whose value differs between the two evaluations. */
export const manifestDiff = (a: unknown, b: unknown): Comparison['manifestDiff'] => {
  const fa = new Map<string, unknown>();
  const fb = new Map<string, unknown>();
  flatten(a ?? {}, '', fa);
  flatten(b ?? {}, '', fb);
  const fields = [...new Set([...fa.keys(), ...fb.keys()])].sort();
  return fields
    .filter((f) => JSON.stringify(fa.get(f)) !== JSON.stringify(fb.get(f)))
    .map((field) => ({ field, a: shown(fa.get(field) ?? null), b: shown(fb.get(field) ?? null) }));
};
