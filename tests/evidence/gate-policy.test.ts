import { describe, expect, it } from 'vitest';
import { admit, clampHold, countSent, record, uncountSent, type GatePolicy, type GateState } from '../../src/net/politeness/policy';
import { parseRetryAfter } from '../../src/net/retry';

/** The rules a politeness gate applies to every request of every run (src/net/politeness/policy.ts). */
const fresh = (): GateState => ({ backoffUntil: 0, inflight: 0, spent: [], errors: [] });
const t0 = 1_000_000;

describe('the politeness policy', () => {
  it("holds requests once the minute's query time is spent, until enough of it has slid out of the window", () => {
    const wdqs: GatePolicy = { concurrency: 5, queryMsPerMinute: 1_000, leaseMs: 60_000, maxBackoffMs: 120_000, enforce: true };
    const s = fresh();
    record(s, { ms: 600, status: 200 }, t0, wdqs);
    expect(admit(s, wdqs, t0)).toEqual({ ok: true });
    record(s, { ms: 600, status: 200 }, t0 + 1_000, wdqs);
    const held = admit(s, wdqs, t0 + 1_000);
    expect(held).toMatchObject({ ok: false, reason: 'query-time' });
    // The first answer (sent at t0 - 600) leaves the window 60 s after it was sent.
    expect(admit(s, wdqs, t0 - 600 + 60_001)).toEqual({ ok: true });
  });

  it("holds requests once the minute's error budget is spent", () => {
    const wdqs: GatePolicy = { concurrency: 5, errorsPerMinute: 2, leaseMs: 60_000, maxBackoffMs: 120_000, enforce: true };
    const s = fresh();
    record(s, { ms: 10, status: 500 }, t0, wdqs);
    record(s, { ms: 10, status: 0 }, t0 + 10, wdqs);
    expect(admit(s, wdqs, t0 + 20)).toMatchObject({ ok: false, reason: 'errors', waitMs: 60_000 - 20 });
  });

  it('a gate without budgets (a model server) keeps no per-request history, however many requests pass', () => {
    const model: GatePolicy = { concurrency: 8, leaseMs: 60_000, maxBackoffMs: 120_000, enforce: true };
    const s = fresh();
    for (let i = 0; i < 5_000; i++) record(s, { ms: 300, status: i % 10 === 0 ? 500 : 200 }, t0 + i, model);
    expect(s.spent).toHaveLength(0);
    expect(s.errors).toHaveLength(0);
    expect(admit(s, model, t0 + 5_000)).toEqual({ ok: true });
    // A Retry-After still holds it back.
    record(s, { ms: 5, status: 429, backoffMs: 2_000 }, t0 + 5_000, model);
    expect(admit(s, model, t0 + 5_001)).toMatchObject({ ok: false, reason: 'backoff' });
  });

  it('a Retry-After of 999999 s, or a date years ahead, holds the host for at most maxBackoffMs, and says so', () => {
    const model: GatePolicy = { concurrency: 8, leaseMs: 60_000, maxBackoffMs: 8_000, enforce: true };
    for (const header of ['999999', new Date(Date.now() + 5 * 365 * 86_400_000).toUTCString()]) {
      const s = fresh();
      record(s, { ms: 5, status: 429, backoffMs: parseRetryAfter(header), backoffReason: `HTTP 429 with Retry-After ${header}` }, t0, model);
      const held = admit(s, model, t0 + 1);
      expect(held).toMatchObject({ ok: false, reason: 'backoff' });
      expect((held as { waitMs: number }).waitMs).toBeLessThanOrEqual(8_000);
      expect((held as { detail: string }).detail).toMatch(/held for at most 8\.0 s \(POLITENESS_MAX_BACKOFF_MS\)$/);
      expect(admit(s, model, t0 + 8_000)).toEqual({ ok: true });
    }
  });

  it('a hold stored under a longer maximum is cut to the one in force when the gate next decides, and says so once', () => {
    const s: GateState = { ...fresh(), backoffUntil: t0 + 999_999_000, backoffReason: 'HTTP 429 with Retry-After 999999 s' };
    const p: GatePolicy = { concurrency: 1, leaseMs: 60_000, maxBackoffMs: 120_000, enforce: true };
    expect(clampHold(s, p, t0)).toBe(true);
    expect(s.backoffUntil).toBe(t0 + 120_000);
    expect(clampHold(s, p, t0 + 1_000)).toBe(false);
    expect(clampHold(s, { ...p, maxBackoffMs: 10_000 }, t0 + 1_000)).toBe(true);
    expect(s.backoffReason).toBe('HTTP 429 with Retry-After 999999 s; held for at most 10 s (POLITENESS_MAX_BACKOFF_MS)');
  });

  it("holds requests once the minute's request budget is spent, until the oldest second has left the window", () => {
    const wiki: GatePolicy = { concurrency: 1, requestsPerMinute: 3, leaseMs: 60_000, maxBackoffMs: 120_000, enforce: true };
    const s = fresh();
    countSent(s, wiki, t0);
    countSent(s, wiki, t0 + 10);
    const unused = countSent(s, wiki, t0 + 2_500)!;
    expect(admit(s, wiki, t0 + 3_000)).toMatchObject({ ok: false, reason: 'requests', detail: expect.stringContaining('3 requests in the last minute') });
    // A pass handed back unused is not a request the host saw.
    uncountSent(s, unused);
    expect(admit(s, wiki, t0 + 3_000)).toEqual({ ok: true });
    countSent(s, wiki, t0 + 3_000);
    // The first second's two requests count until a minute after that second ended.
    expect(admit(s, wiki, t0 + 61_000 - 1)).toMatchObject({ ok: false, reason: 'requests', waitMs: 1 });
    expect(admit(s, wiki, t0 + 61_000)).toEqual({ ok: true });
    // However busy, the state keeps one entry per second of the minute.
    for (let i = 0; i < 10_000; i++) countSent(s, { ...wiki, requestsPerMinute: 1e9 }, t0 + 100_000 + i * 10);
    expect(s.sent!.length).toBeLessThanOrEqual(61);
  });
});
