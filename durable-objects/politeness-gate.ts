import { DurableObject } from 'cloudflare:workers';
import { admit, record, type Admission, type GateBackend, type GatePolicy, type GateReport, type GateState } from '../src/net/politeness/policy';

/** How long a caller held back by the concurrency limit waits here for a free slot before it asks again. */
const HOLD_MS = 2_000;
/** A second run asking what is being fetched right now asks again after this long, and finds it in the cache. */
const SAME_REQUEST_POLL_MS = 150;
/** Answers larger than this are not kept (a SQLite value holds at most 2 MB). */
const MAX_ENTRY_CHARS = 1_000_000;
/** Cached text kept per host; the least recently used entries go first. */
const MAX_CACHE_CHARS = 64 * 1024 * 1024;

interface Lease {
  expires: number;
  cacheKey?: string;
}

interface Waiter {
  since: number;
  resolve: (a: Admission) => void;
  timer: ReturnType<typeof setTimeout>;
  cacheKey?: string;
}

/**
 * One object per upstream host (query.wikidata.org, en.wikipedia.org, a model server): every run of the deployment
 * asks it before sending there. It holds the host's back-off (a 429/Retry-After or maxlag answer seen by any run
 * stops every run until it has passed), the minute's query time and errors, the passes in flight, and a cache of
 * answers so that an evaluation asks each distinct request once. Back-off and budgets live in SQLite, so an
 * eviction never forgets a Retry-After; passes live in memory and expire, so a run that died frees its slot.
 */
