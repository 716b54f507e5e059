import type { ForkSourceOutcome } from '../../durable-objects/run-object';
import { loadConfig, type Config } from '../config';
import type { RunRequest } from '../engine/types';
import { assertModel, assertReplayable, resolveOptions, type RunIdClaim } from './create';
import { HttpError } from './errors';
import { newRunId, runStub } from './stub';

export interface ForkAsk {
  fromStep: number;
  model?: string;
  /** Merged over the parent's options, and checked against its mode like a new request's. */
  options?: Record<string, unknown>;
}

/**
 * A new run from a stored step of `parentId`: its events up to that step are copied (not executed again) with the
 * strategy state after it, then it goes on. The fork's request is the parent's with the ask's options and model merged
 * in, checked as a new request's would be. Both calls on the objects are no-ops when a replayed claim made them.
 */
export const forkRun = async (env: Env, parentId: string, ask: ForkAsk, owner: string | undefined, claim: RunIdClaim): Promise<{ runId: string; replayed: boolean; config: Config }> => {
  const parent = runStub(env, parentId);
  const found = (await parent.forkSource(ask.fromStep, owner)) as ForkSourceOutcome;
  if (!found.ok) {
    if (found.code === 'not_found') throw new HttpError(404, 'not_found', `no run with id "${parentId.slice(0, 80)}"`);
    throw new HttpError(400, 'invalid_step', found.message);
  }
  const config = loadConfig(env as unknown as Record<string, unknown>);
  assertModel(config, env);
  const { variant, mode } = found.source.request;
  const merged = { ...(found.source.request.options ?? {}), ...(ask.options ?? {}), ...(ask.model ? { model: ask.model } : {}) };
  const resolvedOptions = resolveOptions(variant, mode, merged, config);
  await assertReplayable(env, resolvedOptions, owner);
  const request: RunRequest = { ...found.source.request, ...(Object.keys(merged).length ? { options: merged } : {}), resolvedOptions };
  const { runId, replayed } = await claim(newRunId());
  const link = { runId: parentId, fromStep: ask.fromStep };
  await runStub(env, runId).startFork(runId, request, link, found.source, owner);
  await parent.addFork({ runId, fromStep: ask.fromStep });
  return { runId, replayed, config };
};
