import { GateWaitTooLong, throughGate, type GateClient } from '../../net/politeness/pass';
import type { GateReport } from '../../net/politeness/policy';
import { readCapped, readHead } from '../../net/read-capped';
import { parseRetryAfter, retrying } from '../../net/retry';
import { sha256Hex } from '../recording';
import { EvidenceError } from '../types';
import { askedWait, failureOf, judgeBody, readFailure, sendFailure, type Exchange, type Expect } from './http-answer';
import { answerCache, defaultCache } from './http-cache';
import { retryDelay } from './http-retry';

export type { Expect } from './http-answer';

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
  gateFor?: (url: URL) => GateClient | undefined;
  /** Told about every cache lookup, for the run's usage. */
  onCache?: (hit: boolean) => void;
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

interface ReadLimits {
  timeoutMs: number;
  maxBytes: number;
}

const fetchOnce = async (url: URL, init: RequestInit, { timeoutMs }: ReadLimits): Promise<Response> => {
  try {
    return await fetch(url.toString(), { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw sendFailure(err, url, timeoutMs);
  }
};

// The per-attempt timeout signal also covers the body: an endpoint that sends headers and then trickles stays bounded.
// The byte cap bounds one that streams without end, or a query whose result is larger than any answer needs.
const readText = async (res: Response, url: URL, { timeoutMs, maxBytes }: ReadLimits): Promise<string> => {
  try {
    return new TextDecoder().decode(await readCapped(res.body, maxBytes));
  } catch (err) {
    throw readFailure(err, url, maxBytes, timeoutMs);
  }
};

/** Reads one answer: a 2xx whole and judged, an error page only in part, a redirect not at all. */
const readExchange = async (res: Response, url: URL, expect: Expect | undefined, limits: ReadLimits): Promise<Exchange> => {
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    return { status: res.status, text: '' };
  }
  const text = res.ok ? await readText(res, url, limits) : new TextDecoder().decode(await readHead(res.body, 1_200).catch(() => new Uint8Array(0)));
  const wait = askedWait(res, text, parseRetryAfter(res.headers.get('retry-after')));
  const exchange: Exchange = { status: res.status, text, maxlag: wait.maxlag, backoffMs: wait.backoffMs, backoffReason: wait.reason };
  if (res.ok && !wait.maxlag) Object.assign(exchange, judgeBody(text, expect));
  return exchange;
};

/**
 * The only HTTP client of the live adapters: fixed endpoints, a descriptive User-Agent (Wikimedia's policy asks
 * for one), a timeout per attempt, retries with capped exponential backoff on 429/5xx honouring Retry-After
 * (http-retry.ts), and good answers cached: a body is judged before it is kept (http-answer.ts), so an error body,
 * a half-sent result or an answer of another shape is never served to a later run. With a gate per host
 * (durable-objects/politeness-gate.ts) every attempt, retries included, waits for the host's shared back-off and
 * budgets, reports its timing and status back, and the cache is the gate's, shared by every run.
 */
export const liveHttp = (options: HttpOptions): LiveHttp => {
  const endpoints = options.endpoints.map((e) => new URL(e));
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitMs = options.maxRetryWaitMs ?? 5_000;
  const ttl = options.cacheTtlSeconds ?? 86_400;
  const cache = answerCache(options.cache === undefined ? defaultCache() : options.cache, ttl);
  const limits: ReadLimits = { timeoutMs, maxBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES };

  const allowed = (url: URL) => endpoints.some((e) => e.origin === url.origin && e.pathname === url.pathname);

  /**
   * One attempt: through the host's gate when it has one, then the request, its answer read, judged and reported.
   * `fresh` passes the gate's cache by: an entry that is not a good answer (kept before answers were judged) is
   * asked again, and the good answer replaces it.
   */
  const attempt = async (url: URL, init: RequestInit, expect: Expect | undefined, cacheKey: string | undefined, fresh = false): Promise<Exchange> => {
    const gate = options.gateFor?.(url);
    let leave: ((r: GateReport) => Promise<void>) | undefined;
    if (gate) {
      try {
        const pass = await throughGate(gate, fresh ? undefined : cacheKey);
        if (pass.kind === 'cached') {
          const judged = judgeBody(pass.body, expect);
          if ('problem' in judged) return attempt(url, init, expect, cacheKey, true);
          return { status: 200, text: pass.body, fromCache: true, data: judged.data };
        }
        leave = pass.leave;
      } catch (err) {
        if (err instanceof GateWaitTooLong) throw new EvidenceError(err.message, 'backoff');
        throw err;
      }
    }
    const started = Date.now();
    const report: GateReport = { ms: 0, status: 0 };
    try {
      const res = await fetchOnce(url, init, limits);
      report.status = res.status;
      const ex = await readExchange(res, url, expect, limits);
      [report.backoffMs, report.backoffReason] = [ex.backoffMs, ex.backoffReason];
      if (ex.problem !== undefined) report.failed = true;
      else if (ex.data !== undefined && cacheKey && ttl > 0) [report.body, report.ttlSeconds, report.cacheKey] = [ex.text, ttl, cacheKey];
      return ex;
    } finally {
      report.ms = Date.now() - started;
      await leave?.(report).catch(() => {});
    }
  };

  /** Attempts with retries; returns a good answer or throws an EvidenceError. */
  const send = async (url: URL, init: RequestInit, expect: Expect | undefined, cacheKey?: string): Promise<Exchange> => {
    if (!allowed(url)) {
      throw new EvidenceError(`Refused: ${url.origin}${url.pathname} is not one of the configured evidence endpoints.`, 'refused');
    }
    // With POLITENESS=off the gate only caches: each attempt then waits out its own Retry-After, as without a gate.
    const gated = !!options.gateFor?.(url)?.policy.enforce;
    const ex = await retrying(() => attempt(url, init, expect, cacheKey), { retries: maxRetries, retryIn: (outcome, n) => retryDelay(outcome, n, { gated, maxWaitMs }) });
    if (ex.data === undefined) throw failureOf(ex, url);
    return ex;
  };

  /** Gated hosts cache in their gate (shared by every run); others in the Cache API, GET only. */
  const exchange = async (url: URL, init: RequestInit, keyText: string, expect: Expect | undefined): Promise<unknown> => {
    if (options.gateFor?.(url)) {
      const ex = await send(url, init, expect, await sha256Hex(keyText));
      options.onCache?.(!!ex.fromCache);
      return ex.data;
    }
    const key = cache.keyOf(url, init);
    const hit = await cache.lookup(key);
    if (key) options.onCache?.(!!hit);
    if (hit) {
      const judged = judgeBody(await readText(hit, url, limits), expect);
      if ('data' in judged) return judged.data;
    }
    const ex = await send(url, init, expect);
    await cache.store(key, ex.text);
    return ex.data;
  };

  const headers = (url: URL, accept: string, extra: Record<string, string> = {}): Record<string, string> => ({
    'user-agent': options.userAgent,
    accept,
    ...extra,
    ...(options.bearer?.hosts.includes(url.host) ? { authorization: `Bearer ${options.bearer.token}` } : {}),
  });

  return {
    getJson(url, accept = 'application/json', expect) {
      return exchange(url, { headers: headers(url, accept) }, `GET ${url}\n${accept}`, expect);
    },
    postFormJson(url, form, accept = 'application/json', expect) {
      const body = new URLSearchParams(form).toString();
      const init = { method: 'POST', headers: headers(url, accept, { 'content-type': 'application/x-www-form-urlencoded' }), body };
      return exchange(url, init, `POST ${url}\n${accept}\n${body}`, expect);
    },
    postJson(url, value, accept = 'application/json', expect) {
      const body = JSON.stringify(value);
      const init = { method: 'POST', headers: headers(url, accept, { 'content-type': 'application/json' }), body };
      return exchange(url, init, `POST ${url}\n${accept}\n${body}`, expect);
    },
  };
};
