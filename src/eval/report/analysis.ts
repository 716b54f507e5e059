import { isAnswerCorrect, type ScoreOptions } from '../score';
import { CONFIDENCE_LEVELS } from '../../engine/confidence';
import type { EvalItem, Gold, ItemScore, Prediction, ScoreResult } from '../types';

/** The confidence levels as the report lists them: most backed first (the engine's one order, reversed). */
export const AGREEMENT_ORDER: readonly string[] = [...CONFIDENCE_LEVELS].reverse();
export const SOURCE_ORDER = ['wikipedia', 'wikidata', 'parametric'] as const;

export interface GroupStat {
  label: string;
  n: number;
  accuracy: number;
}

export interface SourceStat {
  source: string;
  /** % of questions where the source gave an answer. */
  prevalence: number;
  /** % of its answers that are correct. */
  precision: number;
  /** % of all questions it answered correctly. */
  recall: number;
  answered: number;
}

export interface Analysis {
  byCategory: GroupStat[];
  byType: GroupStat[];
  bySource: SourceStat[];
  /** Accuracy per confidence level: whether the confidence is worth anything. */
  byAgreement: GroupStat[];
  /** Of the predictions with an answer, the share with at least one verified citation (null: none answered). */
  verifiedCitationRate: number | null;
  toolCalls: number[];
  tokens: number[];
  latencyMs: number[];
  errors: number;
}

/** A source "answered" unless it is empty or says it does not know. */
const NO_ANSWER = /^\s*(?:|unknown|none|null|n\/a|no answer|i don'?t know\.?)\s*$/i;

const sourceText = (value: unknown): string | undefined => {
  if (typeof value === 'string') return NO_ANSWER.test(value) ? undefined : value;
  if (value && typeof value === 'object' && 'answer' in value) return sourceText((value as { answer: unknown }).answer);
  return undefined;
};

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

const groupBy = (items: readonly EvalItem[], key: (i: EvalItem) => string | undefined, scores: Map<string, ItemScore>, order?: readonly string[]): GroupStat[] => {
  const groups = new Map<string, { n: number; ok: number }>();
  for (const item of items) {
    const k = key(item);
    if (k === undefined) continue;
    const g = groups.get(k) ?? { n: 0, ok: 0 };
    g.n++;
    if (scores.get(item.id)?.correct) g.ok++;
    groups.set(k, g);
  }
  const labels = [...groups.keys()].sort((a, b) => {
    const ia = order ? order.indexOf(a) : -1;
    const ib = order ? order.indexOf(b) : -1;
    if (ia !== ib) return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
    return a.localeCompare(b);
  });
  return labels.map((label) => {
    const g = groups.get(label)!;
    return { label, n: g.n, accuracy: (100 * g.ok) / g.n };
  });
};

/** Everything the report draws, from gold items, predictions and per-question scores. */
export const analyse = (items: readonly EvalItem[], predictions: Map<string, Prediction>, result: ScoreResult, scoring: ScoreOptions = {}): Analysis => {
  const scores = new Map(result.items.map((s) => [s.id, s]));
  const present = items.filter((i) => scores.has(i.id));

  // Only the sources the runs answered from: program mode has a table, rag web/kg/…, the agent its three.
  const seen = new Set<string>();
  for (const item of present) {
    const p = predictions.get(item.id);
    if (p?.answers && typeof p.answers === 'object' && !Array.isArray(p.answers)) for (const k of Object.keys(p.answers)) seen.add(k);
  }
  const rank = (s: string) => ((SOURCE_ORDER as readonly string[]).includes(s) ? SOURCE_ORDER.indexOf(s as (typeof SOURCE_ORDER)[number]) : SOURCE_ORDER.length);
  const sourceNames = [...seen].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const bySource: SourceStat[] = [];
  for (const source of sourceNames) {
    let answered = 0;
    let correct = 0;
    for (const item of present) {
      const answers = predictions.get(item.id)?.answers;
      if (!answers || typeof answers !== 'object' || Array.isArray(answers)) continue;
      const text = sourceText((answers as Record<string, unknown>)[source]);
      if (text === undefined) continue;
      answered++;
      if (isAnswerCorrect(item, text, scoring.mintakaMode, scoring)) correct++;
    }
    const n = present.length || 1;
    bySource.push({ source, answered, prevalence: (100 * answered) / n, precision: answered ? (100 * correct) / answered : 0, recall: (100 * correct) / n });
  }

  const toolCalls: number[] = [];
  const tokens: number[] = [];
  const latencyMs: number[] = [];
  let errors = 0;
  for (const item of present) {
    const p = predictions.get(item.id);
    if (!p) continue;
    if (p.error) errors++;
    const t = num(p.usage?.toolCalls);
    if (t !== undefined) toolCalls.push(t);
    const pt = num(p.usage?.promptTokens);
    const ct = num(p.usage?.completionTokens);
    if (pt !== undefined || ct !== undefined) tokens.push((pt ?? 0) + (ct ?? 0));
    const ms = num(p.timings?.totalMs) ?? num(p.timings?.clientMs);
    if (ms !== undefined && !p.error) latencyMs.push(ms);
  }

  return {
    byCategory: groupBy(present, (i) => i.category, scores),
    byType: groupBy(present, (i) => i.type, scores),
    bySource,
    byAgreement: accuracyByConfidence(present, predictions, result),
    verifiedCitationRate: verifiedCitationRate(present.map((i) => predictions.get(i.id))),
    toolCalls,
    tokens,
    latencyMs,
    errors,
  };
};

/** Accuracy per confidence level, in the order of docs/CONFIDENCE.md: the table that says whether the confidence is worth anything. */
export const accuracyByConfidence = (items: readonly EvalItem[], predictions: Map<string, Prediction>, result: ScoreResult): GroupStat[] => {
  const scores = new Map(result.items.map((s) => [s.id, s]));
  const present = items.filter((i) => scores.has(i.id));
  return groupBy(present, (i) => predictions.get(i.id)?.confidence ?? (predictions.get(i.id) ? 'unreported' : undefined), scores, AGREEMENT_ORDER);
};

/**
 * The share (0–100) of answered predictions whose answer a verified citation holds (a source in agreementSources, or
 * a citation graded `mentions`, which agreementSources leaves out since issue 40; predictions from before
 * agreementSources: any verified citation); null when none answered. How many of those citations support the answer
 * is the citation support rate (../metrics/citation-support.ts).
 */
export const verifiedCitationRate = (predictions: readonly (Prediction | undefined)[]): number | null => {
  const answered = predictions.filter((p): p is Prediction => !!p && !p.error && typeof p.answer === 'string' && p.answer.trim() !== '');
  if (!answered.length) return null;
  const backed = (p: Prediction) =>
    p.agreementSources ? p.agreementSources.length > 0 || !!p.citations?.some((c) => c.verified && c.support === 'mentions') : !!p.citations?.some((c) => c.verified);
  return (100 * answered.filter(backed).length) / answered.length;
};

/** The gold answer as a person reads it. */
export const goldText = (gold: Gold): string => {
  switch (gold.kind) {
    case 'mintaka':
      return gold.text ?? JSON.stringify(gold.kg);
    case 'qald9plus':
      return gold.answers.slice(0, 8).join(', ') + (gold.answers.length > 8 ? ` … (${gold.answers.length})` : '');
    case 'compmix':
      return gold.answers.map((a) => a.label).join(', ') || gold.answerText;
    case 'hybridqa':
      return gold.answer;
    case 'mmqa':
      return gold.answers.join(', ');
    case 'crag':
      return gold.answer;
  }
};

export const percentile = (values: readonly number[], q: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[idx];
};
