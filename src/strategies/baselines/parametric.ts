import { MODEL_KNOWLEDGE, modelKnowledgeSource } from '../../engine/attribution/attribute';
import { defineOptions } from '../../engine/options';
import type { Strategy } from '../../engine/types';
import { PARAMETRIC_RECIPES } from './recipes';

interface ParametricState {
  answered: boolean;
}

/** One model call and nothing else: what the model knows on its own (the closed-book baseline). */
export const parametricStrategy: Strategy<ParametricState> = {
  mode: 'parametric',
  description: 'The model answers from its own knowledge in one call (closed-book baseline).',
  options: defineOptions({}),
  start: () => ({ answered: false }),
  async step(state, ctx) {
    const result = await ctx.llm.chat({
      purpose: 'parametric',
      messages: PARAMETRIC_RECIPES[ctx.options.recipe].closedBook(ctx.request.question),
      maxTokens: 256,
    }, { answer: true });
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
