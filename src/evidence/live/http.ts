import { sendsInClear } from '../../net/in-clear';
import type { Gate } from '../../net/politeness/pass';
import type { CallScope } from '../../net/scope';
import { retrying } from '../../net/retry';
import { sha256Hex } from '../recording';
import { EvidenceError } from '../types';
import { failureOf, judgeBody, type Exchange, type Expect } from './http-answer';
import { attemptOnce, readText, type AttemptSettings, type LiveRequest } from './http-attempt';
import { answerCache, defaultCache } from './http-cache';
import { retryDelay } from './http-retry';

export type { Expect } from './http-answer';

/** Who the requests are for (a run step, a tool run by hand): a wait at a gate ends with its signal, and is told, as are cache lookups. */
export interface RequestScope extends CallScope {
  /** Told about every cache lookup, for the run's usage. */
  readonly onCache?: (hit: boolean) => void;
}

export interface HttpOptions {
  /** Endpoint URLs (origin + path) requests may go to; anything else is refused before any network access. */
  endpoints: string[];
  userAgent: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Upper bound for one wait between retries; without a gate, a longer Retry-After ends the retries unsent. */
  maxRetryWaitMs?: number;
  /** How long a good answer is kept (EVIDENCE_CACHE_TTL_SECONDS); 0 keeps none. */
  cacheTtlSeconds?: number;
  /** The Cache API cache to use when no gate is; null disables caching. Defaults to `caches.default` when it exists. */
  cache?: Cache | null;
  /** Bytes one response may have; a larger one is abandoned unread past this point (default 8 MiB). */
  maxResponseBytes?: number;
  /**
   * The politeness gate of a URL's host (shared by every run; its cache also answers what any run fetched before).
   * Absent, or undefined for a host: requests go straight out, cached in `cache`.
   */
  gateFor?: (url: URL) => Gate | undefined;
  /** Who the requests are for. */
  scope?: RequestScope;
  /** An access token sent as `Authorization: Bearer` to these hosts only (WIKIMEDIA_ACCESS_TOKEN to Wikimedia's API hosts). */
  bearer?: { token: string; hosts: string[] };
}

/**
 * The longest real answers are a few MB (a long article's HTML through the parse API, a SPARQL result at the row cap);
 * 8 MiB leaves room for those and keeps one response, its text and its parsed JSON well inside a Worker's 128 MB.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface LiveHttp {
  /** GET with retries and caching; returns parsed JSON, of the `expect`ed shape when one is named. */
  getJson(url: URL, accept?: string, expect?: Expect): Promise<unknown>;
  /** POST (form body) with retries; for queries too long for a URL. Gated hosts cache it too, keyed by its body. */
  postFormJson(url: URL, form: Record<string, string>, accept?: string, expect?: Expect): Promise<unknown>;
  /** POST (JSON body) with retries; cached only in a gate (the CRAG KG API takes its arguments this way). */
  postJson(url: URL, body: unknown, accept?: string, expect?: Expect): Promise<unknown>;
}

/** What the client's requests share, settled once from its options. */
interface Client extends AttemptSettings {
  options: HttpOptions;
  scope: RequestScope;
  endpoints: URL[];
  maxRetries: number;
  maxWaitMs: number;
  cache: ReturnType<typeof answerCache>;
}

