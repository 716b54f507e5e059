import { describe, expect, it } from 'vitest';
import { admit, record, type GatePolicy, type GateState } from '../../src/net/politeness/policy';

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
});
