import * as z from 'zod';
import { CONFIDENCE_LEVELS } from '../engine/attribution/attribute';
import { RECIPES } from '../engine/recipe';
import { SELECTION_MODES } from '../fewshot/select';
import { bundledLibraryNames } from '../fewshot/library';
import { HttpError } from './errors';

/**
 * The `options` a request may send, one strict schema per mode. Strategies still read `request.options` with
 * their own defaults; these schemas only make sure that what they read is what the caller meant: a misspelt key
 * (`fewshots`) or a wrong type is a 400 naming it, not a silently ignored knob. /openapi.json lists each as
 * components.schemas.Options_<mode> (src/api/openapi.ts).
 */

const int = (min: number, max?: number) => {
  const base = z.number().int().min(min);
  return max === undefined ? base : base.max(max);
};

/** Lowers the configured per-run limits (never raises them: a larger value is the configured one). */
const limitsSchema = z
  .strictObject({
    maxSteps: int(1).optional(),
    maxLLMCalls: int(1).optional(),
    maxWallMs: int(1).optional(),
    maxTokens: int(1).optional(),
  })
  .meta({ description: 'Lowers the deployment\'s per-run limits for this run (a larger value keeps the configured one).' });

/** Every mode takes these. */
const common = {
  recipe: z
    .enum(RECIPES, { message: `options.recipe must be one of: ${RECIPES.join(', ')} (see docs/FIDELITY.md)` })
    .optional()
    .meta({ description: '"ours" (default) or "paper": the published recipe, where the mode has one (docs/FIDELITY.md).' }),
  limits: limitsSchema.optional(),
  booleanStyle: z
    .enum(['yes-no', 'true-false'])
    .optional()
    .meta({ description: '"true-false" writes a bare yes/no answer as true/false.' }),
  evidence: z
    .strictObject({ replay: z.string().regex(/^arc_[0-9a-f]{32}$/, { message: 'options.evidence.replay must be an archive id from POST /v1/archives' }) })
    .optional()
    .meta({ description: 'replay: serve the run\'s evidence from this uploaded archive (POST /v1/archives; docs/ARCHIVE.md) instead of the snapshot or Wikimedia' }),
  model: z.string().trim().min(1).max(200).optional().meta({ description: 'the model for this run instead of the deployment\'s LLM_MODEL (a fork\'s `model`)' }),
  abstain: z
    .boolean()
    .optional()
    .meta({ description: 'answer "I don\'t know" when no verified source backs the answer (confidence none) or the verified sources disagree (conflict); docs/CONFIDENCE.md' }),
  abstainBelow: z
    .enum(CONFIDENCE_LEVELS, { message: `options.abstainBelow must be a confidence level: ${CONFIDENCE_LEVELS.join(', ')} (docs/CONFIDENCE.md)` })
    .optional()
    .meta({ description: `answer "I don't know" when the confidence is under this level (${CONFIDENCE_LEVELS.join(' < ')}); the answer step records abstainedBelow; docs/CONFIDENCE.md` }),
  sampling: z
    .strictObject({
      seed: int(0, 2 ** 31).optional().meta({ description: 'sent to the model as `seed` with every call of the run (an evaluation\'s epochs use one each)' }),
      temperature: z.number().min(0).max(2).optional().meta({ description: 'every model call of the run at this temperature instead of its purpose\'s (GET /v1/config lists those)' }),
    })
    .optional()
    .meta({ description: 'how the run\'s model calls sample: a seed and a temperature for all of them (src/engine/sampling.ts)' }),
  testEvidence: z.literal('live').optional().meta({ description: 'test builds only (TEST_MODE): live evidence for this run; ignored otherwise' }),
  testKgUrl: z.url().max(500).optional().meta({ description: 'test builds only (TEST_MODE): the CRAG KG server of this run instead of CRAG_API_URL; ignored otherwise' }),
};

/** The answer merge of the agent family and the pipeline baselines. */
const merge = {
  answerStyle: z.enum(['short', 'long']).optional().meta({ description: 'short (default) or a long answer' }),
};

const library = z
  .string()
  .refine((s) => bundledLibraryNames().includes(s), {
    message: `options.library must name a bundled few-shot library: ${bundledLibraryNames().join(', ')} (import more with npm run fewshot:import)`,
  })
  .meta({ description: 'a bundled few-shot library (e.g. one imported with npm run fewshot:import)' });

