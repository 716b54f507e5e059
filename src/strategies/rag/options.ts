import * as z from 'zod';
import { defineOptions, intOption, type OptionsOf } from '../../engine/options';
import { RAG_RECIPES } from './recipes';

/**
 * Rag mode's options. Defaults: the published system abstains on every dynamic question; ours does so for the `crag`
 * variant (its scoring punishes a wrong answer more than "I don't know") and answers elsewhere. The samples of the
 * attribute vote follow the recipe (./recipes.ts).
 */
export const ragOptions = defineOptions(
  {
    dynamicPolicy: z.enum(['abstain', 'answer']).optional().meta({ description: 'what to do with a fast-changing question (abstain is the crag default)' }),
    attributeSamples: intOption(1, 7).optional(),
    calculatorSamples: intOption(1, 5).default(3),
    topChunks: intOption(1, 30).default(10),
    maxTables: intOption(1, 10).default(3),
    tableChars: intOption(1, 20_000).default(4_000).meta({ description: 'characters of tables in the reasoning prompt' }),
    kgMode: z.enum(['rules', 'calls']).default('rules').meta({ description: 'rules (default): rules pick the knowledge-graph calls; calls: the model writes them' }),
  },
  (o, variant) => {
    const recipe = RAG_RECIPES[o.recipe];
    return {
      ...o,
      dynamicPolicy: o.dynamicPolicy ?? (recipe.abstainOnDynamic || variant === 'crag' ? 'abstain' : 'answer'),
      attributeSamples: o.attributeSamples ?? recipe.attributeSamples,
    };
  },
);

/**
 * The run's knobs, every default filled in. `tableChars`: characters of tables in the reasoning prompt, all tables
 * together. `kgMode`: `rules`, the model extracts entities and rules pick the endpoints (the paper's final system);
 * `calls`, the model writes the calls.
 */
export type RagOptions = OptionsOf<typeof ragOptions>;
