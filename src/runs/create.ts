import { FIRST_EVENT_ID } from '../engine/first-event';
import type { RunRequest } from '../engine/types';
import { checkRunRequest, type RunBody } from './check';
import { firstEventThenRun, runStartedFrame } from './first-event-stream';
import { newRunId, runStub } from './stub';

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
