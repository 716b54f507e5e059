import type { Config } from '../config';
import { redact } from './redact';
import type { EventInput, RunEvent, RunRequest } from './types';
import { emptyUsage } from './usage';

/** The id of a new run's first event, the `run` event: nothing is stored before it. */
export const FIRST_EVENT_ID = 1;

type RunStartedEvent = Extract<EventInput, { type: 'run' }>;

/** A new run's first event: everything in it is known before the run's object exists. */
export const runStarted = (runId: string, request: RunRequest): RunStartedEvent => ({
  type: 'run',
  data: { runId, variant: request.variant, mode: request.mode, question: request.question },
});

/**
 * The `run` event as its object will store and replay it (scrubbed of secrets the same way, numbered first), so the
 * API can send it before the object is set up.
 */
export const firstEvent = (config: Config, runId: string, request: RunRequest): RunEvent => {
  const data = JSON.parse(redact(JSON.stringify(runStarted(runId, request).data), config.secrets)) as RunStartedEvent['data'];
  return { id: FIRST_EVENT_ID, type: 'run', data, at: 0 };
};

/**
 * What follows the first event when the run's object could not be set up: an `error` and a `done` (status `failed`),
 * numbered on from the first, as a run that failed at once would end. Whether the object stored the run before it
 * failed, GET /v1/runs/{id} says.
 */
export const startFailed = (message: string): RunEvent[] => [
  { id: FIRST_EVENT_ID + 1, type: 'error', data: { code: 'start_failed', message }, at: 0 },
  { id: FIRST_EVENT_ID + 2, type: 'done', data: { status: 'failed', usage: emptyUsage(), timings: { totalMs: 0, steps: 0, firstAnswerTokenMs: null } }, at: 0 },
];
