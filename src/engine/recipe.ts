/**
 * Which recipe a strategy follows: `paper` runs the published system as described (prompts, rounds, retrievers),
 * `ours` (the default) keeps the improvements documented in docs/FIDELITY.md. Read from `options.recipe`; each strategy keeps
 * what the recipe changes as data, in its recipe table (its `recipes.ts`).
 */
export const RECIPES = ['paper', 'ours'] as const;

export type Recipe = (typeof RECIPES)[number];
