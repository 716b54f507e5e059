import { bootstrapCi, type Interval } from '../stats/bootstrap';
import type { EvalItem, ItemScore, Prediction } from '../types';

/**
 * How well an evaluation's citations back its answers (issue 40, docs/CONFIDENCE.md): the share of verified citations
 * that support the answer rather than only mention it, with a 95 % interval from a bootstrap over questions (the
 * citations of one question go together), accuracy by the answer's support grade, and the citations graded
 * `mentions`, to read. Pure: predictions in, figures out.
 */

type Cited = NonNullable<Prediction['citations']>[number];

/** The answer's grade: a supporting citation backs it, its evidence only mentions it, nothing verified it, or the service did not grade. */
export const SUPPORT_GRADES = ['supported', 'mentioned only', 'unverified', 'not graded'] as const;
export type SupportGrade = (typeof SUPPORT_GRADES)[number];

export interface GradeStat {
  label: SupportGrade;
  n: number;
  /** % of these answers that are right. */
  accuracy: number;
}

export interface MentionedCitation {
  id: string;
  question: string;
  source: string;
  answer: string;
  quote: string;
}

export interface CitationSupport {
  /** Verified citations that carry a grade, over every answered question. */
  verified: number;
  supporting: number;
  /** % of those that support (null when no verified citation carries a grade). */
  rate: number | null;
  ci95: Interval | null;
  byGrade: GradeStat[];
  /** Whether every graded answer's confidence counts support only (a service before issue 40 counted occurrence). */
  confidenceGraded: boolean;
  /** The citations graded `mentions` (at most MAX_LISTED), and how many there are in all. */
  mentions: MentionedCitation[];
  mentionsTotal: number;
}

const MAX_LISTED = 100;

const answeredPrediction = (p: Prediction | undefined): p is Prediction => !!p && !p.error && typeof p.answer === 'string' && p.answer.trim() !== '';
const graded = (c: Cited) => c.verified && (c.support === 'supports' || c.support === 'mentions');

/** The support grade of one answer, from its citations and agreementSources. */
export const supportGrade = (p: Prediction): SupportGrade => {
  const verified = (p.citations ?? []).filter((c) => c.verified);
  if (!verified.length) return 'unverified';
  if (!verified.some(graded)) return 'not graded';
  return (p.agreementSources?.length ?? 0) > 0 && verified.some((c) => c.support === 'supports') ? 'supported' : 'mentioned only';
};

const counts = (ps: readonly Prediction[]) => {
  let verified = 0;
  let supporting = 0;
  for (const p of ps) {
    for (const c of p.citations ?? []) {
      if (!graded(c)) continue;
      verified++;
      if (c.support === 'supports') supporting++;
    }
  }
  return { verified, supporting };
};

const rateOf = (ps: readonly Prediction[]) => {
  const { verified, supporting } = counts(ps);
  return verified ? (100 * supporting) / verified : null;
};

/** The figures over the answered questions of an evaluation. */
export const citationSupport = (items: readonly EvalItem[], predictions: ReadonlyMap<string, Prediction>, scores: readonly ItemScore[]): CitationSupport => {
  const right = new Map(scores.map((s) => [s.id, s.correct]));
  const asked = items.filter((i) => right.has(i.id) && answeredPrediction(predictions.get(i.id)));
  const ps = asked.map((i) => predictions.get(i.id)!);
  const { verified, supporting } = counts(ps);
  const groups = new Map<SupportGrade, { n: number; ok: number }>();
  for (const item of asked) {
    const g = supportGrade(predictions.get(item.id)!);
    const s = groups.get(g) ?? { n: 0, ok: 0 };
    s.n++;
    if (right.get(item.id)) s.ok++;
    groups.set(g, s);
  }
  const mentions: MentionedCitation[] = [];
  for (const item of asked) {
    const p = predictions.get(item.id)!;
    for (const c of p.citations ?? []) {
      if (c.verified && c.support === 'mentions') mentions.push({ id: item.id, question: item.question, source: c.source, answer: p.answer ?? '', quote: c.quote ?? '' });
    }
  }
  return {
    verified,
    supporting,
    rate: verified ? (100 * supporting) / verified : null,
    ci95: bootstrapCi(ps, (rows) => ({ rate: rateOf(rows) })).rate,
    byGrade: SUPPORT_GRADES.filter((g) => groups.has(g)).map((label) => ({ label, n: groups.get(label)!.n, accuracy: (100 * groups.get(label)!.ok) / groups.get(label)!.n })),
    confidenceGraded: ps.every((p) => supportGrade(p) !== 'not graded'),
    mentions: mentions.slice(0, MAX_LISTED),
    mentionsTotal: mentions.length,
  };
};

/** Two evaluations' support rates over the questions both answered (for `npm run compare`). */
export const compareCitationSupport = (ids: readonly string[], a: ReadonlyMap<string, Prediction>, b: ReadonlyMap<string, Prediction>) => {
  const side = (m: ReadonlyMap<string, Prediction>) => rateOf(ids.map((id) => m.get(id)).filter(answeredPrediction));
  const [ra, rb] = [side(a), side(b)];
  return { a: ra, b: rb, delta: ra === null || rb === null ? null : rb - ra };
};
