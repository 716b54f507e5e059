import { isNonAnswer, sameAnswer } from '../../text/answers';
import type { Attribution, Citation, Claim, Confidence } from '../types';
import type { EvidenceDocument } from './documents';
import { findAnswer } from './find-answer';

/** A claim with the citations the run's evidence gives it: the costly part of attribution (answers looked up in documents). */
export interface CheckedClaim {
  claim: Claim;
  citations: Citation[];
}

/**
 * none: no source's answer supported · one_source: exactly one was · all_agree: two or more were and all agree ·
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

/** A citation that counts toward confidence: verified, and the record supports the answer. */
export const supporting = (c: Citation): boolean => c.verified && c.support === 'supports';

/**
 * Whether the answer the user reads is one a supported source gave (the same answer, or one inside the other), or
 * stands itself in a part of a record a supporting citation names. A merge that prefers the model's memory to the
 * sources it was shown writes an answer no evidence holds, however well the sources agree.
 */
const backedBy = (answer: string, voting: readonly CheckedClaim[], documentOf: (key: string) => EvidenceDocument | undefined): boolean =>
  voting.some(
    ({ claim, citations }) =>
      sameAnswer(answer, claim.answer) ||
      citations.some((c) => {
        const doc = supporting(c) ? documentOf(c.key) : undefined;
        return !!doc && !!findAnswer(answer, doc);
      }),
  );

/**
 * The agreement of the sources with a supporting citation, from checked claims. A source whose verified citations
 * only mention its answer keeps them (shown as such) but does not vote. A fallback source (an agent's own answer,
 * derived from the sources it read) votes only when no other source is supported. Given the answer the run gives,
 * the verdict is about that answer: when no supported source backs it, it is `none` with no agreement sources,
 * whatever the sources said.
 */
export const verdictOf = (checked: readonly CheckedClaim[], documentOf: (key: string) => EvidenceDocument | undefined, answer?: string): Attribution => {
  const supported = checked.filter((c) => c.citations.some(supporting));
  const primary = supported.filter((c) => !c.claim.fallback);
  const voting = primary.length ? primary : supported;
  const bySource = new Map<string, string>();
  for (const { claim } of voting) if (!bySource.has(claim.source)) bySource.set(claim.source, claim.answer);
  // A fallback that does not vote would only repeat the sources' citations.
  const shown = primary.length ? checked.filter((c) => !c.claim.fallback) : checked;
  const citations = shown.flatMap((c) => c.citations);
  if (answer !== undefined && !isNonAnswer(answer) && voting.length && !backedBy(answer, voting, documentOf)) {
    return { confidence: 'none', agreementSources: [], citations };
  }
  return { confidence: agreementOf([...bySource.values()]), agreementSources: [...bySource.keys()], citations };
};
