/**
 * What a politeness gate enforces for one upstream host, and the pure decision whether one more request may go now.
 * The Durable Object (durable-objects/politeness-gate.ts) keeps the state; this module only reads it, so the rules
 * are the same for every caller and testable without a runtime.
 */

export interface GatePolicy {
  /** Requests in flight at once (MediaWiki asks for serial requests: 1). */
  concurrency: number;
  /** Summed answer time allowed in any 60 s (WDQS: about 60 s of query time per minute per client). */
  queryMsPerMinute?: number;
  /** Failed requests allowed in any 60 s (WDQS: 30 erroring queries per minute). */
  errorsPerMinute?: number;
  /** A pass not handed back by then is taken back (its holder died mid-request). */
  leaseMs: number;
  /** False: the gate only caches and counts; every request goes at once (`POLITENESS=off`). */
  enforce: boolean;
}

/** Why a request is held back. */
export type WaitReason = 'backoff' | 'busy' | 'query-time' | 'errors' | 'same-request';

export type Admission =
  | { kind: 'cached'; body: string }
  /** `heldMs`: how long the gate held the call until a slot was free. */
  | { kind: 'granted'; lease: string; heldMs?: number }
  | { kind: 'wait'; ms: number; reason: WaitReason; detail?: string };

/** What the holder of a pass reports when it hands it back. */
export interface GateReport {
  /** Time from sending to the last byte of the answer. */
  ms: number;
  /** HTTP status; 0 when no answer came (timeout, network); -1 when the pass was not used (its run ended first). */
  status: number;
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

/** The RPC surface of a gate; the Durable Object implements it, tests may fake it. */
export interface GateBackend {
  enter(policy: GatePolicy, cacheKey?: string): Promise<Admission>;
  leave(lease: string, report: GateReport): Promise<void>;
}

export interface GateState {
  backoffUntil: number;
  backoffReason?: string;
  inflight: number;
  /** Answer times of the last minute: [sent-at, ms]. */
  spent: Array<[number, number]>;
  /** Times of the last minute's failed requests. */
  errors: number[];
}

export const WINDOW_MS = 60_000;

/**
 * Whether one more request may go at `now`, or how long it should wait. Back-off wins over everything; then the
 * minute's error and query-time budgets (waiting until enough of the window has slid out); then the concurrency.
 */
export const admit = (s: GateState, p: GatePolicy, now: number): { ok: true } | { ok: false; waitMs: number; reason: WaitReason; detail?: string } => {
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
  if (s.inflight >= p.concurrency) return { ok: false, waitMs: 0, reason: 'busy' };
  return { ok: true };
};

/** Records a finished request in the state (mutates it): its time, its failure, the back-off it asked for. */
export const record = (s: GateState, report: GateReport, now: number, p: GatePolicy): void => {
  s.spent = s.spent.filter(([at]) => at > now - WINDOW_MS);
  s.errors = s.errors.filter((t) => t > now - WINDOW_MS);
  if (!p.enforce || report.status < 0) return;
  // Kept only for a budget that reads them: a model's gate has none, and its state stays small however busy it is
  // (the state is written back after every request).
  if (p.queryMsPerMinute !== undefined) s.spent.push([now - report.ms, report.ms]);
  if (p.errorsPerMinute !== undefined && (report.status === 0 || report.status === 429 || report.status >= 500)) s.errors.push(now);
  if (report.backoffMs !== undefined && now + report.backoffMs > s.backoffUntil) {
    s.backoffUntil = now + report.backoffMs;
    s.backoffReason = report.backoffReason;
  }
};

/** Seconds, readable: 1.2 s, 45 s. */
export const seconds = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);

const WHY: Record<WaitReason, string> = {
  backoff: 'the host asked every client to wait',
  busy: 'other runs were using every allowed connection',
  'query-time': "the minute's query-time budget was spent",
  errors: "the minute's error budget was spent",
  'same-request': 'another run was already asking the same thing',
};

const why = (reason: WaitReason, detail?: string) => `${WHY[reason]}${detail ? ` (${detail})` : ''}`;

/** The note a run's trace shows for a wait at a gate. */
export const waitNote = (host: string, ms: number, reason: WaitReason, detail?: string): string =>
  `waited ${seconds(ms)} at the politeness gate of ${host}: ${why(reason, detail)}`;

/** Why a request was not sent at all: the gate would have held it longer than it may wait. */
export const tooLongNote = (host: string, ms: number, maxMs: number, reason: WaitReason, detail?: string): string =>
  `not sent to ${host}: ${why(reason, detail)}, ${seconds(ms)} from now, longer than the ${seconds(maxMs)} a request may wait at its politeness gate`;
