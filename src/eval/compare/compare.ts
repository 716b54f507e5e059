import { aggregateRows, binaryMetrics } from '../scorers/index';
import type { QuestionRow, ScoreOptions } from '../scorers/types';
import { mcnemarExact, pairedBootstrapDelta, pairedPermutationP } from '../stats/paired';
import type { Interval } from '../stats/bootstrap';
import type { Benchmark, EvalItem, ItemScore, Prediction } from '../types';
import { compareCitationSupport } from '../metrics/citation-support';

export interface MetricComparison {
  a: number | null;
  b: number | null;
  /** b − a, in points. */
  delta: number | null;
  ci95: Interval | null;
  p: number | null;
  /** How p was computed: McNemar's exact test for 0/1 per-question metrics, a paired permutation test otherwise. */
  test: 'mcnemar-exact' | 'paired-permutation';
}

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
  metrics: Record<string, MetricComparison>;
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
}

const IDK = /^\s*(i\s+(do\s+not|don'?t)\s+know|unknown|n\/a|no answer)?\s*[.!]?\s*$/i;
const abstained = (p: Prediction | undefined) => !!p && !p.error && IDK.test(typeof p.answer === 'string' ? p.answer : '');

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

/** Per metric: both values on the paired questions, the delta, its paired-bootstrap interval and a p-value. */
const compareMetrics = (benchmark: Benchmark, ra: QuestionRow[], rb: QuestionRow[], opts: ScoreOptions): Record<string, MetricComparison> => {
  const ma = aggregateRows(benchmark, ra, opts);
  const mb = aggregateRows(benchmark, rb, opts);
  const binary = new Set([...binaryMetrics(benchmark, ra, opts)].filter((m) => binaryMetrics(benchmark, rb, opts).has(m)));
  const out: Record<string, MetricComparison> = {};
  for (const name of Object.keys(ma)) {
    const a = ma[name];
    const b = mb[name] ?? null;
    const metric = (rows: readonly QuestionRow[]) => aggregateRows(benchmark, rows, opts)[name] ?? null;
    let p: number | null;
    if (binary.has(name)) {
      let onlyA = 0;
      let onlyB = 0;
      ra.forEach((r, i) => {
        if (r.values[name] === 1 && rb[i].values[name] === 0) onlyA++;
        if (r.values[name] === 0 && rb[i].values[name] === 1) onlyB++;
      });
      p = mcnemarExact(onlyA, onlyB);
    } else p = pairedPermutationP(ra, rb, metric);
    out[name] = {
      a,
      b,
      delta: a === null || b === null ? null : b - a,
      ci95: pairedBootstrapDelta(ra, rb, metric),
      p,
      test: binary.has(name) ? 'mcnemar-exact' : 'paired-permutation',
    };
  }
  return out;
};

/**
 * Two evaluations of the same benchmark file, question by question: only the questions both asked are compared
 * (each side scored as its own evaluation scored it), B against A.
 */
export const compareEvaluations = (
  benchmark: Benchmark,
  items: readonly EvalItem[],
  A: Side,
  B: Side,
  o: { gold: (item: EvalItem) => string; manifestDiff: Comparison['manifestDiff']; aggregateWith?: ScoreOptions },
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
  return {
    benchmark,
    n: paired.length,
    metrics: compareMetrics(benchmark, ra, rb, o.aggregateWith ?? A.scoring),
    wins,
    losses,
    ties: paired.length - wins - losses,
    flipped,
    manifestDiff: o.manifestDiff,
    unpaired: { onlyA: A.rows.length - paired.length, onlyB: B.rows.length - paired.length },
    citationSupport: compareCitationSupport(paired.map((i) => i.id), A.predictions, B.predictions),
    abstention: abst,
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
