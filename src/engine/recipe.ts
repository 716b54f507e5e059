/**
 * Which recipe a strategy follows: `paper` runs the published system as described (prompts, rounds, retrievers),
 * `ours` (the default) keeps the improvements documented in docs/FIDELITY.md. Read from `options.recipe`.
 */
export type Recipe = 'paper' | 'ours';

export const RECIPES: readonly Recipe[] = ['paper', 'ours'];

/** @example recipeOf({ recipe: 'paper' }) === 'paper'; recipeOf(undefined) === 'ours' */
export const recipeOf = (options: Record<string, unknown> | undefined): Recipe => (options?.recipe === 'paper' ? 'paper' : 'ours');
