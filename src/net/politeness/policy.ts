/**
 * What a politeness gate enforces for one upstream host, and the pure decision whether one more request may go now.
 * The Durable Object (durable-objects/politeness-gate.ts) keeps the state; this module only reads it, so the rules
 * are the same for every caller and testable without a runtime.
 */
import { refilled, releaseSeconds, shapeOf, waitForToken, type Bucket } from './request-budget';

export interface GatePolicy {
  /** Requests in flight at once (MediaWiki asks for serial requests: 1). */
  concurrency: number;
  /** Summed answer time allowed in any 60 s (WDQS: about 60 s of query time per minute per client). */
  queryMsPerMinute?: number;
  /** Failed requests allowed in any 60 s (WDQS: 30 erroring queries per minute). */
  errorsPerMinute?: number;
  /**
   * Requests sent per minute (Wikimedia's API limits per client, counted across its projects), released as a token
   * bucket: a burst of a tenth, the rest spread through the minute (request-budget.ts).
   */
  requestsPerMinute?: number;
  /** The longest a host's Retry-After or maxlag answer holds it back (POLITENESS_MAX_BACKOFF_MS); a longer one is cut to this. */
  maxBackoffMs: number;
  /** A pass not handed back by then is taken back (its holder died mid-request). */
  leaseMs: number;
  /** False: the gate only caches and counts; every request goes at once (`POLITENESS=off`). */
  enforce: boolean;
  /** The gate's own name (its Durable Object's), under which it publishes its hold for /healthz (board.ts). */
  name?: string;
}

/** Who a request is for: the API key (`open` on a server without keys) and the run or tool call within it. */
export interface GateParty {
  key: string;
  run: string;
}

/** Why a request is held back. */
export type WaitReason = 'backoff' | 'busy' | 'query-time' | 'errors' | 'requests' | 'same-request';

export type Admission =
  | { kind: 'cached'; body: string }
  /** `heldMs`: how long the gate held the call until a slot was free. */
  | { kind: 'granted'; lease: string; heldMs?: number }
  /** `ms` 0: ask again at once (the gate held the call as long as one call may hang, and it is still queued in spirit). */
  | { kind: 'wait'; ms: number; reason: WaitReason; detail?: string };

/** What the holder of a pass reports when it hands it back. */
export interface GateReport {
  /** Time from sending to the last byte of the answer. */
  ms: number;
  /** HTTP status; 0 when no answer came (timeout, network); -1 when the pass was not used (its run ended first). */
  status: number;
  /** A 2xx whose body was an error or not the expected shape: counted as a failed request, never cached. */
  failed?: boolean;
  /** The server asked every client to wait this long (Retry-After on 429/503, or a MediaWiki maxlag answer). */
  backoffMs?: number;
  /** Why the back-off, for the notes of runs that wait for it. */
  backoffReason?: string;
  /** A successful answer to keep for other runs (under `cacheKey` of the pass), with its lifetime. */
  body?: string;
  ttlSeconds?: number;
  /** The pass's cache key, sent back so the answer is kept even by a gate that restarted since it granted the pass. */
  cacheKey?: string;
}

/** How much longer a gate holds its host back, and why (what /healthz reports). */
export interface GateHold {
  ms: number;
  reason?: string;
}

/** The RPC surface of a gate; the Durable Object implements it, tests may fake it. */
export interface GateBackend {
  enter(policy: GatePolicy, cacheKey?: string, party?: GateParty): Promise<Admission>;
  leave(lease: string, report: GateReport): Promise<void>;
  holding(policy: GatePolicy): Promise<GateHold>;
}

export interface GateState {
  backoffUntil: number;
  backoffReason?: string;
  inflight: number;
  /** Answer times of the last minute: [sent-at, ms]. */
  spent: Array<[number, number]>;
  /** Times of the last minute's failed requests. */
  errors: number[];
  /** The request budget's token bucket (request-budget.ts), when the policy has a budget. */
  bucket?: Bucket;
  /** Requests counted per second by gates before the token bucket; read once by the gate's migration, then gone. */
  sent?: Array<[number, number]>;
}

