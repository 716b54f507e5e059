import type { GateReport } from '../net/politeness/policy';
import { retrying } from '../net/retry';
import { heldFor, type Verdict } from '../net/retry-policy';
import { retryBudget } from './call-budget';
import { throughModelGate, type ModelGate } from './model-gate';
import { LLMError, type ChatScope } from './types';

export interface ModelRetry {
  /** Attempts after the first. */
  retries: number;
  /** How long to wait before attempt `attempt + 1` after a failure worth retrying; undefined settles. */
  waitFor: (attempt: number, error: unknown) => number | undefined;
}

/**
 * A model call with retries, as both providers make it: every attempt, retries included, through the model's gate
 * (model-gate.ts) with the caller told of each retry; the two budget errors judged by `retryBudget`, and nothing tried
 * again once the caller gave up. How long to wait is the provider's.
 */
export const callWithRetries = <T>(scope: ChatScope, gate: ModelGate | undefined, retry: ModelRetry, call: (report: GateReport) => Promise<T>): Promise<T> => {
  const worthRetrying = retryBudget();
  const attempt = (n: number) => {
    if (n > 0) scope.onRetry?.();
    return throughModelGate(gate, scope, call);
  };
  return retrying(attempt, {
    retries: retry.retries,
    signal: scope.signal,
    retryIn: (outcome, n) => (outcome.ok || !worthRetrying(outcome.error) || scope.signal?.aborted ? undefined : retry.waitFor(n, outcome.error)),
  });
};

/**
 * A model call's failure as the shared retry policy reads it: its Retry-After, and the hold its status asks of every
 * run (a 429 without Retry-After: `defaultHoldMs`).
 */
export const modelVerdict = (err: unknown, defaultHoldMs: number): Verdict => {
  if (!(err instanceof LLMError)) return { transient: false };
  return { transient: err.retryable, retryAfterMs: err.retryAfterMs, holdMs: heldFor(err.status, err.retryAfterMs, defaultHoldMs) };
};
