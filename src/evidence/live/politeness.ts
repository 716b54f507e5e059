import type { Config } from '../../config';
import { holdOf, type Board } from '../../net/politeness/board';
import type { Gate, GateNamespace } from '../../net/politeness/pass';
import type { GateHold, GatePolicy } from '../../net/politeness/policy';
import { mediawikiBudget } from './wikimedia';

export type { GateNamespace } from '../../net/politeness/pass';

type PolicyConfig = Pick<
  Config,
  | 'WIKIPEDIA_API_URL' | 'WIKIDATA_API_URL' | 'WIKIDATA_SPARQL_URL' | 'POLITENESS' | 'WDQS_QUERY_SECONDS_PER_MINUTE'
  | 'WDQS_ERRORS_PER_MINUTE' | 'WDQS_CONCURRENCY' | 'MEDIAWIKI_CONCURRENCY' | 'POLITENESS_MAX_WAIT_MS' | 'POLITENESS_MAX_BACKOFF_MS'
  | 'MEDIAWIKI_REQUESTS_PER_MINUTE' | 'WIKIMEDIA_CONTACT' | 'WIKIMEDIA_ACCESS_TOKEN'
>;

/** A gate of the live evidence: the name of its Durable Object and the policy it enforces. */
export interface LiveGate {
  name: string;
  policy: GatePolicy;
  /** The hosts behind it (the MediaWiki APIs that share Wikimedia's per-minute budget share one gate). */
  hosts: string[];
}

/**
 * The gate of each live endpoint, by host and path: the query service gets WDQS's budgets of query time and errors
 * per minute and its concurrency; the MediaWiki Action APIs (Wikipedia, Wikidata's api.php) serial requests and, when
 * they share Wikimedia's per-minute request budget, one gate for both, since Wikimedia counts a client across its
 * projects. A gate is one per host; a mirror that serves two of the APIs on one host gets one per API there, so each
 * keeps its own policy. A pass lives a little longer than one request may take, so a run that dies mid-request frees
 * its slot soon after.
 */
export const liveGates = (config: PolicyConfig, requestTimeoutMs: number): Map<string, LiveGate> => {
  const base = { enforce: config.POLITENESS !== 'off', leaseMs: requestTimeoutMs + 5_000, maxBackoffMs: config.POLITENESS_MAX_BACKOFF_MS };
  const budget = mediawikiBudget(config);
  const urls = [config.WIKIPEDIA_API_URL, config.WIKIDATA_API_URL, config.WIKIDATA_SPARQL_URL].map((u) => new URL(u));
  const shared = (u: URL) => new Set(urls.filter((o) => o.host === u.host).map(endpointOf)).size > 1;
  const ownName = (u: URL) => (shared(u) ? `host:${endpointOf(u)}` : `host:${u.host}`);
  // A gate knows its own name through its policy, so it can publish its hold under it (src/net/politeness/board.ts).
  const gate = (name: string, policy: Omit<GatePolicy, 'name'>, hosts: string[]): LiveGate => ({ name, policy: { ...policy, name }, hosts });
  const gates = new Map<string, LiveGate>();
  for (const api of urls.slice(0, 2)) {
    const policy = { ...base, concurrency: config.MEDIAWIKI_CONCURRENCY };
    gates.set(
      endpointOf(api),
      budget?.hosts.includes(api.host)
        ? gate(`mediawiki:${budget.hosts.join('+')}`, { ...policy, requestsPerMinute: budget.perMinute }, budget.hosts)
        : gate(ownName(api), policy, [api.host]),
    );
  }
  const wdqs = urls[2];
  const wdqsPolicy = { ...base, concurrency: config.WDQS_CONCURRENCY, queryMsPerMinute: config.WDQS_QUERY_SECONDS_PER_MINUTE * 1000, errorsPerMinute: config.WDQS_ERRORS_PER_MINUTE };
  gates.set(endpointOf(wdqs), gate(ownName(wdqs), wdqsPolicy, [wdqs.host]));
  return gates;
};

/** Host and path: the key of a live endpoint's gate. */
const endpointOf = (u: URL) => `${u.host}${u.pathname}`;

/** The gate of a URL's host, for liveHttp's `gateFor`. */
export const gatesFor = (config: PolicyConfig, ns: GateNamespace, requestTimeoutMs: number) => {
  const gates = liveGates(config, requestTimeoutMs);
  return (url: URL): Gate | undefined => {
    const gate = gates.get(endpointOf(url));
    if (!gate) return undefined;
    return { backend: ns.get(ns.idFromName(gate.name)), policy: gate.policy, host: url.host, maxWaitMs: config.POLITENESS_MAX_WAIT_MS };
  };
};

/** The live hosts their gates hold back right now (a Retry-After or maxlag still running), by the status board, for /healthz. */
export const heldHosts = (config: PolicyConfig, board: Board, now = Date.now()): Array<{ host: string; hold: GateHold }> => {
  if (config.POLITENESS === 'off') return [];
  const byName = new Map([...liveGates(config, 15_000).values()].map((g) => [g.name, g]));
  return [...byName.values()]
    .map((g) => ({ host: g.hosts.join(' and '), hold: holdOf(board, g.name, g.policy.maxBackoffMs, now) }))
    .filter((h) => h.hold.ms > 0);
};
