import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { markServed, pickNext, type Queued } from '../../src/net/politeness/fair-order';
import type { Admission, GateParty, GatePolicy } from '../../src/net/politeness/policy';

/**
 * Requests queued at a politeness gate (the real PolitenessGate object of the test Worker, one request at a time, as
 * MediaWiki asks) are served in turn across API keys, and across runs within a key: a burst from one caller delays
 * another by a request or two, not by the whole burst.
 */
const policy: GatePolicy = { concurrency: 1, leaseMs: 60_000, maxBackoffMs: 120_000, enforce: true };
const gate = () => env.POLITENESS_GATE.get(env.POLITENESS_GATE.idFromName(`test-${crypto.randomUUID()}`));
const lease = (a: Admission) => (a as { lease: string }).lease;

/** Asks until granted, as every caller does (throughGate): a call held longer than the gate holds one is asked again. */
const ask = async (g: ReturnType<typeof gate>, party: GateParty): Promise<Admission> => {
  for (;;) {
    const a = await g.enter(policy, undefined, party);
    if (a.kind !== 'wait') return a;
    await new Promise((r) => setTimeout(r, a.ms));
  }
};

/** Hands each pass back as soon as it is granted, in grant order, and returns whose requests went, in that order. */
const drain = async (g: ReturnType<typeof gate>, first: Admission, queued: Array<{ who: string; admission: Promise<Admission> }>) => {
  const order: string[] = [];
  const pending = new Map(queued.map((q) => [q.who, q.admission]));
  let current = first;
  while (pending.size) {
    await g.leave(lease(current), { ms: 5, status: 200 });
    // The pass went to exactly one of the queued requests; find whose.
    const [who, admission] = await Promise.race([...pending].map(async ([w, a]) => [w, await a] as const));
    expect(admission.kind).toBe('granted');
    order.push(who);
    pending.delete(who);
    current = admission;
  }
  await g.leave(lease(current), { ms: 5, status: 200 });
  return order;
};

describe('a fair politeness gate', () => {
  it("serves B's one request right after the one in flight, however many key A queued first", async () => {
    const g = gate();
    const a = (run: string): GateParty => ({ key: 'key:a', run });
    const inFlight = await g.enter(policy, undefined, a('a-0'));
    expect(inFlight.kind).toBe('granted');
    const queued = Array.from({ length: 12 }, (_, i) => ({ who: `a${i + 1}`, admission: ask(g, a(`a-${i + 1}`)) }));
    queued.push({ who: 'b', admission: ask(g, { key: 'key:b', run: 'b-1' }) });
    const order = await drain(g, inFlight, queued);
    // B was waiting behind A's 12: it goes next, not thirteenth.
    expect(order.indexOf('b')).toBe(0);
    expect(order.filter((w) => w !== 'b').sort()).toEqual(Array.from({ length: 12 }, (_, i) => `a${i + 1}`).sort());
  });

  it('takes turns between runs of the same key: a second run is not stuck behind the first run’s burst', async () => {
    const g = gate();
    const inFlight = await g.enter(policy, undefined, { key: 'open', run: 'r1' });
    const queued = [
      ...Array.from({ length: 6 }, (_, i) => ({ who: `r1-${i}`, admission: ask(g, { key: 'open', run: 'r1' }) })),
      ...Array.from({ length: 2 }, (_, i) => ({ who: `r2-${i}`, admission: ask(g, { key: 'open', run: 'r2' }) })),
    ];
    const order = await drain(g, inFlight, queued);
    expect(order.slice(0, 4).map((w) => w.split('-')[0])).toEqual(['r2', 'r1', 'r2', 'r1']);
  });
});

describe('the order of a queue', () => {
  const q = (key: string, run: string, since: number): Queued => ({ party: { key, run }, since });

  it('goes round the keys, then the runs within a key, then oldest first; keys that have waited longest first', () => {
    const served = new Map<string, number>();
    const queue = [q('a', '1', 1), q('a', '1', 2), q('a', '2', 3), q('b', '3', 4), q('c', '4', 5)];
    const order: string[] = [];
    for (let now = 10; queue.length; now++) {
      const next = pickNext(queue, served)!;
      queue.splice(queue.indexOf(next), 1);
      markServed(served, next.party, now);
      order.push(`${next.party!.key}${next.party!.run}@${next.since}`);
    }
    expect(order).toEqual(['a1@1', 'b3@4', 'c4@5', 'a2@3', 'a1@2']);
  });

  it('requests that name nobody are served oldest first, as before keys were known', () => {
    const queue: Queued[] = [{ since: 3 }, { since: 1 }, { since: 2 }];
    expect(pickNext(queue, new Map())!.since).toBe(1);
  });
});
