import type { Recipe } from '../../engine/recipe';

/** Where the two recipes of program mode differ (docs/FIDELITY.md); the steps read these and are the same for both. */
export interface ProgramRecipe {
  /** Repairs of a failing program. */
  refineRounds: number;
  /** Worked examples in the code prompt. */
  examples: number;
}

export const PROGRAM_RECIPES: Record<Recipe, ProgramRecipe> = {
  // The paper refines once; the authors' runs used four worked examples.
  paper: { refineRounds: 1, examples: 4 },
  // Ours repairs twice, with six examples.
  ours: { refineRounds: 2, examples: 6 },
};
