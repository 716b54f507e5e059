import * as z from 'zod';
import { TOOL_PROTOCOLS } from '../config-protocols';
import { CONFIDENCE_LEVELS } from './confidence';
import { RECIPES } from './recipe';

/**
 * A run's `options`: one strict zod schema per mode, declared beside its strategy with its bounds and defaults, parsed
 * once by the run service (src/runs/create.ts) and stored with the run. The engine reads the options every mode
 * shares (below); a strategy reads its own, typed, as `ctx.options`. /openapi.json lists each mode's schema as
 * components.schemas.Options_<mode>.
 */

/** A bounded integer option. */
export const intOption = (min: number, max?: number) => {
  const base = z.number().int().min(min);
  return max === undefined ? base : base.max(max);
};

/** Lowers the configured per-run limits (never raises them: a larger value is the configured one). */
const limitsSchema = z
  .strictObject({
    maxSteps: intOption(1).optional(),
    maxLLMCalls: intOption(1).optional(),
    maxWallMs: intOption(1).optional(),
    maxTokens: intOption(1).optional(),
  })
  .meta({ description: 'Lowers the deployment\'s per-run limits for this run (a larger value keeps the configured one).' });

/** Every mode takes these; the engine acts on them (limits, answer format, attribution, evidence, model). */
export const COMMON_OPTIONS = {
  recipe: z
    .enum(RECIPES, { message: `options.recipe must be one of: ${RECIPES.join(', ')} (see docs/FIDELITY.md)` })
    .default('ours')
    .meta({ description: '"ours" (default) or "paper": the published recipe, where the mode has one (docs/FIDELITY.md).' }),
  limits: limitsSchema.optional(),
  booleanStyle: z
    .enum(['yes-no', 'true-false'])
    .default('yes-no')
    .meta({ description: '"true-false" writes a bare yes/no answer as true/false.' }),
  evidence: z
    .strictObject({ replay: z.string().regex(/^arc_[0-9a-f]{32}$/, { message: 'options.evidence.replay must be an archive id from POST /v1/archives' }) })
    .optional()
    .meta({ description: 'replay: serve the run\'s evidence from this uploaded archive (POST /v1/archives; docs/ARCHIVE.md) instead of the snapshot or Wikimedia' }),
  model: z.string().trim().min(1).max(200).optional().meta({ description: 'the model for this run instead of the deployment\'s LLM_MODEL (a fork\'s `model`)' }),
  abstain: z
    .boolean()
    .default(false)
    .meta({ description: 'answer "I don\'t know" when no supported source backs the answer (confidence none) or the supported sources disagree (conflict); docs/CONFIDENCE.md' }),
  abstainBelow: z
    .enum(CONFIDENCE_LEVELS, { message: `options.abstainBelow must be a confidence level: ${CONFIDENCE_LEVELS.join(', ')} (docs/CONFIDENCE.md)` })
    .optional()
    .meta({ description: `answer "I don't know" when the confidence is under this level (${CONFIDENCE_LEVELS.join(' < ')}); the answer step records abstainedBelow; docs/CONFIDENCE.md` }),
  supportCheck: z
    .enum(['structure', 'model'], { message: 'options.supportCheck must be "structure" or "model" (docs/CONFIDENCE.md)' })
    .default('structure')
    .meta({
      description:
        'how a verified citation is graded supports or mentions: "structure" (default, by rules) or "model" (one call with purpose verify per answer judges each answer–quote pair; recorded with the run\'s evidence and replayed from it); docs/CONFIDENCE.md',
    }),
  sampling: z
    .strictObject({
      seed: intOption(0, 2 ** 31).optional().meta({ description: 'sent to the model as `seed` with every call of the run (an evaluation\'s epochs use one each)' }),
      temperature: z.number().min(0).max(2).optional().meta({ description: 'every model call of the run at this temperature instead of its purpose\'s (GET /v1/config lists those)' }),
    })
    .optional()
    .meta({ description: 'how the run\'s model calls sample: a seed and a temperature for all of them (src/engine/sampling.ts)' }),
  toolProtocol: z
    .enum(TOOL_PROTOCOLS, { message: `options.toolProtocol must be one of: ${TOOL_PROTOCOLS.join(', ')} (docs/CONFIGURATION.md, "Tool protocol")` })
    .optional()
    .meta({ description: 'how the model is spoken to: "text" (tools described in the prompt, replies parsed), "native" (tools as functions, JSON-schema replies for structured steps), "auto" (native where the model is known to support it); default LLM_TOOL_PROTOCOL; recipe "paper" is always text (docs/FIDELITY.md)' }),
};

