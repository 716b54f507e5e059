import type { EvidenceRecord } from '../../evidence/recording';
import { isNonAnswer } from '../../text/answers';
import type { AnswerData, AnswerDraft, Attribution, Citation, Claim, Confidence, Source } from '../types';
import { contextDocument } from './context-documents';
import { labelsOf, recordDocument, type EvidenceDocument } from './documents';
import { questionFocus, type QuestionFocus } from './question-focus';
import { bridgedFocus, gradedFind } from './support';
import { modelVerdicts, type ModelVerdicts } from './support-verdicts';
import { verdictOf, type CheckedClaim } from './verdict';

export { verdictOf, type CheckedClaim } from './verdict';

/**
 * The attribution layer: every mode's answer is checked here, once. A strategy declares per source the answer and
 * the evidence keys it rests on (a Claim); a citation is verified when the key names a record of this run and the
 * answer occurs in it, and graded `supports` or `mentions` (./support.ts, or the model's verdict when
 * `options.supportCheck: "model"` asked one). Confidence and agreementSources come from supporting citations only
 * (docs/CONFIDENCE.md).
 */

/** What a run saw: its evidence recording and the context its caller supplied, as documents by key. */
export interface EvidenceBook {
  document(key: string): EvidenceDocument | undefined;
  /** What the question asks about, with the entities the run linked from it. */
  focus(): QuestionFocus;
  /** The support verdicts a model gave on this run's citations (recorded with its evidence). */
  verdicts(): ModelVerdicts;
}

export const evidenceBook = (records: Iterable<EvidenceRecord>, context?: Record<string, unknown>, question = ''): EvidenceBook => {
  const byKey = new Map<string, EvidenceRecord>();
  for (const r of records) if (!byKey.has(r.key)) byKey.set(r.key, r);
  let labels: Map<string, string> | undefined;
  let focus: QuestionFocus | undefined;
  let verdicts: ModelVerdicts | undefined;
  const docs = new Map<string, EvidenceDocument | undefined>();
  const document = (key: string) => {
    if (!docs.has(key)) {
      const record = byKey.get(key);
      docs.set(key, record ? recordDocument(record, (labels ??= labelsOf(byKey.values()))) : contextDocument(context, key));
    }
    return docs.get(key);
  };
  return {
    document,
    focus: () => (focus ??= bridgedFocus(questionFocus(question, byKey.values()), byKey.values(), document)),
    verdicts: () => (verdicts ??= modelVerdicts(question, byKey.values())),
  };
};

/** The model's own knowledge: one name on every surface, and never evidence. */
export const MODEL_KNOWLEDGE = 'parametric';
export const modelKnowledgeSource: Source = { title: "the model's own knowledge", kind: 'model' };

const MAX_VERIFIED_PER_SOURCE = 3;
const MAX_UNVERIFIED_PER_SOURCE = 2;
const MAX_KEYS_PER_CLAIM = 200;

const citation = (claim: Claim, key: string, doc: EvidenceDocument, found: { quote: string; url?: string; support: Citation['support'] }): Citation => ({
  source: claim.source,
  key,
  kind: doc.kind,
  ...(found.url ? { url: found.url } : {}),
  quote: found.quote,
  verified: true,
  support: found.support,
});

/**
 * A computed answer: each operand must be found in some cited record; each record that holds one is cited. It
 * supports the answer when every operand stands in a part of a record that is about the question.
 */
const operandCitations = (claim: Claim, operands: string[], book: EvidenceBook): Citation[] => {
  const found = new Map<string, Citation>();
  const missing = new Set(operands);
  const unsupported = new Set(operands);
  for (const key of [...new Set(claim.keys)].slice(0, MAX_KEYS_PER_CLAIM)) {
    const doc = book.document(key);
    if (!doc) continue;
    for (const operand of operands) {
      const hit = gradedFind(operand, doc, book.focus(), claim);
      if (!hit) continue;
      missing.delete(operand);
      if (hit.support === 'supports') unsupported.delete(operand);
      const prior = found.get(key);
      if (prior) prior.quote = prior.quote?.includes(hit.quote) ? prior.quote : `${prior.quote} … ${hit.quote}`;
      else found.set(key, citation(claim, key, doc, hit));
    }
  }
  if (missing.size === 0 && found.size) {
    const support = unsupported.size === 0 ? 'supports' : 'mentions';
    return [...found.values()].map((c) => ({ ...c, support }));
  }
  return [...new Set(claim.keys)].slice(0, MAX_UNVERIFIED_PER_SOURCE).map((key) => ({ source: claim.source, key, kind: book.document(key)?.kind ?? 'missing', verified: false }));
};