/** Attempts with retries; returns a good answer or throws an EvidenceError. */
const send = async (c: Client, r: LiveRequest, cacheKey?: string): Promise<Exchange> => {
  const { url } = r;
  if (!c.endpoints.some((e) => e.origin === url.origin && e.pathname === url.pathname)) {
    throw new EvidenceError(`Refused: ${url.origin}${url.pathname} is not one of the configured evidence endpoints.`, 'refused');
  }
  // The configuration refuses such an endpoint at start; this holds whatever built the client.
  if (c.options.bearer?.hosts.includes(url.host) && sendsInClear(url)) {
    throw new EvidenceError(`Refused: ${url.origin} is plain HTTP, and the access token for ${url.host} is never sent in clear; use https.`, 'refused');
  }
  // With POLITENESS=off the gate only caches: each attempt then waits out its own Retry-After, as without a gate.
  const gated = !!c.gateFor?.(url)?.policy.enforce;
  const ex = await retrying(() => attemptOnce(c, r, cacheKey), { retries: c.maxRetries, retryIn: (outcome, n) => retryDelay(outcome, n, { gated, maxWaitMs: c.maxWaitMs }) });
  if (ex.data === undefined) throw failureOf(ex, url);
  return ex;
};

/** Gated hosts cache in their gate (shared by every run); others in the Cache API, GET only. */
const exchange = async (c: Client, r: LiveRequest, keyText: string): Promise<unknown> => {
  if (c.gateFor?.(r.url)) {
    const ex = await send(c, r, await sha256Hex(keyText));
    c.scope.onCache?.(!!ex.fromCache);
    return ex.data;
  }
  const key = c.cache.keyOf(r.url, r.init);
  const hit = await c.cache.lookup(key);
  if (key) c.scope.onCache?.(!!hit);
  if (hit) {
    const judged = judgeBody(await readText(hit, r.url, c.limits), r.expect);
    if ('data' in judged) return judged.data;
  }
  const ex = await send(c, r);
  await c.cache.store(key, ex.text);
  return ex.data;
};

const headers = (options: HttpOptions, url: URL, accept: string, extra: Record<string, string> = {}): Record<string, string> => ({
  'user-agent': options.userAgent,
  accept,
  ...extra,
  ...(options.bearer?.hosts.includes(url.host) && !sendsInClear(url) ? { authorization: `Bearer ${options.bearer.token}` } : {}),
});

/**
 * The only HTTP client of the live adapters: fixed endpoints, a descriptive User-Agent (Wikimedia's policy asks
 * for one), a timeout per attempt (http-attempt.ts), retries with capped exponential backoff on 429/5xx honouring
 * Retry-After (http-retry.ts, the policy of net/retry-policy.ts), and good answers cached: a body is judged before it is kept (http-answer.ts), so an error body,
 * a half-sent result or an answer of another shape is never served to a later run. With a gate per host
 * (durable-objects/politeness-gate.ts) every attempt, retries included, waits for the host's shared back-off and
 * budgets, reports its timing and status back, and the cache is the gate's, shared by every run.
 */
export const liveHttp = (options: HttpOptions): LiveHttp => {
  const ttl = options.cacheTtlSeconds ?? 86_400;
  const c: Client = {
    options,
    endpoints: options.endpoints.map((e) => new URL(e)),
    gateFor: options.gateFor,
    scope: options.scope ?? {},
    limits: { timeoutMs: options.timeoutMs ?? 15_000, maxBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES },
    ttl,
    maxRetries: options.maxRetries ?? 3,
    maxWaitMs: options.maxRetryWaitMs ?? 5_000,
    cache: answerCache(options.cache === undefined ? defaultCache() : options.cache, ttl),
  };
  const post = (url: URL, accept: string, contentType: string, body: string, expect: Expect | undefined) =>
    exchange(c, { url, init: { method: 'POST', headers: headers(options, url, accept, { 'content-type': contentType }), body }, expect }, `POST ${url}\n${accept}\n${body}`);
  return {
    getJson(url, accept = 'application/json', expect) {
      return exchange(c, { url, init: { headers: headers(options, url, accept) }, expect }, `GET ${url}\n${accept}`);
    },
    postFormJson(url, form, accept = 'application/json', expect) {
      return post(url, accept, 'application/x-www-form-urlencoded', new URLSearchParams(form).toString(), expect);
    },
    postJson(url, value, accept = 'application/json', expect) {
      return post(url, accept, 'application/json', JSON.stringify(value), expect);
    },
  };
};
