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

  it("releases the minute's request budget through the minute: a small burst, then one token per 60 s / rate", () => {
    // 12 a minute (the figure): a burst of 1, then 11 more spread over the minute, one every 5.45 s.
    const wiki: GatePolicy = { concurrency: 3, requestsPerMinute: 12, leaseMs: 60_000, maxBackoffMs: 120_000, enforce: true };
    const s = fresh();
    expect(admit(s, wiki, t0)).toEqual({ ok: true });
    countSent(s, wiki, t0);
    const held = admit(s, wiki, t0 + 10);
    expect(held).toMatchObject({ ok: false, reason: 'requests', detail: 'the budget is 12 a minute, 1 at once and then one every 5.5 s (MEDIAWIKI_REQUESTS_PER_MINUTE)' });
    expect((held as { waitMs: number }).waitMs).toBe(Math.ceil(60_000 / 11) - 10);
    expect(admit(s, wiki, t0 + Math.ceil(60_000 / 11))).toEqual({ ok: true });
    // A pass handed back unused gives its token back.
    countSent(s, wiki, t0 + 6_000);
    uncountSent(s, wiki, t0 + 6_000);
    expect(admit(s, wiki, t0 + 6_000)).toEqual({ ok: true });
    // However long and busy, no minute sees more than the budget: a burst at most, then the refill.
    const busy: GatePolicy = { ...wiki, requestsPerMinute: 180 };
    const b = fresh();
    const sentAt: number[] = [];
    for (let t = t0; t < t0 + 180_000; t += 50) {
      if (admit(b, busy, t).ok) {
        countSent(b, busy, t);
        sentAt.push(t);
      }
    }
    const most = Math.max(...sentAt.map((t) => sentAt.filter((u) => u >= t && u < t + 60_000).length));
    expect(most).toBeLessThanOrEqual(180);
    // The burst of 18 goes at once (one per 50 ms tick here, with what refilled meanwhile), then one every
    // 60 s / 162 = 370 ms.
    expect(sentAt.slice(0, 18)).toEqual(Array.from({ length: 18 }, (_, i) => t0 + i * 50));
    const gaps = sentAt.slice(30).map((t, i) => t - sentAt[29 + i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(350);
    expect(JSON.stringify(b).length).toBeLessThan(200);
  });
});
