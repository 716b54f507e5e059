import type { Config } from '../config';
import { limitsFor } from '../engine/limits';
import { recipeOf } from '../engine/recipe';
import { samplingOf } from '../engine/sampling';
import type { Variant } from '../engine/types';
import { ragOptions } from '../strategies/rag/state';
import { AGENT_RECIPES } from '../strategies/hqa/recipes';

/**
 * The options a run of `variant` and `mode` works with once every default is applied: what an evaluation must
 * record to say what it ran (`recipe: null` in a manifest says nothing). GET /v1/config?variant=&mode=&options= shows
 * it; the eval CLI records it in the manifest.
 *
 * Until each strategy's options are one typed schema parsed once (issue "One meaning in one place"), the defaults
 * below restate what the strategies read (hqa/loop/start.ts, program/state.ts, rag/state.ts, the baselines); this is
 * the one function to point at that parse when it lands.
 */

type Options = Record<string, unknown>;

const int = (v: unknown, fallback: number, min: number, max: number) =>
  typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(min, Math.floor(v))) : fallback;

/** The agent libraries the variants bring (hqa/examples.ts); others borrow mintaka's. */
const AGENT_LIBRARIES = ['mintaka', 'qald9plus', 'compmix'];

/** The selection a baseline forces; otherwise `options.fewshot` (default dpp), or random for paper's late fusion. */
const FORCED_SELECTION: Record<string, string> = { 'zero-shot': 'zero-shot', 'random-fewshot': 'random' };
/** Which tools the agent of a mode may call (hqa/scope.ts). */
const SCOPE: Record<string, string> = { 'structured-only': 'graph (Wikidata tools only)', 'unstructured-only': 'text (Wikipedia tools only)', 'late-fusion': 'text and graph agents apart' };
const AGENT_MODES = ['agent', 'zero-shot', 'random-fewshot', 'late-fusion', 'structured-only', 'unstructured-only'];

const agentFamily = (mode: string, variant: Variant, o: Options, config: Config): Options => {
  const recipe = recipeOf(o);
  const selection = FORCED_SELECTION[mode] ?? (mode === 'late-fusion' && recipe === 'paper' ? 'random' : typeof o.fewshot === 'string' ? o.fewshot : 'dpp');
  return {
    fewshot: selection,
    k: selection === 'zero-shot' ? 0 : int(o.k, 3, 0, 10),
    seed: int(o.seed, 1, 0, 2 ** 31),
    library: typeof o.library === 'string' ? o.library : (config.FEWSHOT_LIBRARY ?? (AGENT_LIBRARIES.includes(variant) ? variant : 'mintaka')),
    maxIterations: int(o.maxIterations, AGENT_RECIPES[recipe].maxIterations, 1, 30),
    scope: SCOPE[mode] ?? 'text and graph (hybrid)',
    answerStyle: o.answerStyle === 'long' ? 'long' : 'short',
  };
};

/** Ours repairs twice and shows six worked examples; the paper refines once and showed four (program/state.ts). */
const programFamily = (o: Options): Options => {
  const paper = recipeOf(o) === 'paper';
  const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : fallback);
  return { refineRounds: num(o.refineRounds, paper ? 1 : 2), fewshot: num(o.fewshot, paper ? 4 : 6), simplify: o.simplify !== false };
};

const modeOptions = (mode: string, variant: Variant, o: Options, config: Config): Options => {
  if (AGENT_MODES.includes(mode)) return agentFamily(mode, variant, o, config);
  if (mode === 'program') return programFamily(o);
  if (mode === 'rag') {
    const { recipe: _recipe, ...rest } = ragOptions(o, variant);
    return rest;
  }
  if (mode === 'static-pipeline' || mode === 'late-fusion-pipeline') return { answerStyle: o.answerStyle === 'long' ? 'long' : 'short' };
  if (mode === 'late-fusion-random') return { seed: int(o.seed, 1, 0, 2 ** 31) };
  return {};
};

/** Every option of a run of this variant and mode, defaults applied (the options must already have passed checkOptions). */
export const resolvedOptionsFor = (variant: Variant, mode: string, options: Options | undefined, config: Config): Options => {
  const o = options ?? {};
  const sampling = samplingOf({ options: o });
  const replay = (o.evidence as { replay?: string } | undefined)?.replay ?? config.EVIDENCE_REPLAY ?? null;
  return {
    recipe: recipeOf(o),
    ...modeOptions(mode, variant, o, config),
    limits: limitsFor(config, { question: '', variant, mode, options: o }),
    model: typeof o.model === 'string' ? o.model : (config.LLM_MODEL ?? null),
    sampling: { seed: sampling.seed ?? null, temperature: sampling.temperature ?? null },
    booleanStyle: o.booleanStyle === 'true-false' ? 'true-false' : 'yes-no',
    abstain: o.abstain === true,
    abstainBelow: typeof o.abstainBelow === 'string' ? o.abstainBelow : null,
    evidenceReplay: replay,
  };
};
