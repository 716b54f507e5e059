import { DATA_FENCE_RULE, fence } from '../../text/prompt-data';
import type { RunContext, StepOutcome } from '../../engine/types';
import prompt from './prompts/parametric.txt';
import type { RagState } from './state';

/** Reads the reply: the last `Answer:` line (the reasoning before it may say "answer" too) and the premise flag. */
export const parseParametric = (text: string): { answer: string; falsePremise: boolean; reasoning?: string } => {
  const answers = [...text.matchAll(/^[\s*>]*answer\s*:\s*\**\s*(.+)$/gim)];
  const answer = answers.at(-1)?.[1]?.trim() ?? text.trim().split('\n')[0]?.trim() ?? '';
  const falsePremise = /false\s*premise\s*:\s*\**\s*yes/i.test(text);
  const reasoning = /reasoning\s*:\s*([\s\S]*?)(?:^[\s*>]*answer\s*:|$(?![\s\S]))/im.exec(text)?.[1]?.trim();
  return { answer: answer.slice(0, 300) || "I don't know", falsePremise, ...(reasoning ? { reasoning: reasoning.slice(0, 600) } : {}) };
};

/**
 * Knowledge extractor: the model reasons briefly (chain of thought), then gives its closed-book answer and its
 * false-premise check — one reference among others for the reasoning step.
 */
export const parametricStep = async (state: RagState, ctx: RunContext): Promise<StepOutcome<RagState>> => {
  const question = ctx.request.question;
  const started = Date.now();
  const reply = await ctx.llm.chat({
    purpose: 'parametric',
    messages: [
      { role: 'system', content: `${prompt.trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: fence('QUESTION', question) },
    ],
    maxTokens: 300,
  });
  const { reasoning, ...parametric } = parseParametric(reply.text);
  return {
    state: { ...state, parametric, phase: 'kg' },
    events: [
      { type: 'action', data: { tool: 'parametric', input: { question } } },
      { type: 'observation', data: { tool: 'parametric', output: `${reasoning ? `${reasoning}\n` : ''}Answer: ${parametric.answer}${parametric.falsePremise ? ' (false premise suspected)' : ''}`, ms: Date.now() - started } },
    ],
  };
};
