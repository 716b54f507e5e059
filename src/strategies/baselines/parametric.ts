import { MODEL_KNOWLEDGE, modelKnowledgeSource } from '../../engine/attribution/attribute';
import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import { recipeOf } from '../../engine/recipe';
import type { Strategy } from '../../engine/types';
import paperPrompt from './prompts/parametric-paper.txt';
import prompt from './prompts/parametric.txt';

interface ParametricState {
  answered: boolean;
}

/** One model call and nothing else: what the model knows on its own (the closed-book baseline). */
export const parametricStrategy: Strategy<ParametricState> = {
  mode: 'parametric',
  description: 'The model answers from its own knowledge in one call (closed-book baseline).',
  start: () => ({ answered: false }),
  async step(state, ctx) {
    const result = await ctx.llm.chat({
      purpose: 'parametric',
      answer: true,
      // The paper's closed-book prompt asks for the answer and nothing else; ours lets the model say it does not know.
      messages:
        recipeOf(ctx.request.options) === 'paper'
          ? [{ role: 'user', content: `${paperPrompt.trim()}\nQuestion: ${oneLine(ctx.request.question)}\nAnswer:` }]
          : [
              { role: 'system', content: `${prompt.trim()}\n\n${DATA_FENCE_RULE}` },
              { role: 'user', content: fence('QUESTION', ctx.request.question) },
            ],
      maxTokens: 256,
    });
    const answer = result.text.trim().replace(/^answer:\s*/i, '') || "I don't know";
    return {
      state: { ...state, answered: true },
      done: true,
      events: [
        {
          type: 'answer',
          data: {
            answer,
            answers: { [MODEL_KNOWLEDGE]: answer },
            sources: [modelKnowledgeSource],
            // The model's own knowledge is no evidence source: nothing here was read from anywhere.
            claims: [],
          },
        },
      ],
    };
  },
};
