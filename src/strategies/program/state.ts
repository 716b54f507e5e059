import { recipeOf } from '../../engine/recipe';
import type { ClaimReads, RunContext, StepEvent } from '../../engine/types';

export type Phase = 'invalid' | 'simplify' | 'generate' | 'run' | 'refine';

export interface Attempt {
  ok: boolean;
  answer?: string;
  error?: string;
  /** What the program read to reach its answer (./cell-reads.ts). */
  read?: ClaimReads;
}

export interface ProgramState {
  phase: Phase;
  /** Why the input was refused (phase `invalid`). */
  invalid?: string;
  /** The question the program is written for: the simplified one once simplification ran. */
  question: string;
  code?: string;
  /** What went wrong in the last attempt, shown to the refine prompt. */
  failure?: string;
  /** Refinement rounds used so far. */
  rounds: number;
  attempts: Attempt[];
}

/** Ours repairs twice; the paper refines once. */
const REFINE_ROUNDS = { ours: 2, paper: 1 } as const;
/** Worked examples in the code prompt: our six; the authors' runs used four. */
const EXAMPLES = { ours: 6, paper: 4 } as const;

/** The run's settings, from `options` and the recipe. */
export const options = (ctx: RunContext) => {
  const o = ctx.request.options ?? {};
  const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : fallback);
  const recipe = recipeOf(o);
  return {
    recipe,
    refineRounds: num(o.refineRounds, REFINE_ROUNDS[recipe]),
    examples: num(o.fewshot, EXAMPLES[recipe]),
    simplify: o.simplify !== false,
  };
};

export const thought = (text: string): StepEvent => ({ type: 'thought', data: { text } });
