import { sleep } from '../retry';
import type { CallScope } from '../scope';
import type { BoardBackend } from './board';
import { tooLongNote, waitNote, type GateBackend, type GatePolicy, type GateReport, type WaitReason } from './policy';

/**
 * The POLITENESS_GATE binding, seen only through what the gate answers (one object per host, or per model server and
 * model; and the status board, one object of the same class: board.ts).
 */
export interface GateNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): GateBackend & BoardBackend;
}

/** A host's politeness gate as its callers ask it; who asks, and what they are told, is the CallScope of each request. */
export interface Gate {
  /** The host's gate (one Durable Object per host) and what it enforces there. */
  backend: GateBackend;
  policy: GatePolicy;
  /** Name for notes and errors (query.wikidata.org). */
  host: string;
  /** The longest a request waits at the gate in all; a longer back-off fails the request unsent. */
  maxWaitMs: number;
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
 * const pass = await throughGate(gate, scope, cacheKey);
 * if (pass.kind === 'cached') return pass.body;
 * const res = await fetch(url); await pass.leave({ ms, status: res.status });
 */
export const throughGate = async (gate: Gate, scope: CallScope, cacheKey?: string): Promise<Pass> => {
  const started = Date.now();
  let reason: WaitReason | undefined;
  let detail: string | undefined;
  let held = 0;
  for (;;) {
    scope.signal?.throwIfAborted();
    const admission = await gate.backend.enter(gate.policy, cacheKey, scope.party);
    const waited = Date.now() - started;
    if (admission.kind === 'granted') held += admission.heldMs ?? 0;
    if (admission.kind !== 'wait') {
      // Told only when the gate made it wait: the round trip to the gate itself is no wait.
      // Told once per request that had to wait.
      if (reason || held >= NOTABLE_HOLD_MS) scope.onWait?.(waitNote(gate.host, waited, reason ?? 'busy', detail), waited);
      if (admission.kind === 'cached') return admission;
      const lease = admission.lease;
      if (scope.signal?.aborted) {
        await gate.backend.leave(lease, { ms: 0, status: -1 }).catch(() => {});
        scope.signal.throwIfAborted();
      }
      return { kind: 'granted', leave: (report) => gate.backend.leave(lease, cacheKey && report.body !== undefined ? { ...report, cacheKey } : report) };
    }
    // The most telling reason wins for the note: a back-off over a budget over a busy slot.
    if (!reason || rank(admission.reason) > rank(reason)) [reason, detail] = [admission.reason, admission.detail];
    if (waited + admission.ms > gate.maxWaitMs) {
      throw new GateWaitTooLong(tooLongNote(gate.host, admission.ms, waited, gate.maxWaitMs, admission.reason, admission.detail));
    }
    if (admission.ms > 0) await sleep(admission.ms, scope.signal);
  }
};

const RANK: Record<WaitReason, number> = { busy: 0, 'same-request': 1, requests: 2, 'query-time': 3, errors: 4, backoff: 5 };
const rank = (r: WaitReason) => RANK[r];
