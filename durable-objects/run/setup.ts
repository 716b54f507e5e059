import type { Config } from '../../src/config';
import { forRequest } from '../../src/engine/conversation';
import { limitsFor, type RunLimits } from '../../src/engine/limits';
import { OptionsError, parseStoredOptions, type RunOptions } from '../../src/engine/options';
import { createToolRegistry } from '../../src/engine/services';
import type { RunRequest, Strategy } from '../../src/engine/types';
import { createLLM, type LLMAvailability } from '../../src/llm';
import { strategyFor, strategyTools } from '../../src/strategies';
import type { ToolRegistry } from '../../src/tools/types';
import { replayArchiveOf } from './evidence';

/** What a run runs with: its config, options, limits, strategy and tools. */
export interface RunSetup {
  config: Config;
  /** The run's options as the run service resolved them (src/runs/create.ts). */
  options: RunOptions;
  limits: RunLimits;
  strategy: Strategy<unknown>;
  tools: ToolRegistry;
}

export type SetupOutcome = { ok: true; setup: RunSetup } | { ok: false; code: string; message: string };

/** `options.model` (a fork's `model`) runs the run on another model than the deploy's LLM_MODEL. */
const withModel = (config: Config, options: RunOptions): Config => (options.model ? { ...config, LLM_MODEL: options.model } : config);

/**
 * The options a stored run runs with: those the run service resolved and stored with it, or, for a run stored by
 * older code (which kept only what was sent), its mode's schema parsed now. Undefined when its mode is not deployed.
 */
export const runOptionsOf = (request: RunRequest, config: Config): RunOptions | undefined => {
  if (request.resolvedOptions) return request.resolvedOptions;
  const strategy = strategyFor(request.mode, config);
  return strategy && parseStoredOptions(strategy.options, request.mode, request.variant, request.options);
};

/** The archive a new run replays (its options' `evidence.replay`, else EVIDENCE_REPLAY); options it cannot read name none. */
export const replayFor = (request: RunRequest, config: Config): string | undefined => {
  try {
    return replayArchiveOf(runOptionsOf(request, config), config);
  } catch (err) {
    if (err instanceof OptionsError) return replayArchiveOf(undefined, config);
    throw err;
  }
};

/**
 * A run's setup, resolved once per object instance from its stored request (which never changes) and the deploy's
 * config (parsed once per isolate): the API checked the same request before the run existed (src/runs/create.ts), and
 * every step after the first reuses this. A mode that is no longer deployed fails the run.
 */
export const resolveSetup = (base: Config, request: RunRequest): SetupOutcome => {
  // A chat run with earlier turns makes its question self-contained first (src/engine/conversation).
  const strategy = forRequest(strategyFor(request.mode, base), request);
  if (!strategy) return { ok: false, code: 'unknown_mode', message: `mode "${request.mode}" is not available` };
  let options: RunOptions;
  try {
    options = runOptionsOf(request, base)!;
  } catch (err) {
    if (err instanceof OptionsError) return { ok: false, code: 'invalid_request', message: err.message };
    throw err;
  }
  const config = withModel(base, options);
  return { ok: true, setup: { config, options, limits: limitsFor(config, options), strategy, tools: createToolRegistry(strategyTools(config)) } };
};

/**
 * The run's model. Providers are kept per config (src/llm), and the setup's config is one object per run, so this
 * builds the provider once per run; the tests' scripted double is asked again each step, as they may change it.
 */
export const modelOf = (setup: RunSetup, env: Env): LLMAvailability => createLLM(setup.config, env);
