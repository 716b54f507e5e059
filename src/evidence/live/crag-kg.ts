import type { Config } from '../../config';
import type { Gate, GateNamespace } from '../../net/politeness/pass';
import type { GatePolicy } from '../../net/politeness/policy';
import { checkCall, KG_ENDPOINTS } from '../crag/endpoints';
import { resultText } from '../crag/result-text';
import type { KnowledgeApi } from '../crag/types';
import { EvidenceError } from '../types';
import { liveHttp, type HttpOptions } from './http';
import { USER_AGENT } from './index';

/**
 * Calls a CRAG mock-KG server through the same HTTP client as Wikipedia and Wikidata (./http.ts): only the 38
 * endpoint URLs, a deadline per attempt that covers the body too, a byte cap, retries of 429/5xx that honour
 * Retry-After, and — with a gate — the host's politeness gate and its shared cache. A call that fails the endpoint's
 * schema is refused before anything is sent.
 */
export const createLiveKg = (baseUrl: string, options: Partial<Omit<HttpOptions, 'endpoints'>> = {}): KnowledgeApi => {
  const base = baseUrl.replace(/\/+$/, '');
  const urlOf = (path: string) => new URL(`${base}/${path}`);
  const http = liveHttp({ ...options, userAgent: options.userAgent ?? USER_AGENT, endpoints: KG_ENDPOINTS.map((e) => urlOf(e.path).toString()) });
  return {
    async call(call) {
      const checked = checkCall(call);
      if (!checked.ok) throw new EvidenceError(`Refused: ${checked.error}; nothing was sent.`, 'refused');
      const url = urlOf(checked.call.endpoint);
      const body = await http.postJson(url, checked.call.args);
      if (!body || typeof body !== 'object' || Array.isArray(body) || !('result' in body)) {
        throw new EvidenceError(`${url.host} answered ${checked.call.endpoint} without a "result" field; is CRAG_API_URL a CRAG mock-KG server?`, 'upstream');
      }
      return resultText((body as { result: unknown }).result);
    },
  };
};

/**
 * Calls at once to the KG host. The mock API is one FastAPI process, usually on the operator's own machine; a few
 * calls in flight keep a run's plan moving without piling every run's calls onto it.
 */
const KG_CONCURRENCY = 4;

/** The politeness gate of the KG host (one Durable Object per host, shared by every run), for liveHttp's `gateFor`. */
export const kgGateFor = (
  config: Pick<Config, 'CRAG_API_URL' | 'POLITENESS' | 'POLITENESS_MAX_WAIT_MS' | 'POLITENESS_MAX_BACKOFF_MS'>,
  ns: GateNamespace,
  requestTimeoutMs: number,
): ((url: URL) => Gate | undefined) => {
  const host = new URL(config.CRAG_API_URL!).host;
  const name = `host:${host}`;
  const policy: GatePolicy = { concurrency: KG_CONCURRENCY, leaseMs: requestTimeoutMs + 5_000, maxBackoffMs: config.POLITENESS_MAX_BACKOFF_MS, enforce: config.POLITENESS !== 'off', name };
  const backend = ns.get(ns.idFromName(name));
  return (url) =>
    url.host === host ? { backend, policy, host, maxWaitMs: config.POLITENESS_MAX_WAIT_MS } : undefined;
};

/** Where no knowledge API is configured: every call is refused, nothing is sent. */
export const noKnowledgeApi: KnowledgeApi = {
  call: async () => {
    throw new EvidenceError('No knowledge API is configured: set CRAG_API_URL to a CRAG mock-KG server.', 'refused');
  },
};
