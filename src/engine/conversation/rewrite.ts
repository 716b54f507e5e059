import * as z from 'zod';
import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import { structuredCall } from '../structured-step';
import type { ConversationTurn, RunContext, StepEvent } from '../types';
import prompt from './rewrite.txt';
import { checkStandalone } from './standalone';

/**
 * The standalone question in a model's reply, or null when the reply fails the check (./standalone.ts).
 * @example standaloneFrom('Standalone question: "When was Robert Zemeckis born?"') // 'When was Robert Zemeckis born?'
 */
export const standaloneFrom = (reply: string): string | null => {
  const checked = checkStandalone(reply);
  return checked.ok ? checked.question : null;
};

/** The rewrite's reply: the standalone question, checked (./standalone.ts) whichever way it came. */
const REWRITE_REPLY = {
  name: 'standalone_question',
  schema: z.object({
    question: z
      .string()
      .transform((q) => standaloneFrom(oneLine(q)) ?? '')
      .pipe(z.string().min(1)),
  }),
  sent: z.object({ question: z.string().meta({ description: 'the question, rewritten to be understood without the conversation' }) }),
  // A plain reply is the question alone, on one line; a JSON reply's field is a value, not lines of a protocol, so its
  // line breaks are spaces before it is checked the same way.
  fromText: (text: string) => ({ question: standaloneFrom(text) ?? '' }),
};

/** Why a reply held no usable question: the check's reason, read from the field a JSON reply carried or the text. */
const whyRefused = (text: string): string => {
  let candidate = text;
  try {
    const field = (JSON.parse(text) as { question?: unknown })?.question;
    if (typeof field === 'string') candidate = oneLine(field);
  } catch {
    // a plain reply
  }
  const checked = checkStandalone(candidate);
  return checked.ok ? 'the reply was not the question it was asked for' : checked.why;
};

/** The earlier turns as fenced data, oldest first: nothing in them can pass for an instruction or close its block. */
const renderTurns = (turns: readonly ConversationTurn[]) =>
  turns.map((t) => fence(t.role === 'user' ? 'USER_TURN' : 'ASSISTANT_TURN', t.content)).join('\n');

/**
 * One model call (purpose `rewrite`) that makes the asked question self-contained from the conversation before it.
 * Its events show the question, how many turns were read and the standalone question. A reply that fails the check
 * (./standalone.ts) is not used: the run answers the last user message as asked, and the observation says why.
 */
export const rewriteQuestion = async (ctx: RunContext): Promise<{ standalone: string; events: StepEvent[] }> => {
  const asked = ctx.request.question;
  const turns = ctx.request.conversation ?? [];
  const started = Date.now();
  const reply = await structuredCall(ctx, {
    purpose: 'rewrite',
    messages: [
      { role: 'system', content: `${prompt.trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: `${renderTurns(turns)}\n${fence('QUESTION', asked)}\n\nStandalone question:` },
    ],
    maxTokens: 200,
  }, REWRITE_REPLY);
  const standalone = reply.value?.question ?? null;
  const output = standalone ?? `the rewrite was not used (${whyRefused(reply.result.text)}); answering the last user message as asked: "${oneLine(asked).slice(0, 300)}"`;
  return {
    standalone: standalone ?? asked,
    events: [
      { type: 'action', data: { tool: 'rewrite', input: { question: asked, turns: turns.length } } },
      { type: 'observation', data: { tool: 'rewrite', output, ms: Date.now() - started, ...(standalone ? {} : { error: true }) } },
    ],
  };
};
