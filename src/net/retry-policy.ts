/**
 * The retry policy the model providers and the live evidence client share, as pure functions. Each protocol
 * classifies a failed attempt into a `Verdict` (its own file says what counts as transient: an SDK error, an HTTP
 * exchange, a binding's error); what a verdict means for the next attempt is decided here once. The loop that
 * applies it is `retrying` (retry.ts).
 */

/** What one failed attempt says about the next, whatever protocol it came from. */
export interface Verdict {
  /** The failure may pass: the network, a timeout, 429, 5xx, a lagging or malformed answer. */
  transient: boolean;
  /** The server's Retry-After, when it named one (on any status). */
  retryAfterMs?: number;
  /** How long the server asked every client to hold back (a 429, a 503 that names its wait, MediaWiki's maxlag). */
  holdMs?: number;
}

export interface WaitRule {
  /**
   * An enforcing politeness gate stands before the next attempt: it keeps the server's hold for this caller and every
   * other, so the next attempt goes to the gate at once instead of waiting here as well.
   */
  gated: boolean;
  /** The wait otherwise, by attempt (counted from 0); undefined settles with this outcome. */
  backoff: (attempt: number, verdict: Verdict) => number | undefined;
}

/**
 * How long to wait before the next attempt, or undefined to settle: a failure that will not pass is final, a hold an
 * enforcing gate keeps costs no wait here, and anything else waits as the caller's backoff says.
 * @example waitBeforeRetry({ transient: true, holdMs: 2_000 }, 0, { gated: true, backoff: () => 250 }) // 0
 */
export const waitBeforeRetry = (verdict: Verdict, attempt: number, rule: WaitRule): number | undefined => {
  if (!verdict.transient) return undefined;
  if (rule.gated && verdict.holdMs !== undefined) return 0;
  return rule.backoff(attempt, verdict);
};

/**
 * The hold a status asks of every client: a 429 always (for its Retry-After, else `defaultMs`), a 503 only when it
 * names a wait; undefined for anything else.
 * @example heldFor(429, undefined, 5_000) // 5000
 */
export const heldFor = (status: number | undefined, retryAfterMs: number | undefined, defaultMs: number): number | undefined =>
  status === 429 || (status === 503 && retryAfterMs !== undefined) ? (retryAfterMs ?? defaultMs) : undefined;

/** Statuses worth another attempt (no status: the request never got an answer). */
export const isRetryableStatus = (status: number | undefined) =>
  status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;

/** Capped exponential backoff with jitter; a server's Retry-After wins when it asks for longer. */
export const backoffMs = (attempt: number, retryAfterMs: number | undefined, opts = { baseMs: 250, capMs: 8_000 }) => {
  const exp = Math.min(opts.capMs, opts.baseMs * 2 ** attempt);
  const jittered = exp / 2 + Math.random() * (exp / 2);
  return retryAfterMs !== undefined ? Math.min(Math.max(retryAfterMs, jittered / 4), 60_000) : jittered;
};
