import { DurableObject } from 'cloudflare:workers';
import { BOARD_NAME, type Board, type BoardBackend } from '../src/net/politeness/board';
import { markServed, pickNext, type Served } from '../src/net/politeness/fair-order';
import {
  admit,
  clampHold,
  countSent,
  record,
  uncountSent,
  type Admission,
  type GateBackend,
  type GateHold,
  type GateParty,
  type GatePolicy,
  type GateReport,
  type GateState,
  type WaitReason,
} from '../src/net/politeness/policy';
import { GateBoard } from './gate-board';
import { GateCache } from './gate-cache';
import { GATE_MIGRATIONS } from './gate-migrations';
import { applyMigrations } from './object-migrations';

/** How long a queued caller waits here for its turn before it is told to ask again (one RPC should not hang for long). */
const HOLD_MS = 2_000;
/** A second run asking what is being fetched right now asks again after this long, and finds it in the cache. */
const SAME_REQUEST_POLL_MS = 150;

interface Lease {
  expires: number;
  cacheKey?: string;
  /** A token of the minute's request budget was taken for it (given back if the pass goes unused). */
  counted?: true;
}

interface Waiter {
  since: number;
  party?: GateParty;
  cacheKey?: string;
  /** What holds it now (busy slots or a budget), told to the caller if its hold here times out. */
  reason: WaitReason;
  detail?: string;
  resolve: (a: Admission) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * One object per upstream host (query.wikidata.org, a model server), or per group of hosts that share one budget
 * (Wikipedia's and Wikidata's APIs: Wikimedia counts a client across its projects): every run of the deployment asks
 * it before sending there. It holds the back-off (a 429/Retry-After or maxlag answer seen by any run stops every run
 * until it has passed, never longer than POLITENESS_MAX_BACKOFF_MS), the minute's query time, errors and requests,
 * the passes in flight, and a cache of answers so that an evaluation asks each distinct request once. Requests that
 * must wait for a slot or a budget are served in turn across API keys, and across runs within a key, so one caller's
 * burst does not starve another. Back-off and budgets live in SQLite, so an eviction never forgets a Retry-After;
 * passes live in memory and expire, so a run that died frees its slot. A gate publishes its hold, whenever it
 * changes, to the status board (the gate named `gate-status`, which keeps nothing else), where /healthz reads it.
 * Its tables come from the numbered list in gate-migrations.ts.
 */
export class PolitenessGate extends DurableObject<Env> implements GateBackend, BoardBackend {
  private state: GateState;
  private readonly leases = new Map<string, Lease>();
  private readonly queue: Waiter[] = [];
  private readonly served: Served = new Map();
  private readonly cache: GateCache;
  private policy: GatePolicy | undefined;
  /** Wakes the queue when the budget that holds it frees up. */
  private wake: { at: number; timer: ReturnType<typeof setTimeout> } | undefined;
  /** The hold last told to the board, so it is told again only when it changes. */
  private published: { until: number; reason?: string } | undefined;
  private readonly statusBoard: GateBoard;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    applyMigrations(ctx.storage, GATE_MIGRATIONS);
    const sql = ctx.storage.sql;
    const row = sql.exec<{ state: string }>('SELECT state FROM gate WHERE id = 1').toArray()[0];
    this.state = row ? (JSON.parse(row.state) as GateState) : { backoffUntil: 0, inflight: 0, spent: [], errors: [] };
    // A stored hold is cut to the maximum in force as soon as a caller says what that is (clampHold, in `use`).
    this.state.backoffUntil = Number(this.state.backoffUntil) || 0;
    this.state.inflight = 0;
    this.cache = new GateCache(sql);
    this.statusBoard = new GateBoard(sql);
  }

  async enter(policy: GatePolicy, cacheKey?: string, party?: GateParty): Promise<Admission> {
    const now = this.use(policy);
    this.reclaim(now);
    if (cacheKey) {
      const hit = this.cache.get(cacheKey, now);
      if (hit !== undefined) return { kind: 'cached', body: hit };
      if (this.fetching(cacheKey)) return { kind: 'wait', ms: SAME_REQUEST_POLL_MS, reason: 'same-request' };
    }
    if (!policy.enforce) return this.grant(now, cacheKey, party);
    const verdict = admit(this.state, policy, now);
    if (verdict.ok && !this.queue.length) return this.grant(now, cacheKey, party);
    // A back-off may last minutes: the caller sleeps through it rather than holding a call open here.
    if (!verdict.ok && verdict.reason === 'backoff') return { kind: 'wait', ms: verdict.waitMs, reason: 'backoff', detail: verdict.detail };
    // Behind a busy slot, a budget or other callers: queued, and served in turn (pump).
    return new Promise<Admission>((resolve) => {
      const waiter: Waiter = {
        since: now,
        party,
        cacheKey,
        reason: verdict.ok ? 'busy' : verdict.reason,
        detail: verdict.ok ? undefined : verdict.detail,
        resolve: (a) => {
          clearTimeout(waiter.timer);
          resolve(a);
        },
        timer: setTimeout(() => {
          this.dequeue(waiter);
          resolve({ kind: 'wait', ms: 0, reason: waiter.reason, detail: waiter.detail });
        }, HOLD_MS),
      };
      this.queue.push(waiter);
      this.pump(now);
    });
  }

