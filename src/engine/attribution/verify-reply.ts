import * as z from 'zod';
import { VERDICTS } from '../../evidence/verdict-records';
// Loaded first: the JSON Schema converter extends zod, and a schema made before that cannot be converted.
import '../../llm/json-schema';
import type { StructuredSpec } from '../../llm/structured';

/**
 * The verify step's reply (options.supportCheck: "model"): one verdict per numbered pair. One zod schema: under the
 * native protocol the server is handed it as the reply's JSON Schema, and any other reply is read against it too.
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

/** The verify step as a structured step (src/llm/structured.ts): its schema, and the text parser for a plain reply. */
export const VERIFY_SPEC: StructuredSpec<VerifyReply> = { name: 'support_verdicts', schema: VERIFY_REPLY, fromText: jsonIn };

type Verdict = VerifyReply['verdicts'][number]['support'];

/**
 * The verdicts of a validated reply, by pair number (1-based); undefined when there is none, which leaves every
 * citation its structural grade. A pair named twice keeps its first verdict; numbers outside 1..pairs are dropped.
 */
export const verdictsOf = (reply: VerifyReply | undefined, pairs: number): Map<number, Verdict> | undefined => {
  if (!reply) return undefined;
  const out = new Map<number, Verdict>();
  for (const v of reply.verdicts) if (v.pair <= pairs && !out.has(v.pair)) out.set(v.pair, v.support);
  return out;
};

/**
 * The verdicts of a plain-text reply (what `verdictsOf` reads after the text parser).
 * @example verifyVerdicts('{"verdicts":[{"pair":1,"support":"mentions"}]}', 2) // Map { 1 => 'mentions' }
 */
export const verifyVerdicts = (reply: string, pairs: number): Map<number, Verdict> | undefined => {
  const parsed = VERIFY_REPLY.safeParse(jsonIn(reply));
  return verdictsOf(parsed.success ? parsed.data : undefined, pairs);
};
