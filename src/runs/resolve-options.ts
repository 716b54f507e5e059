import type { Config } from '../config';
import { OptionsError, parseOptions, type RunOptions } from '../engine/options';
import type { Variant } from '../engine/types';
import { availableModes, strategyFor } from '../strategies';
import { HttpError } from './errors';

/** A run's options as resolved: those every mode shares (typed), and the mode's own beside them. */
export type ResolvedOptions = RunOptions & Readonly<Record<string, unknown>>;

/**
 * The options a run of `mode` on `variant` runs with: the mode's schema (declared beside its strategy) parsed once,
 * every default filled in, including those that follow from the recipe or the variant. The run service stores the
 * result with the run (`RunRequest.resolvedOptions`); strategies read it as `ctx.options`. A 400 `unknown_mode` for a
 * mode this deployment does not run, a 400 `invalid_request` naming each key the mode does not take or a wrong value.
 * @example resolveOptions('crag', 'rag', { recipe: 'paper' }, config) // { recipe: 'paper', attributeSamples: 5, dynamicPolicy: 'abstain', … }
 */
export const resolveOptions = (variant: Variant, mode: string, options: Record<string, unknown> | undefined, config: Config): ResolvedOptions => {
  const strategy = strategyFor(mode, config);
  if (!strategy) throw new HttpError(400, 'unknown_mode', `mode must be one of: ${availableModes(config).join(', ')}`);
  try {
    return parseOptions(strategy.options, mode, variant, options);
  } catch (err) {
    if (err instanceof OptionsError) throw new HttpError(400, 'invalid_request', err.message);
    throw err;
  }
};