export const WINDOW_MS = 60_000;

type Verdict = { ok: true } | { ok: false; waitMs: number; reason: WaitReason; detail?: string };

/** The minute's request budget: a token now, or the wait until the bucket has refilled one. */
const requestBudget = (s: GateState, perMinute: number, now: number): Verdict => {
  const shape = shapeOf(perMinute);
  const waitMs = waitForToken(refilled(s.bucket, shape, now), shape);
  if (!waitMs) return { ok: true };
  const detail = `the budget is ${perMinute} a minute, ${shape.burst} at once and then one every ${releaseSeconds(shape)} s (MEDIAWIKI_REQUESTS_PER_MINUTE)`;
  return { ok: false, waitMs, reason: 'requests', detail };
};

/**
 * Whether one more request may go at `now`, or how long it should wait. Back-off wins over everything; then the
 * minute's error, query-time and request budgets (waiting until enough of the window has slid out); then the concurrency.
 */
export const admit = (s: GateState, p: GatePolicy, now: number): Verdict => {
  if (!p.enforce) return { ok: true };
  if (s.backoffUntil > now) return { ok: false, waitMs: s.backoffUntil - now, reason: 'backoff', detail: s.backoffReason };
  const recentErrors = s.errors.filter((t) => t > now - WINDOW_MS);
  if (p.errorsPerMinute !== undefined && recentErrors.length >= p.errorsPerMinute) {
    const oldest = Math.min(...recentErrors);
    return { ok: false, waitMs: oldest + WINDOW_MS - now, reason: 'errors', detail: `${recentErrors.length} failed requests in the last minute` };
  }
  if (p.queryMsPerMinute !== undefined) {
    const recent = s.spent.filter(([at]) => at > now - WINDOW_MS).sort((a, b) => a[0] - b[0]);
    let used = recent.reduce((sum, [, ms]) => sum + ms, 0);
    if (used >= p.queryMsPerMinute) {
      // Wait until enough of the oldest answers have left the window to bring the minute under budget.
      let until = now;
      for (const [at, ms] of recent) {
        used -= ms;
        until = at + WINDOW_MS;
        if (used < p.queryMsPerMinute) break;
      }
      return { ok: false, waitMs: Math.max(1, until - now), reason: 'query-time', detail: `the last minute used ${Math.round(recent.reduce((a, [, ms]) => a + ms, 0) / 1000)} s of query time` };
    }
  }
  if (p.requestsPerMinute !== undefined) {
    const budget = requestBudget(s, p.requestsPerMinute, now);
    if (!budget.ok) return budget;
  }
  if (s.inflight >= p.concurrency) return { ok: false, waitMs: 0, reason: 'busy' };
  return { ok: true };
};

/**
 * Takes a token for a request about to be sent (mutates the state); returns true when it did, so a pass handed back
 * unused can give it back, or undefined when the policy has no request budget.
 */
export const countSent = (s: GateState, p: GatePolicy, now: number): true | undefined => {
  if (!p.enforce || p.requestsPerMinute === undefined) return undefined;
  const bucket = refilled(s.bucket, shapeOf(p.requestsPerMinute), now);
  s.bucket = { tokens: bucket.tokens - 1, at: now };
  return true;
};

/** Gives back the token of a request counted by countSent that was never sent. */
export const uncountSent = (s: GateState, p: GatePolicy, now: number): void => {
  if (p.requestsPerMinute === undefined || !s.bucket) return;
  const shape = shapeOf(p.requestsPerMinute);
  const bucket = refilled(s.bucket, shape, now);
  s.bucket = { tokens: Math.min(shape.burst, bucket.tokens + 1), at: now };
};

const CAP_NOTE = /; held (?:at most|for) [^;]* \(POLITENESS_MAX_BACKOFF_MS\)$/;

/** The reason of a back-off cut to the maximum, saying so once however often it is cut. */
export const cutReason = (reason: string | undefined, maxMs: number) =>
  `${(reason ?? 'an earlier answer').replace(CAP_NOTE, '')}; held for at most ${seconds(maxMs)} (POLITENESS_MAX_BACKOFF_MS)`;

