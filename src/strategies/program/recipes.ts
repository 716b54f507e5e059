import type { Recipe } from '../../engine/recipe';

/**
 * Where the two recipes of program mode differ (docs/FIDELITY.md): each step reads its line here and is the same code
 * for both.
 */
export interface ProgramRecipe {
  /** Repairs of a failing program (the default of options.refineRounds). */
  refineRounds: number;
  /** Worked examples in the code prompt (the default of options.fewshot). */
  examples: number;
  /** The published code prompt, which asks for the solution described before the code, else ours. */
  publishedCodePrompt: boolean;
  /** A failed program is repaired in the same conversation (its code prompt, its program, what went wrong), else by a fresh call. */
  refineInConversation: boolean;
  /** extract_info: the published prompt, whose reply reasons and ends "So my answer is …", else ours (the value alone); and its reply's length. */
  extract: { published: boolean; maxTokens: number };
  /** check(): numbers and dates are decided in code before the model is asked, else every comparison goes to the model. */
  checkInCodeFirst: boolean;
  /** Step (a) rewrites the question from the passages' matching sentences (the published retriever) or from whole passages. */
  simplifyFrom: 'sentences' | 'passages';
}

export const PROGRAM_RECIPES: Record<Recipe, ProgramRecipe> = {
  // The paper refines once, in the same conversation; the authors' runs used four worked examples. Its extract_info
  // lets the model reason first, and its check asks a (cheaper) model every comparison with worked examples.
  paper: {
    refineRounds: 1,
    examples: 4,
    publishedCodePrompt: true,
    refineInConversation: true,
    extract: { published: true, maxTokens: 256 },
    checkInCodeFirst: false,
    simplifyFrom: 'sentences',
  },
  // Ours repairs twice from a fresh prompt that shows the failure, with six examples, and asks for values alone.
  ours: {
    refineRounds: 2,
    examples: 6,
    publishedCodePrompt: false,
    refineInConversation: false,
    extract: { published: false, maxTokens: 64 },
    checkInCodeFirst: true,
    simplifyFrom: 'passages',
  },
};
