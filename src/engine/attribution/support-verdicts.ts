import type { EvidenceRecord } from '../../evidence/recording';
import { verdictBody } from '../../evidence/verdict-records';
import type { Support } from '../types';

/** The support verdicts a model gave on a run's citations, read from the run's recording. */
export interface ModelVerdicts {
  /** The verdict on this answer quoted from this span, for the run's question; undefined when none was given. */
  of(answer: string, quote: string): Support | undefined;
}

const pairKey = (answer: string, quote: string) => `${answer.trim()}\u0000${quote.trim()}`;

/**
 * The verdicts among a run's records (`verify` requests: src/evidence/verdict-records.ts) for this question. Only
 * what the run itself recorded is here: a verdict read from a replayed archive was checked against the pair it was
 * asked for before the run recorded it (./support-check.ts).
 */
export const modelVerdicts = (question: string, records: Iterable<EvidenceRecord>): ModelVerdicts => {
  const byPair = new Map<string, Support>();
  for (const r of records) {
    if (r.request.source !== 'verify' || !('body' in r.response)) continue;
    const body = verdictBody.safeParse(r.response.body);
    if (body.success && body.data.question.trim() === question.trim()) byPair.set(pairKey(body.data.answer, body.data.quote), body.data.support);
  }
  return { of: (answer, quote) => byPair.get(pairKey(answer, quote)) };
};
