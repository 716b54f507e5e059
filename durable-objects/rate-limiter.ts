import { DurableObject } from 'cloudflare:workers';
import { applyMigrations, type ObjectMigration } from './object-migrations';

/** How the rate limiter's storage has changed (object-migrations.ts). Append only. */
const LIMITER_MIGRATIONS: readonly ObjectMigration[] = [
  {
    version: 1,
    change: "a caller's token bucket in one row",
    tables: ['CREATE TABLE IF NOT EXISTS bucket (id INTEGER PRIMARY KEY CHECK (id = 1), tokens REAL NOT NULL, updated_ms INTEGER NOT NULL)'],
  },
];

export interface TakeResult {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until one token is back (0 when allowed). */
  retryAfterSeconds: number;
}

/**
 * A token bucket per caller (one object per API key hash or client IP). The bucket holds `perMinute` tokens and
 * refills continuously at perMinute/60 s, so a burst of a minute's quota is allowed and then one request per refill.
 * State lives in the object's SQLite, so an eviction does not hand a caller a fresh bucket.
 */
export class RateLimiter extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    applyMigrations(ctx.storage, LIMITER_MIGRATIONS);
  }

  async take(perMinute: number): Promise<TakeResult> {
    const capacity = Math.max(1, Math.floor(perMinute));
    const refillPerMs = capacity / 60_000;
    const now = Date.now();
    const row = this.ctx.storage.sql.exec<{ tokens: number; updated_ms: number }>('SELECT tokens, updated_ms FROM bucket WHERE id = 1').toArray()[0];
    // A lowered limit takes effect at once: never hold more than the current capacity.
    const before = row ? Math.min(capacity, row.tokens + Math.max(0, now - row.updated_ms) * refillPerMs) : capacity;
    const allowed = before >= 1;
    const after = allowed ? before - 1 : before;
    this.ctx.storage.sql.exec('INSERT OR REPLACE INTO bucket (id, tokens, updated_ms) VALUES (1, ?, ?)', after, now);
    return {
      allowed,
      remaining: Math.floor(after),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - after) / refillPerMs / 1000)),
    };
  }
}
