import type { Config } from '../config';
import { limitsFor } from '../engine/limits';
import { RUN_RECIPES } from '../engine/recipes';
import { samplingOf } from '../engine/sampling';
import type { Variant } from '../engine/types';
import { strategyFor } from '../strategies';
import { agentLibraryName } from '../strategies/hqa/examples';
import { resolveOptions } from './create';

/**
 * The options a run of `variant` and `mode` works with, as an evaluation must record them to say what it ran
 * (`recipe: null` in a manifest says nothing): the mode's options as the run service resolves them
 * (./create.ts, every default filled in), and beside them what the run reads from the deployment — the
 * few-shot library it selects from, its limits once lowered, its model, its sampling, its tool protocol, its evidence
 * replay. GET /v1/config?variant=&mode=&options= shows it; the eval CLI records it in the manifest. A 400 as
 * POST /v1/answer would give for a mode or options it refuses.
 */
export const resolvedOptionsFor = (variant: Variant, mode: string, options: Record<string, unknown> | undefined, config: Config): Record<string, unknown> => {
  const o = resolveOptions(variant, mode, options, config);
  const sampling = samplingOf(o);
  // The agent family's schema takes `library`; its runs select from the library this names.
  const selects = 'library' in (strategyFor(mode, config)?.options.schema.shape ?? {});
  return {
    ...o,
    ...(selects ? { library: agentLibraryName(typeof o.library === 'string' ? o.library : undefined, config.FEWSHOT_LIBRARY, variant) } : {}),
    limits: limitsFor(config, o),
    model: o.model ?? config.LLM_MODEL ?? null,
    sampling: { seed: sampling.seed ?? null, temperature: sampling.temperature ?? null },
    // null: each purpose's protocol from the deployment (GET /v1/config purposes.*.toolProtocol).
    toolProtocol: RUN_RECIPES[o.recipe].textOnly ? 'text' : (o.toolProtocol ?? null),
    abstainBelow: o.abstainBelow ?? null,
    evidenceReplay: o.evidence?.replay ?? (config.EVIDENCE_REPLAY || null),
  };
};
