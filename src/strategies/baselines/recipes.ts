import type { Recipe } from '../../engine/recipe';
import type { ChatMessage } from '../../llm/types';
import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import paperPrompt from './prompts/parametric-paper.txt';
import prompt from './prompts/parametric.txt';

/** Where the two recipes of the closed-book baseline differ (docs/FIDELITY.md): only its question. */
export interface ParametricRecipe {
  /** The messages of its one call. */
  closedBook: (question: string) => ChatMessage[];
}

export const PARAMETRIC_RECIPES: Record<Recipe, ParametricRecipe> = {
  // The paper's closed-book prompt asks for the answer and nothing else.
  paper: { closedBook: (question) => [{ role: 'user', content: `${paperPrompt.trim()}\nQuestion: ${oneLine(question)}\nAnswer:` }] },
  // Ours lets the model say it does not know, and the question reaches it fenced as data.
  ours: {
    closedBook: (question) => [
      { role: 'system', content: `${prompt.trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: fence('QUESTION', question) },
    ],
  },
};