/**
 * Cuts a stored hold to at most `maxBackoffMs` from now (mutates the state; true when it did). A gate applies it before
 * every decision, so a Retry-After kept from before a restart, or from a deploy with a higher maximum, never outlives
 * the maximum now in force.
 */
export const clampHold = (s: GateState, p: GatePolicy, now: number): boolean => {
  const limit = now + p.maxBackoffMs;
  if (Number.isFinite(s.backoffUntil) && s.backoffUntil <= limit) return false;
  s.backoffUntil = limit;
  s.backoffReason = cutReason(s.backoffReason, p.maxBackoffMs);
  return true;
};

/** Records a finished request in the state (mutates it): its time, its failure, the back-off it asked for (at most the maximum). */
export const record = (s: GateState, report: GateReport, now: number, p: GatePolicy): void => {
  s.spent = s.spent.filter(([at]) => at > now - WINDOW_MS);
  s.errors = s.errors.filter((t) => t > now - WINDOW_MS);
  if (!p.enforce || report.status < 0) return;
  // Kept only for a budget that reads them: a model's gate has none, and its state stays small however busy it is
  // (the state is written back after every request).
  if (p.queryMsPerMinute !== undefined) s.spent.push([now - report.ms, report.ms]);
  const failed = report.failed || report.status === 0 || report.status === 429 || report.status >= 500;
  if (p.errorsPerMinute !== undefined && failed) s.errors.push(now);
  if (report.backoffMs === undefined) return;
  const asked = Number.isFinite(report.backoffMs) ? Math.max(0, report.backoffMs) : Infinity;
  const held = Math.min(asked, p.maxBackoffMs);
  if (now + held > s.backoffUntil) {
    s.backoffUntil = now + held;
    s.backoffReason = held < asked ? cutReason(report.backoffReason, p.maxBackoffMs) : report.backoffReason;
  }
};

/** A hold shorter than this is an ordinary pause (MediaWiki's maxlag asks for 5 s); a longer one /healthz reports. */
export const REPORTED_HOLD_MS = 5_000;

/** Seconds, readable: 1.2 s, 45 s. */
export const seconds = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);

const WHY: Record<WaitReason, string> = {
  backoff: 'the host asked every client to wait',
  busy: 'other runs were using every allowed connection',
  'query-time': "the minute's query-time budget was spent",
  errors: "the minute's error budget was spent",
  requests: "the minute's request budget was spent",
  'same-request': 'another run was already asking the same thing',
};

const why = (reason: WaitReason, detail?: string) => `${WHY[reason]}${detail ? ` (${detail})` : ''}`;

/** The note a run's trace shows for a wait at a gate. */
export const waitNote = (host: string, ms: number, reason: WaitReason, detail?: string): string =>
  `waited ${seconds(ms)} at the politeness gate of ${host}: ${why(reason, detail)}`;

/**
 * Why a request was not sent at all: the gate would have held it (`aheadMs` more) longer than it may wait in all, or
 * it has waited that long already (`aheadMs` 0, queued behind other requests or a budget).
 */
export const tooLongNote = (host: string, aheadMs: number, waitedMs: number, maxMs: number, reason: WaitReason, detail?: string): string =>
  aheadMs > 0
    ? `not sent to ${host}: ${why(reason, detail)}, ${seconds(aheadMs)} from now, longer than the ${seconds(maxMs)} a request may wait at its politeness gate (POLITENESS_MAX_WAIT_MS)`
    : `not sent to ${host}: ${why(reason, detail)}; it waited ${seconds(waitedMs)}, the most a request may wait at its politeness gate (POLITENESS_MAX_WAIT_MS)`;

/** What /healthz says about a host its gate holds back. */
export const holdNote = (host: string, hold: GateHold): string =>
  `${host} is held back for another ${seconds(hold.ms)}: ${why('backoff', hold.reason)}; requests to it are not sent until then`;
