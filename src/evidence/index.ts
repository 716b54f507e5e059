import type { Config } from '../config';
import { createLiveEvidence, wikimediaUserAgent, type LiveOptions } from './live';
import type { RequestScope } from './live/http';
import { gatesFor, type GateNamespace } from './live/politeness';
import { tokenHosts } from './live/wikimedia';
import { createStaticEvidence, type SnapshotBundle } from './static';
import type { KnowledgeApi } from './crag/types';
import { createLiveKg, kgGateFor, noKnowledgeApi } from './live/crag-kg';
import type { Evidence } from './types';

export type { Evidence } from './types';
export type { KnowledgeApi } from './crag/types';
export { EvidenceError } from './types';

export interface EvidenceBindings {
  DB: D1Database;
  /** One politeness gate per live host, shared by every run (durable-objects/politeness-gate.ts). */
  POLITENESS_GATE?: DurableObjectNamespace;
}

export interface EvidenceDeps {
  /** Static mode: a snapshot other than the generated bundle (tests, demos). */
  bundle?: SnapshotBundle;
  /** Live mode: HTTP knobs (timeouts, retries, cache). */
  live?: LiveOptions;
  /** Live mode: who the requests are for (a run step's signal ends a wait at a gate; waits and cache lookups are told). */
  scope?: RequestScope;
}

const LIVE_TIMEOUT_MS = 15_000;

/**
 * The evidence the config asks for: `static` (bundled snapshot: oxigraph + D1 FTS5, offline) or `live` (Wikimedia APIs
 * or a mirror at WIKIPEDIA_API_URL / WIKIDATA_SPARQL_URL / WIKIDATA_API_URL).
 */
export const createEvidence = (config: Config, bindings: EvidenceBindings, deps: EvidenceDeps = {}): Evidence =>
  config.EVIDENCE === 'live'
    ? createLiveEvidence(config, {
        maxlag: config.MEDIAWIKI_MAXLAG,
        userAgent: wikimediaUserAgent(config.WIKIMEDIA_CONTACT),
        cacheTtlSeconds: config.EVIDENCE_CACHE_TTL_SECONDS,
        ...(config.WIKIMEDIA_ACCESS_TOKEN ? { bearer: { token: config.WIKIMEDIA_ACCESS_TOKEN, hosts: tokenHosts(config) } } : {}),
        scope: deps.scope,
        ...(bindings.POLITENESS_GATE ? { gateFor: gatesFor(config, bindings.POLITENESS_GATE as unknown as GateNamespace, deps.live?.timeoutMs ?? LIVE_TIMEOUT_MS) } : {}),
        ...deps.live,
      })
    : createStaticEvidence({ db: bindings.DB, bundle: deps.bundle });

/**
 * The CRAG mock-KG API at CRAG_API_URL, through the live HTTP client and the host's politeness gate like every other
 * upstream; without CRAG_API_URL, a client that refuses every call.
 */
export const createKnowledgeApi = (config: Config, bindings: Pick<EvidenceBindings, 'POLITENESS_GATE'>, deps: Pick<EvidenceDeps, 'live' | 'scope'> = {}): KnowledgeApi => {
  if (!config.CRAG_API_URL) return noKnowledgeApi;
  const gate = bindings.POLITENESS_GATE as unknown as GateNamespace | undefined;
  return createLiveKg(config.CRAG_API_URL, {
    scope: deps.scope,
    ...(gate ? { gateFor: kgGateFor(config, gate, deps.live?.timeoutMs ?? LIVE_TIMEOUT_MS) } : {}),
    ...deps.live,
  });
};
