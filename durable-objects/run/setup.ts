import type { Config } from '../../src/config';
import { forRequest } from '../../src/engine/conversation';
import { limitsFor, type RunLimits } from '../../src/engine/limits';
import { createToolRegistry } from '../../src/engine/services';
import type { RunRequest, Strategy } from '../../src/engine/types';
import { createLLM, type LLMAvailability } from '../../src/llm';
import { strategyFor, strategyTools } from '../../src/strategies';
import type { ToolRegistry } from '../../src/tools/types';
import { withTestOverrides } from './evidence';

/** What a run runs with: its config, limits, strategy and tools. */
export interface RunSetup {
  config: Config;
  limits: RunLimits;
  strategy: Strategy<unknown>;
  tools: ToolRegistry;
}

export type SetupOutcome = { ok: true; setup: RunSetup } | { ok: false; code: string; message: string };

/** `options.model` (a fork's `model`) runs the run on another model than the deploy's LLM_MODEL. */
const withModel = (config: Config, request: RunRequest): Config => {
  const model = request.options?.model;
  return typeof model === 'string' && model.trim() ? { ...config, LLM_MODEL: model.trim() } : config;
};

/**
 * A run's setup, resolved once per object instance from its stored request (which never changes) and the deploy's
 * config (parsed once per isolate): the API checked the same request before the run existed (src/runs/check.ts), and
 * every step after the first reuses this. A mode that is no longer deployed fails the run.
 */
export const resolveSetup = (base: Config, request: RunRequest): SetupOutcome => {
  const config = withTestOverrides(withModel(base, request), request);
  // A chat run with earlier turns makes its question self-contained first (src/engine/conversation).
  const strategy = forRequest(strategyFor(request.mode, config), request);
  if (!strategy) return { ok: false, code: 'unknown_mode', message: `mode "${request.mode}" is not available` };
  return { ok: true, setup: { config, limits: limitsFor(config, request), strategy, tools: createToolRegistry(strategyTools(config)) } };
};

/**
 * The run's model. Providers are kept per config (src/llm), and the setup's config is one object per run, so this
 * builds the provider once per run; the tests' scripted double is asked again each step, as they may change it.
 */
export const modelOf = (setup: RunSetup, env: Env): LLMAvailability => createLLM(setup.config, env);