export class PolitenessGate extends DurableObject<Env> implements GateBackend {
  private state: GateState;
  private readonly leases = new Map<string, Lease>();
  private readonly queue: Waiter[] = [];
  private policy: GatePolicy | undefined;
  private cacheChars: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec('CREATE TABLE IF NOT EXISTS gate (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL)');
    sql.exec('CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, body TEXT NOT NULL, chars INTEGER NOT NULL, expires INTEGER NOT NULL, used INTEGER NOT NULL)');
    const row = sql.exec<{ state: string }>('SELECT state FROM gate WHERE id = 1').toArray()[0];
    this.state = row ? (JSON.parse(row.state) as GateState) : { backoffUntil: 0, inflight: 0, spent: [], errors: [] };
    this.state.inflight = 0;
    this.cacheChars = sql.exec<{ n: number | null }>('SELECT SUM(chars) AS n FROM answers').toArray()[0]?.n ?? 0;
  }

  async enter(policy: GatePolicy, cacheKey?: string): Promise<Admission> {
    this.policy = policy;
    const now = Date.now();
    this.reclaim(now);
    if (cacheKey) {
      const hit = this.cached(cacheKey, now);
      if (hit !== undefined) return { kind: 'cached', body: hit };
      if (this.fetching(cacheKey)) return { kind: 'wait', ms: SAME_REQUEST_POLL_MS, reason: 'same-request' };
    }
    const verdict = this.queue.length && policy.enforce ? { ok: false as const, waitMs: 0, reason: 'busy' as const } : admit(this.state, policy, now);
    if (verdict.ok) return this.grant(now, cacheKey);
    if (verdict.reason !== 'busy') return { kind: 'wait', ms: verdict.waitMs, reason: verdict.reason, detail: verdict.detail };
    // Held here until a pass comes back (first come, first served), or asked to come again after HOLD_MS.
    return new Promise<Admission>((resolve) => {
      const waiter: Waiter = {
        since: now,
        cacheKey,
        resolve: (a) => {
          clearTimeout(waiter.timer);
          resolve(a);
        },
        timer: setTimeout(() => {
          this.queue.splice(this.queue.indexOf(waiter), 1);
          resolve({ kind: 'wait', ms: 0, reason: 'busy' });
        }, HOLD_MS),
      };
      this.queue.push(waiter);
    });
  }

  async leave(lease: string, report: GateReport): Promise<void> {
    const now = Date.now();
    const held = this.leases.get(lease);
    // The caller names its key too: a gate that restarted since it granted the pass has forgotten the lease, not the answer.
    const cacheKey = held?.cacheKey ?? report.cacheKey;
    this.leases.delete(lease);
    this.state.inflight = this.leases.size;
    if (this.policy) record(this.state, report, now, this.policy);
    this.save();
    if (cacheKey && report.body !== undefined && report.body.length <= MAX_ENTRY_CHARS) this.keep(cacheKey, report.body, now + (report.ttlSeconds ?? 86_400) * 1000, now);
    this.pump(now);
  }

  private grant(now: number, cacheKey?: string): Extract<Admission, { kind: 'granted' }> {
    const lease = crypto.randomUUID();
    this.leases.set(lease, { expires: now + (this.policy?.leaseMs ?? 60_000), cacheKey });
    this.state.inflight = this.leases.size;
    return { kind: 'granted', lease };
  }

  /** Hands freed passes to waiting callers in arrival order; a back-off that began meanwhile sends them to sleep. */
  private pump(now: number) {
    const policy = this.policy;
    if (!policy) return;
    while (this.queue.length) {
      // A caller queued behind another run asking the same thing takes that run's answer instead of a pass.
      const key = this.queue[0].cacheKey;
      const hit = key === undefined ? undefined : this.cached(key, now);
      if (hit !== undefined || (key !== undefined && this.leased(key))) {
        const waiter = this.queue.shift()!;
        waiter.resolve(hit !== undefined ? { kind: 'cached', body: hit } : { kind: 'wait', ms: SAME_REQUEST_POLL_MS, reason: 'same-request' });
        continue;
      }
      const verdict = admit(this.state, policy, now);
      if (!verdict.ok && verdict.reason === 'busy') return;
      const waiter = this.queue.shift()!;
      waiter.resolve(
        verdict.ok ? { ...this.grant(now, waiter.cacheKey), heldMs: now - waiter.since } : { kind: 'wait', ms: verdict.waitMs, reason: verdict.reason, detail: verdict.detail },
      );
    }
  }

  private leased(key: string): boolean {
    for (const l of this.leases.values()) if (l.cacheKey === key) return true;
    return false;
  }

  /** Someone is fetching `key` already, or waits here for a pass to fetch it. */
  private fetching(key: string): boolean {
    return this.leased(key) || this.queue.some((w) => w.cacheKey === key);
  }

  private reclaim(now: number) {
    let freed = false;
    for (const [id, l] of this.leases) if (l.expires <= now) freed = this.leases.delete(id) || freed;
    this.state.inflight = this.leases.size;
    if (freed) this.pump(now);
  }

  private save() {
    this.ctx.storage.sql.exec('INSERT OR REPLACE INTO gate (id, state) VALUES (1, ?)', JSON.stringify(this.state));
  }

  private cached(key: string, now: number): string | undefined {
    const sql = this.ctx.storage.sql;
    const row = sql.exec<{ body: string; expires: number }>('SELECT body, expires FROM answers WHERE key = ?', key).toArray()[0];
    if (!row) return undefined;
    if (row.expires <= now) {
      this.drop(key);
      return undefined;
    }
    sql.exec('UPDATE answers SET used = ? WHERE key = ?', now, key);
    return row.body;
  }

  private keep(key: string, body: string, expires: number, now: number) {
    const sql = this.ctx.storage.sql;
    this.drop(key);
    while (this.cacheChars + body.length > MAX_CACHE_CHARS) {
      const oldest = sql.exec<{ key: string }>('SELECT key FROM answers ORDER BY used LIMIT 1').toArray()[0];
      if (!oldest) break;
      this.drop(oldest.key);
    }
    sql.exec('INSERT INTO answers (key, body, chars, expires, used) VALUES (?, ?, ?, ?, ?)', key, body, body.length, expires, now);
    this.cacheChars += body.length;
  }

  private drop(key: string) {
    const sql = this.ctx.storage.sql;
    const row = sql.exec<{ chars: number }>('SELECT chars FROM answers WHERE key = ?', key).toArray()[0];
    if (!row) return;
    sql.exec('DELETE FROM answers WHERE key = ?', key);
    this.cacheChars -= row.chars;
  }
}
