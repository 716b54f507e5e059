import type { GateParty } from './policy';

/** A request waiting at a gate: whose it is, and since when. */
export interface Queued {
  party?: GateParty;
  since: number;
}

/** When each key, and each run within a key, last got a pass. */
export type Served = Map<string, number>;

const NOBODY: GateParty = { key: '', run: '' };
/**
 * A party's two names in `Served`, made once per party object: every pass looks at every queued request, so with
 * 200 runs queued at a model's gate, building the names afresh at each look cost more than the rest of the gate.
 */
const names = new WeakMap<GateParty, { key: string; run: string }>();
const namesOf = (p: GateParty = NOBODY) => {
  let n = names.get(p);
  if (!n) names.set(p, (n = { key: `k\u0000${p.key}`, run: `r\u0000${p.key}\u0000${p.run}` }));
  return n;
};

/** How long a key's or run's last turn is remembered; one idle for longer queues as if it had never been served. */
const MEMORY_MS = 10 * 60_000;

/**
 * The queued request to serve next: of the key served longest ago (never counts as longest), the run served longest
 * ago, its oldest request. So every key's turn comes round before any key gets a second, and a caller that re-asks
 * (a held call times out and comes back) keeps its turn, since the turn is the key's, not the request's place in line.
 * @example pickNext([{ party: { key: 'a', run: '1' }, since: 1 }, { party: { key: 'b', run: '2' }, since: 2 }], new Map([['k\u0000a', 5]])) // b's
 */
export const pickNext = <T extends Queued>(queue: readonly T[], served: Served): T | undefined => {
  let best: T | undefined;
  let bestRank: [number, number, number] | undefined;
  for (const q of queue) {
    const n = namesOf(q.party);
    const rank: [number, number, number] = [served.get(n.key) ?? -Infinity, served.get(n.run) ?? -Infinity, q.since];
    if (!bestRank || rank[0] < bestRank[0] || (rank[0] === bestRank[0] && (rank[1] < bestRank[1] || (rank[1] === bestRank[1] && rank[2] < bestRank[2])))) {
      best = q;
      bestRank = rank;
    }
  }
  return best;
};

/** Notes that `party` got a pass at `now`, forgetting turns older than a few minutes so the map stays small. */
export const markServed = (served: Served, party: GateParty | undefined, now: number): void => {
  const n = namesOf(party);
  served.set(n.key, now);
  served.set(n.run, now);
  if (served.size > 2_000) for (const [k, t] of served) if (t < now - MEMORY_MS) served.delete(k);
};
