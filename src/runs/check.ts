import { loadConfig, type Config } from '../config';
import { archiveInfo, type ArchiveBindings } from '../storage/archives';
import type { RunRequest, Strategy, Variant } from '../engine/types';
import { whyNoModel } from '../llm';
import { availableModes, defaultMode, strategyFor } from '../strategies';
import type { RunOptions } from '../engine/options';
import { HttpError } from './errors';
import { resolveOptions, type ResolvedOptions } from './resolve-options';

/** What a caller asks a run to do: POST /v1/answer's body, the chat facade's and MCP's `answer` arguments. */
export interface RunBody {
  question: string;
  variant?: Variant;
  mode?: string;
  context?: object;
  options?: Record<string, unknown>;
  conversation?: RunRequest['conversation'];
}

/** A request that passed every check: the variant and mode it runs (defaults filled in) and the options it runs with. */
export interface CheckedRun {
  config: Config;
  variant: Variant;
  mode: string;
  strategy: Strategy<unknown>;
  resolvedOptions: ResolvedOptions;
}

/**
 * Refuses, before a run starts, a replay of an archive the caller may not read: one that does not exist or that
 * another key uploaded answers 404 exactly alike, as a run of another key does. `caller` is the run owner
 * (undefined on an open server, which reads every archive as it lists every run). The deploy's own
 * EVIDENCE_REPLAY is the operator's choice, not the caller's, and is not checked here.
 */
export const assertReplayable = async (env: Env, options: Pick<RunOptions, 'evidence'>, caller: string | undefined): Promise<void> => {
  const id = options.evidence?.replay;
  if (id === undefined) return;
  const info = await archiveInfo(env as unknown as ArchiveBindings, id);
  if (!info || (caller !== undefined && info.owner !== caller)) {
    throw new HttpError(404, 'not_found', `no evidence archive with id "${id.slice(0, 80)}"; upload one with POST /v1/archives`);
  }
};

/** A model can answer the run: refused with 503 llm_unavailable otherwise (nothing is built to find out). */
export const assertModel = (config: Config, env: Env) => {
  const missing = whyNoModel(config, env);
  if (missing) throw new HttpError(503, 'llm_unavailable', missing);
};

/**
 * Everything a run request is checked for before a run exists (mode, options, context, replay archive, a model):
 * shared by POST /v1/answer, its `/check` twin, the chat facade and MCP, so a check and a run cannot disagree.
 */
export const checkRunRequest = async (env: Env, body: RunBody, owner?: string): Promise<CheckedRun> => {
  const config = loadConfig(env as unknown as Record<string, unknown>);
  const variant = body.variant ?? config.DEFAULT_VARIANT;
  const mode = body.mode ?? defaultMode(variant, config);
  const strategy = strategyFor(mode, config);
  if (!strategy) throw new HttpError(400, 'unknown_mode', `mode must be one of: ${availableModes(config).join(', ')}`);
  const resolvedOptions = resolveOptions(variant, mode, body.options, config);
  const contextProblem = strategy.checkContext?.(body.context as Record<string, unknown> | undefined);
  if (contextProblem) throw new HttpError(400, 'invalid_context', contextProblem);
  await assertReplayable(env, resolvedOptions, owner);
  assertModel(config, env);
  return { config, variant, mode, strategy, resolvedOptions };
};
