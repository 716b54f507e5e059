/**
 * A per-minute request budget released smoothly: a token bucket that holds a small burst and refills through the
 * minute. A window that counts the last 60 s lets one caller spend the whole minute in its first second and leaves
 * every other caller a minute's wait; here a request needs a token, tokens come back one every 60 s / rate, and the
 * politeness gate hands each one to the caller whose key was served longest ago (fair-order.ts), so a key that asks
 * one thing at a time gets its share however much another key floods. Burst plus a minute's refill never exceeds the
 * budget, so no 60 s window sees more requests than it allows.
 */

/** Tokens in the bucket and when they were counted; a gate's state keeps it across restarts. */
export interface Bucket {
  tokens: number;
  at: number;
}

export interface BucketShape {
  /** Requests that may go at once after a quiet spell: a tenth of the minute's budget, at least 1. */
  burst: number;
  /** Tokens back per millisecond: the rest of the budget spread over the minute. */
  perMs: number;
}

const MINUTE = 60_000;

/**
 * The bucket of a budget: a burst of a tenth of it, the rest released evenly through the minute.
 * @example shapeOf(12) // { burst: 1, perMs: 11 / 60_000 }: one at once, then one every 5.5 s
 */
export const shapeOf = (perMinute: number): BucketShape => {
  const burst = Math.max(1, Math.floor(perMinute / 10));
  // A budget of 1 a minute has no rest to spread: its one token comes back after a minute.
  return { burst, perMs: Math.max(perMinute - burst, 1) / MINUTE };
};

/** The bucket as it stands at `now`: full for a gate that never sent, refilled by the time since it was counted. */
export const refilled = (bucket: Bucket | undefined, shape: BucketShape, now: number): Bucket =>
  bucket === undefined ? { tokens: shape.burst, at: now } : { tokens: Math.min(shape.burst, bucket.tokens + Math.max(0, now - bucket.at) * shape.perMs), at: now };

/** How long until the bucket holds a whole token (0: it holds one now). */
export const waitForToken = (bucket: Bucket, shape: BucketShape): number => (bucket.tokens >= 1 ? 0 : Math.ceil((1 - bucket.tokens) / shape.perMs));

/** Seconds between two tokens, for notes: "one every 5.5 s". */
export const releaseSeconds = (shape: BucketShape): string => {
  const s = 1 / shape.perMs / 1000;
  return s < 10 ? s.toFixed(1) : String(Math.round(s));
};