/** A model's verdict on a verified citation replaces the structural grade (options.supportCheck: "model"). */
const withVerdict = (c: Citation, claim: Claim, book: EvidenceBook): Citation => {
  const verdict = c.verified && c.quote ? book.verdicts().of(claim.answer, c.quote) : undefined;
  return verdict ? { ...c, support: verdict, supportBy: 'model' } : c;
};

const citationsOf = (claim: Claim, book: EvidenceBook): Citation[] => {
  if (claim.operands?.length) return operandCitations(claim, claim.operands, book).map((c) => withVerdict(c, claim, book));
  const verified: Citation[] = [];
  const unverified: Citation[] = [];
  for (const key of [...new Set(claim.keys)].slice(0, MAX_KEYS_PER_CLAIM)) {
    const doc = book.document(key);
    const found = doc && gradedFind(claim.answer, doc, book.focus(), claim);
    if (found) verified.push(withVerdict(citation(claim, key, doc, found), claim, book));
    else unverified.push({ source: claim.source, key, kind: doc?.kind ?? 'missing', ...(doc?.url ? { url: doc.url } : {}), verified: false });
    // Enough quotes, and one of them supports (or none may: a record further on still might).
    if (verified.length >= MAX_VERIFIED_PER_SOURCE && verified.some((c) => c.support === 'supports')) break;
  }
  if (!verified.length) return unverified.slice(0, MAX_UNVERIFIED_PER_SOURCE);
  // Supporting citations first, then those that mention, in the order the claim named them.
  return [...verified.filter((c) => c.support === 'supports'), ...verified.filter((c) => c.support !== 'supports')].slice(0, MAX_VERIFIED_PER_SOURCE);
};

/** Cites every claim that may vote (the model's own knowledge and non-answers never do) against the run's evidence. */
export const checkClaims = (claims: readonly Claim[], book: EvidenceBook): CheckedClaim[] =>
  claims.filter((c) => c.source !== MODEL_KNOWLEDGE && !isNonAnswer(c.answer) && c.keys.length > 0).map((claim) => ({ claim, citations: citationsOf(claim, book) }));

/** Citations for every claim, and the agreement of the sources with a supporting one (checkClaims, then verdictOf). */
export const attribute = (claims: readonly Claim[], book: EvidenceBook, answer?: string): Attribution =>
  verdictOf(checkClaims(claims, book), (key) => book.document(key), answer);

/** `https://en.wikipedia.org/wiki/New_York_City` → `New York City`; a URL it cannot read stays as it is. */
const titleOf = (url: string): string => {
  const tail = url.replace(/^https?:\/\/[^/]+\/(wiki\/)?/, '');
  try {
    return decodeURIComponent(tail).replace(/_/g, ' ') || url;
  } catch {
    return tail || url;
  }
};

export const I_DONT_KNOW = "I don't know";

/** Whether an abstaining run says "I don't know": no supported source, or supported sources that all disagree. */
export const shouldAbstain = (confidence: Confidence): boolean => confidence === 'none' || confidence === 'conflict';

/**
 * The answer as the evidence backs it: the draft with its citations, confidence and agreement (its claims as
 * `checked` when they were already cited against the same evidence); the pages a verified citation links to join
 * `sources`. What the caller asked done with it (abstention, wording) is ../answer-policy.ts.
 */
export const attributedAnswer = (draft: AnswerDraft, book: EvidenceBook, checked?: readonly CheckedClaim[]): AnswerData => {
  const { claims, ...fields } = draft;
  const attribution = verdictOf(checked ?? checkClaims(claims ?? [], book), (key) => book.document(key), fields.answer);
  const sources = [...fields.sources];
  for (const c of attribution.citations) {
    if (!c.verified || !c.url || sources.some((s) => s.url === c.url)) continue;
    sources.push({ title: titleOf(c.url), url: c.url, kind: c.kind });
  }
  return { ...fields, sources, ...attribution };
};
