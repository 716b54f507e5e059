import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { PolitenessGate } from '../../durable-objects/politeness-gate';
import type { GatePolicy } from '../../src/net/politeness/policy';
import { deployedStyle } from '../public/helpers';

/**
 * A host that says "wait" for ever (the real PolitenessGate object of the test Worker): its hold ends after
 * POLITENESS_MAX_BACKOFF_MS, also when the gate stored it before a restart.
 */
const policy: GatePolicy = { concurrency: 1, leaseMs: 60_000, maxBackoffMs: 3_000, enforce: true };
const gate = () => env.POLITENESS_GATE.get(env.POLITENESS_GATE.idFromName(`test-${crypto.randomUUID()}`));
const ELEVEN_DAYS_MS = 999_999_000;

describe('a politeness gate told to wait 999999 s', () => {
  it('holds its host for the maximum, then lets the next request through', async () => {
    const g = gate();
    const first = await g.enter(policy);
    await g.leave((first as { lease: string }).lease, { ms: 5, status: 429, backoffMs: ELEVEN_DAYS_MS, backoffReason: 'HTTP 429 with Retry-After 999999 s' });
    const held = await g.enter(policy);
    expect(held).toMatchObject({ kind: 'wait', reason: 'backoff', detail: expect.stringContaining('held for at most 3.0 s (POLITENESS_MAX_BACKOFF_MS)') });
    expect((held as { ms: number }).ms).toBeLessThanOrEqual(3_000);
    const hold = await g.holding(policy);
    expect(hold.ms).toBeGreaterThan(0);
    expect(hold.ms).toBeLessThanOrEqual(3_000);
    await new Promise((r) => setTimeout(r, (held as { ms: number }).ms + 50));
    expect(await g.enter(policy)).toMatchObject({ kind: 'granted' });
    expect(await g.holding(policy)).toEqual({ ms: 0 });
  });

  it('a hold it stored before a restart (from a deploy without the maximum) is cut to the maximum when it is loaded again', async () => {
    const g = gate();
    const waited = await runInDurableObject(g, async (_live, state) => {
      // What an earlier version kept: the Retry-After as it came, eleven days ahead.
      const stored = { backoffUntil: Date.now() + ELEVEN_DAYS_MS, backoffReason: 'HTTP 429 with Retry-After 999999 s', inflight: 0, spent: [], errors: [] };
      state.storage.sql.exec('INSERT OR REPLACE INTO gate (id, state) VALUES (1, ?)', JSON.stringify(stored));
      // A fresh instance over the same storage: the object as it comes back after a restart.
      const restarted = new PolitenessGate(state, env);
      const admission = await restarted.enter(policy);
      const row = state.storage.sql.exec<{ state: string }>('SELECT state FROM gate WHERE id = 1').one();
      return { admission, kept: JSON.parse(row.state).backoffUntil - Date.now() };
    });
    expect(waited.admission).toMatchObject({ kind: 'wait', reason: 'backoff' });
    expect((waited.admission as { ms: number }).ms).toBeLessThanOrEqual(3_000);
    // Written back cut, so the next restart does not find eleven days either.
    expect(waited.kept).toBeLessThanOrEqual(3_000);
  });

  it('/healthz lists a live host its gate holds back, and stops once the hold has passed', async () => {
    const host = `wdqs-${crypto.randomUUID().slice(0, 8)}.mirror.test`;
    const vars = { EVIDENCE: 'live', WIKIDATA_SPARQL_URL: `http://${host}/sparql`, POLITENESS_MAX_BACKOFF_MS: '9000' };
    const health = async () => (await (await deployedStyle(vars)('/healthz')).json()) as { ok: boolean; warnings?: string[] };
    expect((await health()).warnings).toBeUndefined();
    // What the live client reports after the query service answered 429 Retry-After: 999999 (src/evidence/live/http-attempt.ts);
    // 9 s leaves room above the 5 s a hold must last to be reported, however slow the machine.
    const g = env.POLITENESS_GATE.get(env.POLITENESS_GATE.idFromName(`host:${host}`));
    const wdqs: GatePolicy = { concurrency: 5, leaseMs: 20_000, maxBackoffMs: 9_000, enforce: true, name: `host:${host}` };
    const pass = await g.enter(wdqs);
    await g.leave((pass as { lease: string }).lease, { ms: 5, status: 429, backoffMs: ELEVEN_DAYS_MS, backoffReason: 'HTTP 429 with Retry-After 999999 s' });
    // The gate tells the status board; /healthz reads the board (at most a second old), never the gate itself.
    let held = await health();
    for (let i = 0; i < 50 && !held.warnings; i++) held = (await new Promise((r) => setTimeout(r, 100)), await health());
    expect(held.ok).toBe(true);
    expect(held.warnings).toEqual([
      expect.stringMatching(new RegExp(`^${host.replace(/\./g, '\\.')} is held back for another \\d\\.\\d s: the host asked every client to wait \\(HTTP 429 with Retry-After 999999 s; held for at most 9\\.0 s \\(POLITENESS_MAX_BACKOFF_MS\\)\\)`)),
    ]);
    await new Promise((r) => setTimeout(r, 9_100));
    expect((await health()).warnings).toBeUndefined();
  });
});
