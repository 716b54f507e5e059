import type { ClaimReads, StepEvent } from '../../engine/types';

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

export const thought = (text: string): StepEvent => ({ type: 'thought', data: { text } });
