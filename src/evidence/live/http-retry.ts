import type { Outcome } from '../../net/retry';
import { waitBeforeRetry, type Verdict } from '../../net/retry-policy';
import type { EvidenceError } from '../types';
import type { Exchange } from './http-answer';

export interface RetryPolicy {
  /** The host has an enforcing politeness gate, which holds the next attempt for as long as the host asked. */
  gated: boolean;
  /** Upper bound for one wait between attempts; without a gate, a longer Retry-After ends the retries unsent. */
  maxWaitMs: number;
}

/**
 * What one attempt of the live client says about the next: a network failure, a 429/5xx and a maxlag answer may pass,
 * and the wait the host asked of every client is its hold. A 2xx that is not a good answer is final.
 */
export const exchangeVerdict = (outcome: Outcome<Exchange>): Verdict => {
  if (!outcome.ok) return { transient: (outcome.error as EvidenceError).code === 'upstream' };
  const { status, backoffMs, maxlag } = outcome.value;
  return { transient: status === 429 || status >= 500 || !!maxlag, holdMs: backoffMs };
};

/**
 * How long to wait before the next attempt after this outcome, or undefined to settle with it (the shared policy of
 * net/retry-policy.ts): capped exponential backoff, and a host's own wait is the gate's to keep when there is one,
 * and is kept here (or given up, when longer than `maxWaitMs`) when there is not.
 * @example retryDelay({ ok: true, value: { status: 503, text: '' } }, 0, { gated: false, maxWaitMs: 5_000 }) // 250
 */
export const retryDelay = (outcome: Outcome<Exchange>, attempt: number, policy: RetryPolicy): number | undefined =>
  waitBeforeRetry(exchangeVerdict(outcome), attempt, {
    gated: policy.gated,
    backoff: (n, { holdMs }) => (holdMs === undefined ? Math.min(policy.maxWaitMs, 250 * 2 ** n) : holdMs <= policy.maxWaitMs ? holdMs : undefined),
  });
