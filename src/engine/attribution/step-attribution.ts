import type { AnswerData, AnswerDraft, Attribution, Claim, EventInput, StepEvent } from '../types';
import { attributedAnswer, checkClaims, verdictOf, type CheckedClaim, type EvidenceBook } from './attribute';

/** What a step's strategy and the engine ask of attribution: the verdict on claims, and answers as stored. */
export interface StepAttribution {
  /** The verdict on claims against the evidence so far (what `ctx.attribute` answers a strategy). */
  attribute(claims: readonly Claim[]): Attribution;
  /** A draft attributed: its citations, confidence and agreement (the caller's policy is ../answer-policy.ts). */
  answer(draft: AnswerDraft): AnswerData;
  /** A step's events with every answer draft attributed. */
  events(events: readonly StepEvent[]): EventInput[];
  /** The answer–quote pairs of a draft's verified citations that no model verdict covers yet (./support-check.ts). */
  unjudged(draft: AnswerDraft): Array<{ answer: string; quote: string }>;
}

/**
 * Attribution for one step of a run, done once per answer: the claims a strategy has verified before it answers (the
 * HQA agent skips its merge call when verified sources agree) are not cited again when its answer is stored. The run's
 * evidence is read once per `version` (it changes when a record is stored), and claims are cited once per evidence.
 */
export const stepAttribution = (readBook: () => EvidenceBook, version: () => number = () => 0): StepAttribution => {
  let current: { version: number; book: EvidenceBook } | undefined;
  const book = () => {
    const v = version();
    if (current?.version !== v) current = { version: v, book: readBook() };
    return current.book;
  };
  const cited = new WeakMap<readonly Claim[], { book: EvidenceBook; checked: CheckedClaim[] }>();
  const check = (claims: readonly Claim[]) => {
    const b = book();
    const hit = cited.get(claims);
    if (hit?.book === b) return hit;
    const fresh = { book: b, checked: checkClaims(claims, b) };
    cited.set(claims, fresh);
    return fresh;
  };
  const answer = (draft: AnswerDraft): AnswerData => {
    const { book: b, checked } = check(draft.claims ?? []);
    return attributedAnswer(draft, b, checked);
  };
  return {
    attribute(claims) {
      const { book: b, checked } = check(claims);
      return verdictOf(checked, (key) => b.document(key));
    },
    answer,
    events: (events) => events.map((e): EventInput => (e.type === 'answer' ? { type: 'answer', data: answer(e.data) } : e)),
    unjudged(draft) {
      const pairs = new Map<string, { answer: string; quote: string }>();
      for (const { claim, citations } of check(draft.claims ?? []).checked) {
        // A computed answer's quotes hold its operands, not the answer: nothing for a model to judge.
        if (claim.operands?.length) continue;
        for (const c of citations) if (c.verified && c.quote && !c.supportBy) pairs.set(`${claim.answer}\u0000${c.quote}`, { answer: claim.answer, quote: c.quote });
      }
      return [...pairs.values()];
    },
  };
};
