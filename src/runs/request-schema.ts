import * as z from 'zod';
import { MAX_QUESTION_CHARS } from '../engine/limits';
import { VARIANTS } from '../engine/types';

export { MAX_QUESTION_CHARS } from '../engine/limits';
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_CONTEXT_BODY_BYTES = 16 * 1024 * 1024;
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** Unicode NFC, control characters (but tab/newline) removed, outer whitespace trimmed. */
export const cleanText = (s: string) =>
  s.normalize('NFC').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B\u2028\u2029\uFEFF]/g, '').trim();

export const questionSchema = z
  .string({ message: 'question must be a string' })
  .transform(cleanText)
  .pipe(
    z
      .string()
      .min(1, { message: 'question must not be empty' })
      .max(MAX_QUESTION_CHARS, { message: `question must be at most ${MAX_QUESTION_CHARS} characters` }),
  );

const pageSchema = z.object({
  url: z.string().max(4096),
  html: z.string(),
  lastModified: z.string().max(200).optional(),
});

/** Caps on supplied evidence: generous for real benchmark inputs, there to stop abuse within the 16 MB body. */
export const MAX_CELL_CHARS = 20_000;
export const MAX_CELL_LINKS = 50;
export const MAX_PASSAGES = 2_000;
export const MAX_PASSAGE_CHARS = 200_000;
export const MAX_IMAGES = 50;

const cellSchema = z.object({
  text: z.string().max(MAX_CELL_CHARS, { message: `a table cell holds at most ${MAX_CELL_CHARS} characters` }),
  links: z.array(z.string().max(2_048)).max(MAX_CELL_LINKS).optional(),
});

const capped = (name: string, maxEntries: number, maxChars: number) =>
  z
    .record(z.string().max(2_048), z.string().max(maxChars, { message: `each of ${name} holds at most ${maxChars} characters` }))
    .refine((r) => Object.keys(r).length <= maxEntries, { message: `${name} holds at most ${maxEntries} entries` });

export const contextSchema = z
  .object({
    table: z
      .object({
        title: z.string().max(1_000).optional(),
        columns: z.array(z.string().max(1_000)).max(200),
        rows: z.array(z.array(cellSchema).max(200)).max(5_000),
      })
      .optional(),
    passages: capped('passages', MAX_PASSAGES, MAX_PASSAGE_CHARS).optional(),
    images: capped('images', MAX_IMAGES, MAX_PAGE_BYTES).optional(),
    pages: z.array(pageSchema).max(50).optional(),
    queryTime: z.string().max(200).optional(),
  })
  .strict();

export const answerRequestSchema = z
  .object({
    question: questionSchema.meta({ description: `the question: at most ${MAX_QUESTION_CHARS} characters after Unicode NFC and removal of control characters` }),
    variant: z.enum(VARIANTS, { message: `variant must be one of: ${VARIANTS.join(', ')}` }).optional(),
    mode: z.string().max(64).optional(),
    context: contextSchema.optional(),
    options: z
      .record(z.string(), z.unknown())
      .describe(
        'evidence: {replay: archiveId} serves the run\'s evidence from an uploaded archive (POST /v1/archives); model: the model for this run instead of LLM_MODEL. ' +
        'Per-request knobs; which keys a request may send depends on its mode (an unknown key or a wrong type is a 400 naming it; ' +
          'components.schemas.Options_<mode> in /openapi.json lists each mode\'s). recipe: "ours" (default) or "paper" (agent, program and rag modes run the published recipe; docs/FIDELITY.md). ' +
          'rag: dynamicPolicy ("abstain" | "answer"; abstain is the crag default), attributeSamples, kgMode ("rules" | "calls"), tableChars, topChunks, maxTables. ' +
          'program: refineRounds, simplify, fewshot. agent: fewshot, k, seed, library (a bundled few-shot library, e.g. one imported with npm run fewshot:import), maxIterations, answerStyle, abstain. limits: {maxSteps, maxLLMCalls, maxWallMs, maxTokens}.',
      )
      .optional(),
  })
  .strict();

/** The limits of a request that carries evidence, as the API documentation states them. */
export const LIMITS_TEXT =
  `Limits (bytes of UTF-8; 413 over them): body ≤ ${MAX_BODY_BYTES} bytes, or with a \`context\` object ≤ ${MAX_CONTEXT_BODY_BYTES} bytes of which ≤ ${MAX_BODY_BYTES} outside it; ` +
  `each page's html ≤ ${MAX_PAGE_BYTES} bytes, ≤ 50 pages; table ≤ 200 columns × 5,000 rows. Question ≤ ${MAX_QUESTION_CHARS} characters ` +
  `after Unicode NFC and removal of control characters (400 over it). Content-Type must be application/json (415 otherwise).`;

export type AnswerRequestBody = z.infer<typeof answerRequestSchema>;
