/**
 * GERBIL QA's "Macro F1 QALD": per question precision/recall with QALD's rules for empty answers,
 * averaged over questions; the F1 is the harmonic mean of the two averages (not the mean of F1s).
 *
 * Rules per question (true positives tp, false positives fp, false negatives fn):
 * - tp = 0, fp = 0, fn = 0 (gold empty, system empty): P = R = 1.
 * - tp = 0, fp = 0, fn > 0 (system gave nothing): P = 1, R = 0.
 * - tp = 0, fp > 0 (only wrong answers, or answers to an empty gold): P = R = 0.
 * - otherwise the usual set precision and recall.
 */
export interface PR {
  precision: number;
  recall: number;
  f1: number;
}

export const qaldQuestion = (system: ReadonlySet<string>, gold: ReadonlySet<string>): PR => {
  let tp = 0;
  for (const a of system) if (gold.has(a)) tp++;
  const fp = system.size - tp;
  const fn = gold.size - tp;
  if (tp === 0) {
    if (fp === 0 && fn === 0) return { precision: 1, recall: 1, f1: 1 };
    if (fp === 0) return { precision: 1, recall: 0, f1: 0 };
    return { precision: 0, recall: 0, f1: 0 };
  }
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) };
};

/**
 * Averages in percent. `macro_f1_qald` is 2PR/(P+R) of the averaged P and R (0 when both are 0), GERBIL's
 * "Macro F1 QALD"; `macro_f1` is the mean of the per-question F1s, GERBIL's "Macro F1".
 */
export const qaldMacro = (perQuestion: readonly PR[]): { precision: number; recall: number; macro_f1: number; macro_f1_qald: number } => {
  const n = perQuestion.length || 1;
  let p = 0;
  let r = 0;
  let f1 = 0;
  for (const q of perQuestion) {
    p += q.precision;
    r += q.recall;
    f1 += q.f1;
  }
  p /= n;
  r /= n;
  const f = p + r === 0 ? 0 : (2 * p * r) / (p + r);
  return { precision: 100 * p, recall: 100 * r, macro_f1: (100 * f1) / n, macro_f1_qald: 100 * f };
};

const WIKIDATA_ENTITY = 'http://www.wikidata.org/entity/';

/**
 * One comparable form per answer: IRIs as given (a bare Q-id becomes a Wikidata entity IRI, and
 * https/`wiki/` forms are folded to the canonical entity IRI), literals trimmed, booleans lower-cased.
 */
export const qaldAnswerKey = (value: string): string => {
  const v = value.trim();
  const q = /^(?:wd:)?(Q\d+)$/.exec(v) ?? /^https?:\/\/(?:www\.)?wikidata\.org\/(?:entity|wiki)\/(Q\d+)$/.exec(v);
  if (q) return WIKIDATA_ENTITY + q[1];
  if (/^(true|false)$/i.test(v)) return v.toLowerCase();
  return v;
};

/** Yes/no words a model writes for an ASK question, mapped to the boolean answer. */
export const qaldBooleanFromText = (text: string): string | undefined => {
  const t = text.trim().toLowerCase().replace(/[.!]+$/, '');
  if (/^(yes|true)\b/.test(t)) return 'true';
  if (/^(no|false)\b/.test(t)) return 'false';
  return undefined;
};
