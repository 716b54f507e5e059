import type { RunObject } from '../../durable-objects/run-object';
import type { RunView } from '../engine/run-view';
import { retrying } from '../net/retry';
import { HttpError } from './errors';

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const newRunId = () => crypto.randomUUID();

/** The run's Durable Object; a malformed id is a 404 rather than a new, empty object. */
export const runStub = (env: Env, runId: string): DurableObjectStub<RunObject> => {
  if (!RUN_ID.test(runId)) throw new HttpError(404, 'not_found', `no run with id "${runId.slice(0, 80)}"`);
  return env.RUNS.get(env.RUNS.idFromName(runId)) as DurableObjectStub<RunObject>;
};

/**
 * Waits for the run to end. If the object is evicted or restarted while we wait, the call breaks;
 * the run itself goes on (its alarm resumes it), so we simply ask again.
 */
export const waitForRun = async (stub: DurableObjectStub<RunObject>, attempts = 20): Promise<RunView | null> => {
  const wait = async () => (await stub.wait()) as RunView | null;
  return retrying(wait, { retries: attempts, retryIn: (outcome, n) => (outcome.ok ? undefined : Math.min(2_000, 50 * 2 ** n)) });
};

/** Opens the run's event stream from after `after`; with `caller`, a run of another owner is a 404. */
export const runEvents = (stub: DurableObjectStub<RunObject>, after: number, caller?: string) =>
  stub.fetch(`https://run/events?after=${after}${caller ? `&caller=${encodeURIComponent(caller)}` : ''}`);
