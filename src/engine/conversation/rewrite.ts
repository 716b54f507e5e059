import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
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
  const reply = await ctx.llm.chat({
    purpose: 'rewrite',
    messages: [
      { role: 'system', content: `${prompt.trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: `${renderTurns(turns)}\n${fence('QUESTION', asked)}\n\nStandalone question:` },
    ],
    maxTokens: 200,
    temperature: 0,
  });
  const checked = checkStandalone(reply.text);
  const output = checked.ok ? checked.question : `the rewrite was not used (${checked.why}); answering the last user message as asked: "${oneLine(asked).slice(0, 300)}"`;
  return {
    standalone: checked.ok ? checked.question : asked,
    events: [
      { type: 'action', data: { tool: 'rewrite', input: { question: asked, turns: turns.length } } },
      { type: 'observation', data: { tool: 'rewrite', output, ms: Date.now() - started, ...(checked.ok ? {} : { error: true }) } },
    ],
  };
};
