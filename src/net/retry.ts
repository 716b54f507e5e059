/**
 * The one retry loop of the service and its tools (model providers, live evidence, the eval client). Each caller
 * says which outcomes are worth another try and how long to wait (the providers and live evidence through the shared
 * policy of retry-policy.ts); the loop, the attempt cap, the abortable sleep and the Retry-After reading live here once.
 */

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface RetryOptions<T> {
  /** Attempts after the first. */
  retries: number;
  /**
   * How long to wait before trying again after this outcome (attempt counts from 0), or undefined to settle with it.
   * Only asked while retries remain; a response it retries is the caller's to discard.
   */
  retryIn: (outcome: Outcome<T>, attempt: number) => number | undefined;
  /** Aborts the wait between attempts. */
  signal?: AbortSignal;
}

/**
 * Runs `attempt` until an outcome is not retried or the retries are spent, then returns its value or throws its error.
 * @example
 * const res = await retrying(() => fetch(url), { retries: 2, retryIn: (o, n) => (o.ok && o.value.ok ? undefined : 250 * 2 ** n) });
 */
export const retrying = async <T>(attempt: (n: number) => Promise<T>, opts: RetryOptions<T>): Promise<T> => {
  for (let n = 0; ; n++) {
    let outcome: Outcome<T>;
    try {
      outcome = { ok: true, value: await attempt(n) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const wait = n < opts.retries ? opts.retryIn(outcome, n) : undefined;
    if (wait === undefined) {
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    }
    await sleep(wait, opts.signal);
  }
};

/** Read per RFC 9110 (digits or an HTTP date); anything else is ignored and logged: retry-after.ts. */
export { parseRetryAfter } from './retry-after';

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason ?? new Error('aborted'));
    });
  });
