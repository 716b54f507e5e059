import type { Outcome } from '../../net/retry';
import type { EvidenceError } from '../types';
import type { Exchange } from './http-answer';

export interface RetryPolicy {
  /** The host has an enforcing politeness gate, which holds the next attempt for as long as the host asked. */
  gated: boolean;
  /** Upper bound for one wait between attempts; without a gate, a longer Retry-After ends the retries unsent. */
  maxWaitMs: number;
}

/**
 * How long to wait before the next attempt after this outcome, or undefined to settle with it: network failures and
 * 429/5xx/maxlag answers are tried again with capped exponential backoff; a host's own wait is the gate's to keep when
 * there is one, and is kept here (or given up) when there is not. A 2xx that is not a good answer is not retried.
 * @example retryDelay({ ok: true, value: { status: 503, text: '' } }, 0, { gated: false, maxWaitMs: 5_000 }) // 250
 */
export const retryDelay = (outcome: Outcome<Exchange>, attempt: number, policy: RetryPolicy): number | undefined => {
  const backoff = Math.min(policy.maxWaitMs, 250 * 2 ** attempt);
  if (!outcome.ok) return (outcome.error as EvidenceError).code === 'upstream' ? backoff : undefined;
  const { status, backoffMs, maxlag } = outcome.value;
  if (status !== 429 && status < 500 && !maxlag) return undefined;
  if (backoffMs !== undefined) return policy.gated ? 0 : backoffMs <= policy.maxWaitMs ? backoffMs : undefined;
  return backoff;
};
