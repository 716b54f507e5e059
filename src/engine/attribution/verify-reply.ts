import * as z from 'zod';
import { VERDICTS } from '../../evidence/verdict-records';

/**
 * The verify step's reply (options.supportCheck: "model"): one verdict per numbered pair. A zod schema, so a provider
 * that takes a structured-output format can be handed it as JSON Schema (`z.toJSONSchema(VERIFY_REPLY)`), and the
 * text of any other reply is read against the same shape.
 */
export const VERIFY_REPLY = z.object({
  verdicts: z
    .array(z.object({ pair: z.number().int().min(1).max(1_000), support: z.enum(VERDICTS) }))
    .max(1_000),
});
export type VerifyReply = z.infer<typeof VERIFY_REPLY>;

const MAX_REPLY_CHARS = 64_000;

/** The JSON object in a reply: the whole reply, or the span from its first `{` to its last `}` (a code fence around it, words before it). */
const jsonIn = (text: string): unknown => {
  const t = text.slice(0, MAX_REPLY_CHARS);
  const from = t.indexOf('{');
  const to = t.lastIndexOf('}');
  if (from < 0 || to <= from) return undefined;
  try {
    return JSON.parse(t.slice(from, to + 1));
  } catch {
    return undefined;
  }
};

/**
 * The verdicts of a reply, by pair number (1-based); undefined when the reply is not in the expected form, which leaves
 * every citation its structural grade. A pair named twice keeps its first verdict; numbers outside 1..pairs are dropped.
 * @example verifyVerdicts('{"verdicts":[{"pair":1,"support":"mentions"}]}', 2) // Map { 1 => 'mentions' }
 */
export const verifyVerdicts = (reply: string, pairs: number): Map<number, VerifyReply['verdicts'][number]['support']> | undefined => {
  const parsed = VERIFY_REPLY.safeParse(jsonIn(reply));
  if (!parsed.success) return undefined;
  const out = new Map<number, VerifyReply['verdicts'][number]['support']>();
  for (const v of parsed.data.verdicts) if (v.pair <= pairs && !out.has(v.pair)) out.set(v.pair, v.support);
  return out;
};
