import type { EvidenceRecord } from '../../evidence/recording';
import { isNonAnswer, sameAnswer } from '../../text/answers';
import type { AnswerData, AnswerDraft, Attribution, Citation, Claim, Confidence, Source } from '../types';
import { confidenceRank } from '../confidence';
import type { RunOptions } from '../options';
import { contextDocument } from './context-documents';
import { labelsOf, recordDocument, type EvidenceDocument } from './documents';
import { findAnswer } from './find-answer';

/**
 * The attribution layer: every mode's answer is checked here, once. A strategy declares per source the answer and
 * the evidence keys it rests on (a Claim); a citation is verified when the key names a record of this run and the
 * answer occurs in it. Confidence and agreementSources come from verified citations only (docs/CONFIDENCE.md).
 */

/** What a run saw: its evidence recording and the context its caller supplied, as documents by key. */
export interface EvidenceBook {
  document(key: string): EvidenceDocument | undefined;
}

export const evidenceBook = (records: Iterable<EvidenceRecord>, context?: Record<string, unknown>): EvidenceBook => {
  const byKey = new Map<string, EvidenceRecord>();
  for (const r of records) if (!byKey.has(r.key)) byKey.set(r.key, r);
  let labels: Map<string, string> | undefined;
  const docs = new Map<string, EvidenceDocument | undefined>();
  return {
    document(key) {
      if (!docs.has(key)) {
        const record = byKey.get(key);
        docs.set(key, record ? recordDocument(record, (labels ??= labelsOf(byKey.values()))) : contextDocument(context, key));
      }
      return docs.get(key);
    },
  };
};

/** The model's own knowledge: one name on every surface, and never evidence. */
export const MODEL_KNOWLEDGE = 'parametric';
export const modelKnowledgeSource: Source = { title: "the model's own knowledge", kind: 'model' };

const MAX_VERIFIED_PER_SOURCE = 3;
const MAX_UNVERIFIED_PER_SOURCE = 2;
const MAX_KEYS_PER_CLAIM = 200;

/** A computed answer: each operand must be found in some cited record; each record that holds one is cited. */
const operandCitations = (claim: Claim, operands: string[], book: EvidenceBook): Citation[] => {
  const found = new Map<string, Citation>();
  const missing = new Set(operands);
  for (const key of [...new Set(claim.keys)].slice(0, MAX_KEYS_PER_CLAIM)) {
    const doc = book.document(key);
    if (!doc) continue;
    for (const operand of operands) {
      const hit = findAnswer(operand, doc);
      if (!hit) continue;
      missing.delete(operand);
      const prior = found.get(key);
      if (prior) prior.quote = prior.quote?.includes(hit.quote) ? prior.quote : `${prior.quote} … ${hit.quote}`;
      else found.set(key, { source: claim.source, key, kind: doc.kind, ...(hit.url ? { url: hit.url } : {}), quote: hit.quote, verified: true });
    }
  }
  if (missing.size === 0 && found.size) return [...found.values()];
  return [...new Set(claim.keys)].slice(0, MAX_UNVERIFIED_PER_SOURCE).map((key) => ({ source: claim.source, key, kind: book.document(key)?.kind ?? 'missing', verified: false }));
};

const citationsOf = (claim: Claim, book: EvidenceBook): Citation[] => {
  if (claim.operands?.length) return operandCitations(claim, claim.operands, book);
  const verified: Citation[] = [];
  const unverified: Citation[] = [];
  for (const key of [...new Set(claim.keys)].slice(0, MAX_KEYS_PER_CLAIM)) {
    const doc = book.document(key);
    const found = doc && findAnswer(claim.answer, doc);
    if (found) verified.push({ source: claim.source, key, kind: doc.kind, ...(found.url ? { url: found.url } : {}), quote: found.quote, verified: true });
    else unverified.push({ source: claim.source, key, kind: doc?.kind ?? 'missing', ...(doc?.url ? { url: doc.url } : {}), verified: false });
    if (verified.length >= MAX_VERIFIED_PER_SOURCE) break;
  }
  return verified.length ? verified : unverified.slice(0, MAX_UNVERIFIED_PER_SOURCE);
};

/**
 * none: no source's answer verified · one_source: exactly one did · all_agree: two or more did and all agree ·
 * two_agree: at least two agree and another differs · conflict: no two agree.
 */
const agreementOf = (answers: readonly string[]): Confidence => {
  if (answers.length === 0) return 'none';
  if (answers.length === 1) return 'one_source';
  let pairs = 0;
  let agreeing = 0;
  for (let i = 0; i < answers.length; i++) {
    for (let j = i + 1; j < answers.length; j++) {
      pairs++;
      if (sameAnswer(answers[i], answers[j])) agreeing++;
    }
  }
  if (agreeing === pairs) return 'all_agree';
  return agreeing > 0 ? 'two_agree' : 'conflict';
};

