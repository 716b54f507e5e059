import type { Recipe } from '../../engine/recipe';

/** Where the two recipes of rag mode differ (docs/FIDELITY.md); the steps read these and are the same for both. */
export interface RagRecipe {
  /** Every dynamic question is answered "I don't know" unless options.dynamicPolicy says otherwise (ours: crag only). */
  abstainOnDynamic: boolean;
  /** Samples of the attribute predictor's self-consistency vote. */
  attributeSamples: number;
  /** The reasoning prompt's guiding questions as the paper words them, else ours (with the recency rule and stricter abstention). */
  publishedReasoningPrompt: boolean;
}

export const RAG_RECIPES: Record<Recipe, RagRecipe> = {
  // The published system abstains on every dynamic question and takes five samples.
  paper: { abstainOnDynamic: true, attributeSamples: 5, publishedReasoningPrompt: true },
  // Ours abstains on the crag variant only (options.ts), and takes three samples, for cost.
  ours: { abstainOnDynamic: false, attributeSamples: 3, publishedReasoningPrompt: false },
};
