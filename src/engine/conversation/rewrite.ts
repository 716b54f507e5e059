import * as z from 'zod';
import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import { structuredCall } from '../structured-step';
import type { ConversationTurn, RunContext, StepEvent } from '../types';
import prompt from './rewrite.txt';

/** The rewrite is one line; a reply longer than a question may be (the API's cap) is cut there. */
const MAX_STANDALONE_CHARS = 2_000;
const PREFIX = /^(?:standalone\s+question|question|rewritten(?:\s+question)?)\s*[:：]\s*/i;

/**
 * The standalone question in a model's reply: its first non-empty line, without a label the model may have added or
 * quotes around it, on one line; null when nothing is left.
 * @example standaloneFrom('Standalone question: "When was Robert Zemeckis born?"') // 'When was Robert Zemeckis born?'
 */
export const standaloneFrom = (reply: string): string | null => {
  const line = reply.split('\n').map((l) => l.trim()).find((l) => l) ?? '';
  const text = oneLine(line.replace(PREFIX, '').replace(/^["'“”«»]+|["'“”«»]+$/g, '')).slice(0, MAX_STANDALONE_CHARS);
  return text || null;
};

/** The rewrite's reply: the standalone question, on one line and bounded whichever way it came. */
const REWRITE_REPLY = {
  name: 'standalone_question',
  schema: z.object({
    question: z
      .string()
      .transform((q) => standaloneFrom(oneLine(q)) ?? '')
      .pipe(z.string().min(1)),
  }),
  sent: z.object({ question: z.string().meta({ description: 'the question, rewritten to be understood without the conversation' }) }),
  // A plain reply's question is its first line (the model may add a second); a JSON reply's is all of its field.
  fromText: (text: string) => ({ question: standaloneFrom(text) ?? '' }),
};

/** The earlier turns as fenced data, oldest first: nothing in them can pass for an instruction or close its block. */
const renderTurns = (turns: readonly ConversationTurn[]) =>
  turns.map((t) => fence(t.role === 'user' ? 'USER_TURN' : 'ASSISTANT_TURN', t.content)).join('\n');

/**
 * One model call (purpose `rewrite`) that makes the asked question self-contained from the conversation before it.
 * Its events show the question, how many turns were read and the standalone question; a reply with no question in
 * it leaves the question as asked (said in the observation) rather than failing the run.
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
  const output = standalone ?? `the rewrite gave no question; answering "${oneLine(asked).slice(0, 300)}" as asked`;
  return {
    standalone: standalone ?? asked,
    events: [
      { type: 'action', data: { tool: 'rewrite', input: { question: asked, turns: turns.length } } },
      { type: 'observation', data: { tool: 'rewrite', output, ms: Date.now() - started, ...(standalone ? {} : { error: true }) } },
    ],
  };
};
