import type { Config } from '../config';
import type { RunOptions } from './options';

export interface RunLimits {
  maxSteps: number;
  maxLLMCalls: number;
  maxWallMs: number;
  maxTokens: number;
}

const lower = (configured: number, requested: number | undefined) => (requested === undefined ? configured : Math.min(configured, requested));

/** The run's limits: the configured ones, which a request may lower (never raise) with `options.limits`. */
export const limitsFor = (config: Config, options: Pick<RunOptions, 'limits'>): RunLimits => {
  const asked = options.limits ?? {};
  return {
    maxSteps: lower(config.MAX_STEPS, asked.maxSteps),
    maxLLMCalls: lower(config.MAX_LLM_CALLS, asked.maxLLMCalls),
    maxWallMs: lower(config.MAX_WALL_MS, asked.maxWallMs),
    maxTokens: lower(config.MAX_TOKENS, asked.maxTokens),
  };
};

/** The longest question a run takes (the API's limit), and so the longest a chat's rewritten question may be. */
export const MAX_QUESTION_CHARS = 2_000;
