import type { Recipe } from './recipe';

/** What a recipe fixes for every mode alike, beside each strategy's own recipe table. */
export interface RunRecipe {
  /** Every model call in plain text, whatever `options.toolProtocol` or LLM_TOOL_PROTOCOL ask: the published systems spoke so. */
  textOnly: boolean;
}

export const RUN_RECIPES: Record<Recipe, RunRecipe> = {
  paper: { textOnly: true },
  ours: { textOnly: false },
};
