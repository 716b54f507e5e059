import * as z from 'zod';
import { defineOptions, intOption, type OptionsOf } from '../../engine/options';
import { PROGRAM_RECIPES } from './recipes';

/** Program mode's options; the rounds and the worked examples default to the recipe's (./recipes.ts). */
export const programOptions = defineOptions(
  {
    refineRounds: intOption(0, 10).optional().meta({ description: 'repairs of a failing program (default 2; 1 under recipe "paper")' }),
    simplify: z.boolean().default(true).meta({ description: 'cut the evidence to what matters before writing the program (default true)' }),
    fewshot: intOption(0, 20).optional().meta({ description: 'number of worked examples in the prompt' }),
  },
  (o) => ({ ...o, refineRounds: o.refineRounds ?? PROGRAM_RECIPES[o.recipe].refineRounds, fewshot: o.fewshot ?? PROGRAM_RECIPES[o.recipe].examples }),
);

export type ProgramOptions = OptionsOf<typeof programOptions>;
