import { sleep } from '../retry';
import type { BoardBackend } from './board';
import { tooLongNote, waitNote, type GateBackend, type GateParty, type GatePolicy, type GateReport, type WaitReason } from './policy';

/**
 * The POLITENESS_GATE binding, seen only through what the gate answers (one object per host, or per model server and
 * model; and the status board, one object of the same class: board.ts).
 */
export interface GateNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): GateBackend & BoardBackend;
}

export interface GateClient {
  /** The host's gate (one Durable Object per host) and what it enforces there. */
  backend: GateBackend;
  policy: GatePolicy;
  /** Name for notes and errors (query.wikidata.org). */
  host: string;
  /** The longest a request waits at the gate in all; a longer back-off fails the request unsent. */
  maxWaitMs: number;
  /** The run's signal: its wall time and cancel end a wait. */
  signal?: AbortSignal;
  /** Told once per request that had to wait, with a sentence for the run's trace. */
  onWait?: (note: string, ms: number) => void;
  /** Whose request this is (key and run): a gate serves those it holds in turn, key by key, then run by run. */
  party?: GateParty;
}

export type Pass =
  | { kind: 'cached'; body: string }
  | { kind: 'granted'; leave(report: GateReport): Promise<void> };

/** A request the gate would hold longer than the caller may wait: it is not sent at all. */
export class GateWaitTooLong extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GateWaitTooLong';
  }
}

/** A slot that came free within this long is not worth a note (one run's request simply followed another's). */
const NOTABLE_HOLD_MS = 250;

/**
 * Asks the host's gate until it grants a pass (or has the answer cached), sleeping through back-offs and budgets.
 * Every request to a gated host goes through here, retries included, so no run sends while another run's
 * Retry-After is running.
 * @example
 * const pass = await throughGate(client, cacheKey);
 * if (pass.kind === 'cached') return pass.body;
 * const res = await fetch(url); await pass.leave({ ms, status: res.status });
 */
export const throughGate = async (client: GateClient, cacheKey?: string): Promise<Pass> => {
  const started = Date.now();
  let reason: WaitReason | undefined;
  let detail: string | undefined;
  let held = 0;
  for (;;) {
    client.signal?.throwIfAborted();
    const admission = await client.backend.enter(client.policy, cacheKey, client.party);
    const waited = Date.now() - started;
    if (admission.kind === 'granted') held += admission.heldMs ?? 0;
    if (admission.kind !== 'wait') {
      // Told only when the gate made it wait: the round trip to the gate itself is no wait.
      if (reason || held >= NOTABLE_HOLD_MS) client.onWait?.(waitNote(client.host, waited, reason ?? 'busy', detail), waited);
      if (admission.kind === 'cached') return admission;
      const lease = admission.lease;
      if (client.signal?.aborted) {
        await client.backend.leave(lease, { ms: 0, status: -1 }).catch(() => {});
        client.signal.throwIfAborted();
      }
      return { kind: 'granted', leave: (report) => client.backend.leave(lease, cacheKey && report.body !== undefined ? { ...report, cacheKey } : report) };
    }
    // The most telling reason wins for the note: a back-off over a budget over a busy slot.
    if (!reason || rank(admission.reason) > rank(reason)) [reason, detail] = [admission.reason, admission.detail];
    if (waited + admission.ms > client.maxWaitMs) {
      throw new GateWaitTooLong(tooLongNote(client.host, admission.ms, waited, client.maxWaitMs, admission.reason, admission.detail));
    }
    if (admission.ms > 0) await sleep(admission.ms, client.signal);
  }
};

const RANK: Record<WaitReason, number> = { busy: 0, 'same-request': 1, requests: 2, 'query-time': 3, errors: 4, backoff: 5 };
const rank = (r: WaitReason) => RANK[r];
