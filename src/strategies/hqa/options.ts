import * as z from 'zod';
import { defineOptions, intOption, type OptionsOf } from '../../engine/options';
import type { Recipe } from '../../engine/recipe';
import { bundledLibraryNames, SELECTION_MODES, type SelectionMode } from '../../fewshot';
import { AGENT_RECIPES } from './recipes';

/** The answer merge of the agent family and the pipeline baselines. */
const MERGE = {
  answerStyle: z.enum(['short', 'long']).default('short').meta({ description: 'short (default) or a long answer' }),
};

const seed = intOption(0, 2 ** 31).default(1).meta({ description: 'seed of every random draw (default 1)' });

const LIBRARY_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const libraryName = z.string().regex(LIBRARY_NAME, {
  message: 'options.library must name a few-shot library folder (lowercase letters, digits, - and _), e.g. "hqa-mintaka".',
  abort: true,
});

/** A library of this build; an agent given its own loader (tests) takes any folder name its loader may serve. */
const library = (bundledOnly: boolean) =>
  (bundledOnly
    ? libraryName.refine((s) => bundledLibraryNames().includes(s), {
        message: `options.library must name a bundled few-shot library: ${bundledLibraryNames().join(', ')} (import more with npm run fewshot:import)`,
      })
    : libraryName
  ).meta({ description: 'a bundled few-shot library (e.g. one imported with npm run fewshot:import)' });

const agentShape = (bundledOnly: boolean) => ({
  ...MERGE,
  fewshot: z.enum(SELECTION_MODES).default('dpp').meta({ description: `how the solution processes are chosen: ${SELECTION_MODES.join(', ')} (default dpp)` }),
  k: intOption(0, 10).default(3).meta({ description: 'solution processes in the prompt (default 3)' }),
  seed,
  library: library(bundledOnly).optional(),
  maxIterations: intOption(1, 30).optional().meta({ description: 'agent turns before the answer is forced (default 10; 15 under recipe "paper")' }),
});

/**
 * The HQA agent and its variants (zero-shot, random few-shot, single-source, LLM late fusion). `forced` is the
 * selection a mode imposes whatever `options.fewshot` says (zero-shot, random few-shot, the paper's late fusion), so
 * the run's options (and GET /v1/config) name the selection the run makes.
 */
export const agentOptions = (bundledOnly = true, forced?: (recipe: Recipe) => SelectionMode | undefined) =>
  defineOptions(agentShape(bundledOnly), (o) => {
    const fewshot = forced?.(o.recipe) ?? o.fewshot;
    return { ...o, fewshot, k: fewshot === 'zero-shot' ? 0 : o.k, maxIterations: o.maxIterations ?? AGENT_RECIPES[o.recipe].maxIterations };
  });

export type AgentOptions = OptionsOf<ReturnType<typeof agentOptions>>;

/** The fixed pipelines that end in the agent's merge (static-pipeline, late-fusion-pipeline). */
export const pipelineOptions = defineOptions(MERGE);

export type PipelineOptions = OptionsOf<typeof pipelineOptions>;

/** The two pipelines whose answer is one of theirs drawn at random. */
export const lateFusionRandomOptions = defineOptions({ seed });
