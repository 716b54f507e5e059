import { OPEN_OWNER } from '../../src/storage/run-index';
import type { RunRequest } from '../../src/engine/types';
import type { Checkpoint, RawEvent, RunMeta, RunStore } from '../run-store';

/** What a fork copies from its parent: the request, the stored events up to the fork point and the checkpoints. */
export interface ForkSource {
  request: RunRequest;
  events: RawEvent[];
  checkpoints: Checkpoint[];
  replay?: { archiveId: string };
}

export type ForkSourceOutcome = { ok: true; source: ForkSource } | { ok: false; code: 'not_found' | 'invalid_step'; message: string };

/**
 * A fork's first half, read from the parent: its stored events up to step `fromStep` and the state after it.
 * Step 0 is the run before its first step; the step that ended a run has no state to continue from.
 */
export const forkSourceOf = (store: RunStore, meta: RunMeta, fromStep: number): ForkSourceOutcome => {
  const all = store.checkpoints();
  const at = all.find((c) => c.step === fromStep);
  if (!at) {
    const steps = all.map((c) => c.step);
    const range = steps.length ? `${steps[0]}–${steps[steps.length - 1]}` : 'none yet';
    return { ok: false, code: 'invalid_step', message: `fromStep ${fromStep} is not a stored step of this run (steps a fork can start after: ${range})` };
  }
  const checkpoints = all.filter((c) => c.step <= fromStep).map((c) => store.checkpoint(c.step)!);
  return { ok: true, source: { request: meta.request, events: store.rawEventsUpTo(at.lastEventId), checkpoints, replay: meta.replay } };
};

/** The new run's meta and events: the parent's state at the fork point, and its events with the `run` event renamed. */
export const forkedRun = (
  runId: string,
  request: RunRequest,
  parent: { runId: string; fromStep: number },
  source: ForkSource,
  owner: string | undefined,
  archiveId: string | undefined,
  now: number,
): { meta: RunMeta; events: RawEvent[] } => {
  const at = source.checkpoints[source.checkpoints.length - 1];
  const meta: RunMeta = {
    runId,
    request,
    status: at.state === undefined ? 'queued' : 'running',
    ...(at.state === undefined ? {} : { state: at.state }),
    usage: at.usage,
    steps: at.step,
    startedAt: now,
    owner: owner ?? OPEN_OWNER,
    parent,
    ...(archiveId ? { replay: { archiveId } } : {}),
  };
  // The `run` event names this run; every later event is the parent's, byte for byte.
  const events = source.events.map((e) =>
    e.type === 'run' ? { ...e, data: JSON.stringify({ runId, variant: request.variant, mode: request.mode, question: request.question }) } : e,
  );
  return { meta, events };
};
