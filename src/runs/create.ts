import { loadConfig, type Config } from '../config';
import { FIRST_EVENT_ID } from '../engine/first-event';
import { OptionsError, parseOptions, type RunOptions } from '../engine/options';
import type { RunRequest, Strategy, Variant } from '../engine/types';
import { whyNoModel } from '../llm';
import { archiveInfo, type ArchiveBindings } from '../storage/archives';
import { availableModes, defaultMode, strategyFor } from '../strategies';
import { HttpError } from './errors';
import { firstEventThenRun, runStartedFrame } from './first-event-stream';
import { newRunId, runStub } from './stub';

/*
 * The run service's way in, in the order a request meets it: the request checked and its options resolved once
 * (checkRunRequest, resolveOptions), then the run created in its own object (createRun). POST /v1/answer and its
 * `/check` twin, the chat facade, MCP's `answer` tool and forks all come through here.
 */

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

/** The run id a new run gets: a fresh one, or the one an earlier request with the same Idempotency-Key claimed. */
export type RunIdClaim = (candidate: string) => Promise<{ runId: string; replayed: boolean }>;

export const freshRunId: RunIdClaim = async (runId) => ({ runId, replayed: false });

export interface CreateOptions {
  /** The caller reads the run's event stream: it comes back with the start, from the `run` event on. */
  follow?: boolean;
  /** Keeps the run's set-up going after the response has left (the Worker's `waitUntil`). */
  waitUntil?: (p: Promise<unknown>) => void;
  /** Puts a failed start in the caller's words (a local state folder deleted under the server). */
  explain?: (err: unknown) => Promise<string | undefined>;
}

/**
 * The run service's one way in: checks the request (checkRunRequest), claims the run id, and hands the run to its
 * own object. POST /v1/answer, the chat facade and MCP's `answer` tool all start runs here. With `follow`, a new
 * run's first event leaves at once and the object is set up behind it; `events` is the run's stream.
 */
export const createRun = async (env: Env, body: RunBody, owner?: string, claim: RunIdClaim = freshRunId, how: CreateOptions = {}) => {
  const { config, variant, mode, resolvedOptions } = await checkRunRequest(env, body, owner);
  // Claimed after validation, so a rejected request never holds an Idempotency-Key.
  const { runId, replayed } = await claim(newRunId());
  const request: RunRequest = {
    question: body.question,
    variant,
    mode,
    ...(body.context ? { context: body.context as Record<string, unknown> } : {}),
    ...(body.options ? { options: body.options } : {}),
    resolvedOptions,
    ...(body.conversation?.length ? { conversation: body.conversation } : {}),
  };
  const stub = runStub(env, runId);
  const made = { runId, stub, request, replayed, config };
  // On a replay the run exists and this is a no-op; it creates the run if the claiming request died before it could.
  if (how.follow && !replayed) {
    const events = firstEventThenRun(runStartedFrame(config, runId, request), () => stub.start(runId, request, owner, FIRST_EVENT_ID), how.waitUntil, how.explain);
    return { ...made, events };
  }
  // `follow` on a replay: the run's event stream from its first event comes back with the same call.
  const { events } = await stub.start(runId, request, owner, how.follow ? 0 : undefined);
  return { ...made, events };
};
