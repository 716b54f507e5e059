import * as z from 'zod';
import { sha256Hex } from '../text/sha256';

/**
 * A support verdict as the run records it beside its evidence (docs/ARCHIVE.md): which answer, quoted from which
 * span, a model judged for which question, and its judgement. Its request names only the pair's SHA-256, so a replay
 * finds the verdict for the same pair without the model (options.supportCheck: "model", src/engine/attribution).
 */
export const VERDICTS = ['supports', 'mentions'] as const;

export const verdictBody = z.object({
  support: z.enum(VERDICTS),
  question: z.string(),
  answer: z.string(),
  quote: z.string(),
});
export type VerdictBody = z.infer<typeof verdictBody>;

/** What a verdict is about, as one text: the pair's identity. */
const pairText = (question: string, answer: string, quote: string): string => JSON.stringify([question.trim(), answer.trim(), quote.trim()]);

/** The SHA-256 (hex) that names a question–answer–quote triple in a recording. */
export const pairHash = (question: string, answer: string, quote: string): Promise<string> => sha256Hex(pairText(question, answer, quote));

/** Two verdicts are about the same pair when their texts are. */
export const samePair = (a: Pick<VerdictBody, 'question' | 'answer' | 'quote'>, b: Pick<VerdictBody, 'question' | 'answer' | 'quote'>): boolean =>
  pairText(a.question, a.answer, a.quote) === pairText(b.question, b.answer, b.quote);

export const PAIR_HASH = /^[0-9a-f]{64}$/;
