import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { GatePolicy } from '../../src/net/politeness/policy';

/**
 * The cache of the politeness gate (the real PolitenessGate object of the test Worker), asked the way every run asks
 * it: two runs after the same request send it once, however they arrive.
 */
const policy: GatePolicy = { concurrency: 1, leaseMs: 60_000, maxBackoffMs: 120_000, enforce: true };
const gate = () => env.POLITENESS_GATE.get(env.POLITENESS_GATE.idFromName(`test-${crypto.randomUUID()}`));

describe('the shared cache of a politeness gate', () => {
  it('a run queued behind another run asking the same thing is handed that answer, not a second pass', async () => {
    const g = gate();
    const other = await g.enter(policy, 'other');
    expect(other.kind).toBe('granted');
    // Both runs now queue for the one slot, asking for the same answer.
    const first = g.enter(policy, 'same');
    const second = g.enter(policy, 'same');
    await g.leave((other as { lease: string }).lease, { ms: 5, status: 200 });
    const a = await first;
    expect(a.kind).toBe('granted');
    await g.leave((a as { lease: string }).lease, { ms: 5, status: 200, body: '{"answer":1}', ttlSeconds: 60 });
    let b = await second;
    // Told to come back while the first run fetches; by then the answer is kept.
    while (b.kind === 'wait') {
      expect(b.reason).toBe('same-request');
      await new Promise((r) => setTimeout(r, b.kind === 'wait' ? b.ms : 0));
      b = await g.enter(policy, 'same');
    }
    expect(b).toEqual({ kind: 'cached', body: '{"answer":1}' });
  });

  it('an answer handed back after the gate forgot the pass (it restarted meanwhile) is still kept for the next run', async () => {
    const g = gate();
    // A lease this object never granted: what a restarted gate sees when the fetch it allowed comes back.
    await g.leave(crypto.randomUUID(), { ms: 5, status: 200, body: '{"answer":2}', ttlSeconds: 60, cacheKey: 'k' });
    expect(await g.enter(policy, 'k')).toEqual({ kind: 'cached', body: '{"answer":2}' });
  });
});