type CommonShape = typeof COMMON_OPTIONS;

/** The options every mode shares, as the engine reads them: parsed, defaults filled in. */
export type RunOptions = z.output<z.ZodObject<CommonShape>>;

/** What a mode's schema parses a request's options into, before the defaults that depend on the recipe or variant. */
export type ParsedOptions<S extends z.ZodRawShape> = z.output<z.ZodObject<CommonShape & S>>;

/** A mode's options: what a request may send, and how the run's typed options follow from it. */
export interface ModeOptions<O = RunOptions> {
  /** Strict (any other key is a 400 naming it), with each option's bounds and the defaults that hold for every run. */
  readonly schema: z.ZodObject;
  /**
   * The run's options from what the schema parsed and the request's variant: fills in the defaults that depend on the
   * recipe (read from the mode's recipe table) or on the variant.
   */
  readonly resolve: (parsed: never, variant: string) => O;
}

/** The typed options a mode's runs read (`ctx.options`). */
export type OptionsOf<M> = M extends ModeOptions<infer O> ? O : never;

/**
 * Declares a mode's options: the common ones plus `shape`, and `resolve` for the defaults that depend on the recipe or
 * the variant (without it, the parsed options are the run's).
 * @example const programOptions = defineOptions({ simplify: z.boolean().default(true) }, (o) => ({ ...o, refineRounds: o.refineRounds ?? 2 }));
 */
export const defineOptions = <S extends z.ZodRawShape, O = ParsedOptions<S>>(
  shape: S,
  resolve?: (parsed: ParsedOptions<S>, variant: string) => O,
): ModeOptions<O> => ({
  schema: z.strictObject({ ...COMMON_OPTIONS, ...shape }),
  resolve: ((parsed: ParsedOptions<S>, variant: string) => (resolve ? resolve(parsed, variant) : parsed)) as ModeOptions<O>['resolve'],
});

/** Options a request may not send to its mode; the message names each offending key and what the mode takes. */
export class OptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionsError';
  }
}

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

/**
 * A request's options as its run reads them: checked against the mode's schema, every default filled in. Throws an
 * OptionsError naming each offending key (at most five).
 */
export const parseOptions = <O>(spec: ModeOptions<O>, mode: string, variant: string, options: unknown): O => {
  const parsed = spec.schema.safeParse(options ?? {});
  if (parsed.success) return spec.resolve(parsed.data as never, variant);
  const allowed = Object.keys(spec.schema.shape);
  throw new OptionsError(parsed.error.issues.slice(0, 5).map((i) => describe(i, mode, allowed)).join('; '));
};

/**
 * The options of a run stored by older code, which kept them as sent: parsed like a new request's; a key this code no
 * longer takes (or no longer takes in that form) is left out rather than failing a run that was valid when it began.
 */
export const parseStoredOptions = <O>(spec: ModeOptions<O>, mode: string, variant: string, options: unknown): O => {
  const parsed = spec.schema.safeParse(options ?? {});
  if (parsed.success) return spec.resolve(parsed.data as never, variant);
  const bad = new Set(parsed.error.issues.flatMap((i) => (i.code === 'unrecognized_keys' && !i.path.length ? i.keys : i.path.slice(0, 1).map(String))));
  const kept = Object.fromEntries(Object.entries((options ?? {}) as Record<string, unknown>).filter(([k]) => !bad.has(k)));
  return parseOptions(spec, mode, variant, kept);
};
