import * as z from 'zod';

/**
 * The request of POST /v1/chat/completions (its route: src/api/chat-completions.ts). Unknown OpenAI parameters
 * (temperature, max_tokens, ...) are accepted and ignored, as chat UIs send them unasked; `tools` are refused
 * (./chat-conversation.ts).
 */
const textPart = z.object({ type: z.literal('text'), text: z.string() }).loose();
const otherPart = z.object({ type: z.string() }).loose();

const messageSchema = z
  .object({
    role: z.string().max(32),
    content: z.union([z.string(), z.array(z.union([textPart, otherPart])).max(64), z.null()]).optional(),
  })
  .loose();

export const chatRequestSchema = z
  .object({
    model: z.string().min(1).max(128).meta({ description: 'A variant ("mintaka") or variant:mode ("mintaka:parametric"); see GET /v1/models' }),
    messages: z
      .array(messageSchema)
      .min(1, { message: 'messages must hold at least one message' })
      .max(200)
      .meta({
        description:
          'The last message with role "user" is the question (≤ 2,000 characters). The user and assistant turns before it (the latest 8, 1,000 characters each, 4,000 in all) make it self-contained first; system and tool messages are not used',
      }),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().optional(),
    cite_sources: z
      .boolean()
      .optional()
      .meta({
        description:
          'Not an OpenAI parameter: true appends the answer\'s sources to the message text — each verified citation with its quote and link, or "not verified" (docs/CONFIDENCE.md). The `run` extension field carries the citations either way',
      }),
    options: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Not an OpenAI parameter: the same per-mode options as POST /v1/answer (an unknown key is a 400 naming it)' }),
  })
  .loose();

export type ChatRequestBody = z.infer<typeof chatRequestSchema>;