  async leave(lease: string, report: GateReport): Promise<void> {
    const now = Date.now();
    const held = this.leases.get(lease);
    // The caller names its key too: a gate that restarted since it granted the pass has forgotten the lease, not the answer.
    const cacheKey = held?.cacheKey ?? report.cacheKey;
    this.leases.delete(lease);
    this.state.inflight = this.leases.size;
    if (report.status < 0 && held?.counted && this.policy) uncountSent(this.state, this.policy, now);
    if (this.policy) record(this.state, report, now, this.policy);
    this.save();
    this.publishHold();
    if (cacheKey && report.body !== undefined && !report.failed) this.cache.keep(cacheKey, report.body, now + (report.ttlSeconds ?? 86_400) * 1000, now);
    this.pump(now);
  }

  /** How much longer the host is held back (for /healthz); a stored hold is cut to the policy's maximum first. */
  async holding(policy: GatePolicy): Promise<GateHold> {
    const now = this.use(policy);
    const ms = Math.max(0, this.state.backoffUntil - now);
    return ms > 0 ? { ms, reason: this.state.backoffReason } : { ms: 0 };
  }

  /** The board's side (this gate is the one named BOARD_NAME): keeps a gate's hold. */
  async publish(name: string, hold: { until: number; reason?: string }): Promise<void> {
    this.statusBoard.publish(name, hold, Date.now());
  }

  /** The board's side: every hold still running, by gate name. */
  async board(): Promise<Board> {
    return this.statusBoard.read(Date.now());
  }

  /** Takes the caller's policy (the deploy's settings) and holds the stored state to its maximum back-off. */
  private use(policy: GatePolicy): number {
    this.policy = policy;
    const now = Date.now();
    if (clampHold(this.state, policy, now)) {
      this.save();
      this.publishHold();
    }
    return now;
  }

  /**
   * Tells the board this gate's hold when it differs from what the board was last told. Not awaited: a board that is
   * slow or gone must never hold a request up; /healthz then reads an older board, refreshed at the next change.
   */
  private publishHold() {
    const name = this.policy?.name;
    if (!name || name === BOARD_NAME) return;
    const hold = { until: this.state.backoffUntil, ...(this.state.backoffReason ? { reason: this.state.backoffReason } : {}) };
    if (this.published && this.published.until === hold.until && this.published.reason === hold.reason) return;
    if (!this.published && !(hold.until > Date.now())) return;
    this.published = hold;
    const ns = this.env.POLITENESS_GATE as unknown as DurableObjectNamespace<PolitenessGate>;
    this.ctx.waitUntil(ns.get(ns.idFromName(BOARD_NAME)).publish(name, hold).catch(() => (this.published = undefined)));
  }

  private grant(now: number, cacheKey?: string, party?: GateParty): Extract<Admission, { kind: 'granted' }> {
    const lease = crypto.randomUUID();
    const counted = this.policy ? countSent(this.state, this.policy, now) : undefined;
    this.leases.set(lease, { expires: now + (this.policy?.leaseMs ?? 60_000), cacheKey, counted });
    this.state.inflight = this.leases.size;
    markServed(this.served, party, now);
    // Counted before it is sent, and kept: a restart must not forget a request the host has seen.
    if (counted !== undefined) this.save();
    return { kind: 'granted', lease };
  }

  /**
   * Hands what is free to the waiting callers, each time the one whose key (then run) was served longest ago; a
   * back-off that began meanwhile sends them all to sleep, a spent budget wakes the queue again when it frees up.
   */
  private pump(now: number) {
    const policy = this.policy;
    if (!policy) return;
    while (this.queue.length) {
      const waiter = pickNext(this.queue, this.served)!;
      // A caller queued behind another run asking the same thing takes that run's answer instead of a pass.
      const key = waiter.cacheKey;
      const hit = key === undefined ? undefined : this.cache.get(key, now);
      if (hit !== undefined || (key !== undefined && this.leased(key))) {
        this.dequeue(waiter).resolve(hit !== undefined ? { kind: 'cached', body: hit } : { kind: 'wait', ms: SAME_REQUEST_POLL_MS, reason: 'same-request' });
        continue;
      }
      const verdict = admit(this.state, policy, now);
      if (verdict.ok) {
        this.dequeue(waiter).resolve({ ...this.grant(now, key, waiter.party), heldMs: now - waiter.since });
        continue;
      }
      if (verdict.reason === 'backoff') {
        for (const w of this.queue.splice(0)) w.resolve({ kind: 'wait', ms: verdict.waitMs, reason: 'backoff', detail: verdict.detail });
        return;
      }
      for (const w of this.queue) [w.reason, w.detail] = [verdict.reason, verdict.detail];
      if (verdict.reason !== 'busy') this.wakeAt(now + verdict.waitMs);
      return;
    }
  }

  private wakeAt(at: number) {
    if (this.wake && this.wake.at <= at) return;
    if (this.wake) clearTimeout(this.wake.timer);
    const timer = setTimeout(() => {
      this.wake = undefined;
      this.pump(Date.now());
    }, Math.max(0, at - Date.now()));
    this.wake = { at, timer };
  }

  private dequeue(waiter: Waiter): Waiter {
    const i = this.queue.indexOf(waiter);
    if (i >= 0) this.queue.splice(i, 1);
    return waiter;
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
}