const seed = int(0, 2 ** 31).meta({ description: 'seed of every random draw (default 1)' });

const agentOptions = z.strictObject({
  ...common,
  ...merge,
  fewshot: z.enum(SELECTION_MODES).optional().meta({ description: `how the solution processes are chosen: ${SELECTION_MODES.join(', ')} (default dpp)` }),
  k: int(0, 10).optional().meta({ description: 'solution processes in the prompt (default 3)' }),
  seed: seed.optional(),
  library: library.optional(),
  maxIterations: int(1, 30).optional().meta({ description: 'agent turns before the answer is forced (default 10; 15 under recipe "paper")' }),
});

const programOptions = z.strictObject({
  ...common,
  refineRounds: int(0, 10).optional().meta({ description: 'repairs of a failing program (default 2; 1 under recipe "paper")' }),
  simplify: z.boolean().optional().meta({ description: 'cut the evidence to what matters before writing the program (default true)' }),
  fewshot: int(0, 20).optional().meta({ description: 'number of worked examples in the prompt' }),
});

const ragOptions = z.strictObject({
  ...common,
  dynamicPolicy: z.enum(['abstain', 'answer']).optional().meta({ description: 'what to do with a fast-changing question (abstain is the crag default)' }),
  attributeSamples: int(1, 7).optional(),
  calculatorSamples: int(1, 5).optional(),
  topChunks: int(1, 30).optional(),
  maxTables: int(1, 10).optional(),
  tableChars: int(1, 20_000).optional().meta({ description: 'characters of tables in the reasoning prompt' }),
  kgMode: z.enum(['rules', 'calls']).optional().meta({ description: 'rules (default): rules pick the knowledge-graph calls; calls: the model writes them' }),
});

const pipelineOptions = z.strictObject({ ...common, ...merge });

/** TEST_MODE only. */
const toolLoopOptions = z.strictObject({
  ...common,
  calls: int(0, 1_000).optional(),
  delayMs: int(0, 60_000).optional(),
  runKey: z.string().max(200).optional(),
  think: z.boolean().optional(),
  gated: z.boolean().optional(),
  failStart: z.boolean().optional(),
});

export const MODE_OPTIONS: Record<string, z.ZodType> = {
  agent: agentOptions,
  'zero-shot': agentOptions,
  'random-fewshot': agentOptions,
  'late-fusion': agentOptions,
  'structured-only': agentOptions,
  'unstructured-only': agentOptions,
  program: programOptions,
  rag: ragOptions,
  parametric: z.strictObject(common),
  'static-pipeline': pipelineOptions,
  'late-fusion-pipeline': pipelineOptions,
  'late-fusion-random': z.strictObject({ ...common, seed: seed.optional() }),
  'test-tool-loop': toolLoopOptions,
};

/** The shape every mode shares, for a mode this table does not know yet (its strategy coerces what it reads). */
const fallbackOptions = z.looseObject(common);

/** Keys only test builds read: accepted, but never offered in a 400's list of what a mode takes. */
const TEST_ONLY_KEYS = new Set(['testEvidence', 'testKgUrl']);

const keyOf = (path: readonly PropertyKey[]) => ['options', ...path.map(String)].join('.');

const describe = (issue: z.core.$ZodIssue, mode: string, allowed: string[]): string => {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys
      .map((k) => `${keyOf([...issue.path, k])} is not an option of mode "${mode}"${issue.path.length ? '' : ` (it takes: ${allowed.join(', ')})`}`)
      .join('; ');
  }
  if (issue.message.startsWith('options.')) return issue.message;
  return `${keyOf(issue.path)} (mode "${mode}"): ${issue.message}`;
};

/** Checks `options` against the mode's schema; a 400 `invalid_request` naming each offending key otherwise. */
export const checkOptions = (mode: string, options: unknown): Record<string, unknown> | undefined => {
  if (options === undefined) return undefined;
  const schema = MODE_OPTIONS[mode] ?? fallbackOptions;
  const parsed = schema.safeParse(options);
  if (parsed.success) return options as Record<string, unknown>;
  const allowed = schema instanceof z.ZodObject ? Object.keys(schema.shape).filter((k) => !TEST_ONLY_KEYS.has(k)) : [];
  throw new HttpError(400, 'invalid_request', parsed.error.issues.slice(0, 5).map((i) => describe(i, mode, allowed)).join('; '));
};