/**
 * Whether the answer the user reads is one a verified source gave (the same answer, or one inside the other), or
 * stands itself in a record a verified citation names. A merge that prefers the model's memory to the sources it
 * was shown writes an answer no evidence holds, however well the sources agree.
 */
const backedBy = (answer: string, voting: readonly { claim: Claim; citations: Citation[] }[], book: EvidenceBook): boolean =>
  voting.some(
    ({ claim, citations }) =>
      sameAnswer(answer, claim.answer) ||
      citations.some((c) => {
        const doc = c.verified ? book.document(c.key) : undefined;
        return !!doc && !!findAnswer(answer, doc);
      }),
  );

/** A claim with the citations the run's evidence gives it: the costly part of attribution (answers looked up in documents). */
export interface CheckedClaim {
  claim: Claim;
  citations: Citation[];
}

/** Cites every claim that may vote (the model's own knowledge and non-answers never do) against the run's evidence. */
export const checkClaims = (claims: readonly Claim[], book: EvidenceBook): CheckedClaim[] =>
  claims.filter((c) => c.source !== MODEL_KNOWLEDGE && !isNonAnswer(c.answer) && c.keys.length > 0).map((claim) => ({ claim, citations: citationsOf(claim, book) }));

/**
 * The agreement of the sources with a verified citation, from checked claims. A fallback source (an agent's own
 * answer, derived from the sources it read) votes only when no other source verified. Given the answer the run
 * gives, the verdict is about that answer: when no verified source backs it, it is `none` with no agreement
 * sources, whatever the sources said.
 */
export const verdictOf = (checked: readonly CheckedClaim[], book: EvidenceBook, answer?: string): Attribution => {
  const verified = checked.filter((c) => c.citations.some((x) => x.verified));
  const primary = verified.filter((c) => !c.claim.fallback);
  const voting = primary.length ? primary : verified;
  const bySource = new Map<string, string>();
  for (const { claim } of voting) if (!bySource.has(claim.source)) bySource.set(claim.source, claim.answer);
  // A fallback that does not vote would only repeat the sources' citations.
  const shown = primary.length ? checked.filter((c) => !c.claim.fallback) : checked;
  if (answer !== undefined && !isNonAnswer(answer) && voting.length && !backedBy(answer, voting, book)) {
    return { confidence: 'none', agreementSources: [], citations: shown.flatMap((c) => c.citations) };
  }
  return {
    confidence: agreementOf([...bySource.values()]),
    agreementSources: [...bySource.keys()],
    citations: shown.flatMap((c) => c.citations),
  };
};

/** Citations for every claim, and the agreement of the sources with a verified one (checkClaims, then verdictOf). */
export const attribute = (claims: readonly Claim[], book: EvidenceBook, answer?: string): Attribution => verdictOf(checkClaims(claims, book), book, answer);

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

/** Whether an abstaining run says "I don't know": no verified source, or verified sources that all disagree. */
export const shouldAbstain = (confidence: Confidence): boolean => confidence === 'none' || confidence === 'conflict';

/** What an answer's abstention reads of the run's options. */
export type AbstainOptions = Pick<RunOptions, 'abstain' | 'abstainBelow'>;

/** The threshold `options.abstainBelow` sets, when the confidence falls under it. */
const thresholdMissed = (confidence: Confidence, below: Confidence | undefined): Confidence | undefined =>
  below !== undefined && confidenceRank(confidence) < confidenceRank(below) ? below : undefined;

/**
 * The answer as stored and served: the draft with its citations, confidence and agreement (its claims as `checked`
 * when they were already cited against the same evidence); the pages a verified
 * citation links to join `sources`; `options.abstain` turns an unverified answer into "I don't know", and
 * `options.abstainBelow` any answer under that confidence level (recorded as `abstainedBelow`).
 */
export const finishAnswer = (draft: AnswerDraft, book: EvidenceBook, options: AbstainOptions, checked?: readonly CheckedClaim[]): AnswerData => {
  const { claims, ...fields } = draft;
  const attribution = verdictOf(checked ?? checkClaims(claims ?? [], book), book, fields.answer);
  const sources = [...fields.sources];
  for (const c of attribution.citations) {
    if (!c.verified || !c.url || sources.some((s) => s.url === c.url)) continue;
    sources.push({ title: titleOf(c.url), url: c.url, kind: c.kind });
  }
  const below = isNonAnswer(fields.answer) ? undefined : thresholdMissed(attribution.confidence, options.abstainBelow);
  const abstain = below !== undefined || (options.abstain && shouldAbstain(attribution.confidence));
  return { ...fields, ...(abstain ? { answer: I_DONT_KNOW } : {}), ...(below ? { abstainedBelow: below } : {}), sources, ...attribution };
};
