import { GateWaitTooLong, throughGate, type GateClient } from '../../net/politeness/pass';
import { seconds, type GateReport } from '../../net/politeness/policy';
import { BYTES_PER_PIECE, OverCapError, readCapped, readHead } from '../../net/read-capped';
import { parseRetryAfter, retrying } from '../../net/retry';
import { sha256Hex } from '../recording';
import { EvidenceError } from '../types';

export interface HttpOptions {
  /** Endpoint URLs (origin + path) requests may go to; anything else is refused before any network access. */
  endpoints: string[];
  userAgent: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Upper bound for one wait between retries; without a gate, a longer Retry-After ends the retries unsent. */
  maxRetryWaitMs?: number;
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
}

/**
 * The longest real answers are a few MB (a long article's HTML through the parse API, a SPARQL result at the row cap);
 * 8 MiB leaves room for those and keeps one response, its text and its parsed JSON well inside a Worker's 128 MB.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`);

export interface LiveHttp {
  /** GET with retries and caching; returns parsed JSON. */
  getJson(url: URL, accept?: string): Promise<unknown>;
  /** POST (form body) with retries, not cached; for queries too long for a URL. */
  postFormJson(url: URL, form: Record<string, string>, accept?: string): Promise<unknown>;
  /** POST (JSON body) with retries; cached only in a gate (the CRAG KG API takes its arguments this way). */
  postJson(url: URL, body: unknown, accept?: string): Promise<unknown>;
}

const defaultCache = (): Cache | null => (typeof caches !== 'undefined' && 'default' in caches ? (caches as unknown as { default: Cache }).default : null);

/** One answer as read: its status, its text (an error page only in part), and the wait it asked every client for. */
interface Exchange {
  status: number;
  text: string;
  /** Retry-After of a 429/503 or a MediaWiki maxlag answer. */
  backoffMs?: number;
  maxlag?: boolean;
  fromCache?: boolean;
}

/** A 429 or a lag answer without Retry-After still stops the host this long. */
const DEFAULT_BACKOFF_MS = 5_000;

const isMaxlag = (res: Response, head: string) => res.headers.get('mediawiki-api-error') === 'maxlag' || /"code"\s*:\s*"maxlag"/.test(head.slice(0, 400));

/**
 * The only HTTP client of the live adapters: fixed endpoints, a descriptive User-Agent (Wikimedia's policy asks
 * for one), a timeout per attempt, retries with capped exponential backoff on 429/5xx honouring Retry-After,
 * and successful answers cached. With a gate per host (durable-objects/politeness-gate.ts) every attempt, retries
 * included, waits for the host's shared back-off and budgets, reports its timing and status back, and the cache is
 * the gate's, shared by every run.
 */
export const liveHttp = (options: HttpOptions): LiveHttp => {
  const endpoints = options.endpoints.map((e) => new URL(e));
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRetries = options.maxRetries ?? 3;
  const maxWait = options.maxRetryWaitMs ?? 5_000;
  const ttl = options.cacheTtlSeconds ?? 86_400;
  const cache = options.cache === undefined ? defaultCache() : options.cache;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;

  const allowed = (url: URL) => endpoints.some((e) => e.origin === url.origin && e.pathname === url.pathname);

  const fetchOnce = async (url: URL, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(url.toString(), { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new EvidenceError(`${url.host} did not answer within ${Math.round(timeoutMs / 1000)} s.`, 'timeout');
      }
      throw new EvidenceError(`${url.host} could not be reached: ${(err as Error).message}`, 'upstream');
    }
  };

  /** One attempt: through the host's gate when it has one, then the request, its answer read and reported. */
  const attempt = async (url: URL, init: RequestInit, cacheKey: string | undefined): Promise<Exchange> => {
    const gate = options.gateFor?.(url);
    let leave: ((r: GateReport) => Promise<void>) | undefined;
    if (gate) {
      try {
        const pass = await throughGate(gate, cacheKey);
        if (pass.kind === 'cached') return { status: 200, text: pass.body, fromCache: true };
        leave = pass.leave;
      } catch (err) {
        if (err instanceof GateWaitTooLong) throw new EvidenceError(err.message, 'backoff');
        throw err;
      }
    }
    const started = Date.now();
    const report: GateReport = { ms: 0, status: 0 };
    try {
      const res = await fetchOnce(url, init);
      report.status = res.status;
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        return { status: res.status, text: '' };
      }
      // Only the start of an error page is worth showing; the rest is not read.
      const text = res.ok ? await readText(res, url) : new TextDecoder().decode(await readHead(res.body, 1_200).catch(() => new Uint8Array(0)));
      const maxlag = res.ok && isMaxlag(res, text);
      const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      const exchange: Exchange = { status: res.status, text, maxlag };
      if (res.status === 429 || maxlag || (res.status === 503 && retryAfter !== undefined)) {
        exchange.backoffMs = retryAfter ?? DEFAULT_BACKOFF_MS;
        report.backoffMs = exchange.backoffMs;
        report.backoffReason = maxlag ? 'replication lag (maxlag)' : `HTTP ${res.status} with Retry-After ${seconds(exchange.backoffMs)}`;
      }
      if (res.ok && !maxlag && cacheKey) [report.body, report.ttlSeconds] = [text, ttl];
      return exchange;
    } finally {
      report.ms = Date.now() - started;
      await leave?.(report).catch(() => {});
    }
  };

  /** Attempts with retries; returns the text of a successful answer or throws an EvidenceError. */
  const send = async (url: URL, init: RequestInit, cacheKey?: string): Promise<Exchange> => {
    if (!allowed(url)) {
      throw new EvidenceError(`Refused: ${url.origin}${url.pathname} is not one of the configured evidence endpoints.`, 'refused');
    }
    // With POLITENESS=off the gate only caches: each attempt then waits out its own Retry-After, as without a gate.
    const gated = !!options.gateFor?.(url)?.policy.enforce;
    const ex = await retrying(() => attempt(url, init, cacheKey), {
      retries: maxRetries,
      retryIn: (outcome, n) => {
        const backoff = Math.min(maxWait, 250 * 2 ** n);
        if (!outcome.ok) return (outcome.error as EvidenceError).code === 'upstream' ? backoff : undefined;
        const { status, backoffMs, maxlag } = outcome.value;
        if (status !== 429 && status < 500 && !maxlag) return undefined;
        // The gate holds the next attempt for as long as the host asked; without one, never send before it either.
        if (backoffMs !== undefined) return gated ? 0 : backoffMs <= maxWait ? backoffMs : undefined;
        return backoff;
      },
    });
    if (ex.status >= 300 && ex.status < 400) {
      throw new EvidenceError(`${url.host} answered with a redirect (${ex.status}); point the endpoint URL at the API itself.`, 'upstream');
    }
    if (ex.maxlag) throw new EvidenceError(`${url.host} is lagging behind (maxlag) and asked clients to wait ${seconds(ex.backoffMs ?? DEFAULT_BACKOFF_MS)}.`, 'upstream');
    if (ex.status < 200 || ex.status >= 300) {
      const body = ex.text.slice(0, 300);
      const wait = ex.backoffMs !== undefined ? ` (it asked clients to wait ${seconds(ex.backoffMs)})` : '';
      throw new EvidenceError(`${url.host} answered HTTP ${ex.status}${wait}${body ? `: ${body}` : ''}`, ex.status === 400 ? 'syntax' : 'upstream');
    }
    return ex;
  };

  // The per-attempt timeout signal also covers the body: an endpoint that sends headers and then trickles stays bounded.
  // The byte cap bounds one that streams without end, or a query whose result is larger than any answer needs.
  const readText = async (res: Response, url: URL): Promise<string> => {
    try {
      return new TextDecoder().decode(await readCapped(res.body, maxBytes));
    } catch (err) {
      if (err instanceof OverCapError && err.pieces !== undefined) {
        // Each piece costs a round trip however small it is: a body sent a few bytes at a time is refused by its count.
        const each = `under ${BYTES_PER_PIECE} bytes each on average`;
        throw new EvidenceError(`${url.host} sent its answer in more than ${err.pieces.toLocaleString('en-US')} pieces (${each}); the answer was not read.`, 'too_large');
      }
      if (err instanceof OverCapError) {
        throw new EvidenceError(
          `${url.host} sent more than ${sizeText(maxBytes)}; the answer was not read. Ask for less: a LIMIT, fewer variables, a narrower search.`,
          'too_large',
        );
      }
      const name = (err as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new EvidenceError(`${url.host} did not finish its answer within ${Math.round(timeoutMs / 1000)} s.`, 'timeout');
      }
      throw new EvidenceError(`${url.host} broke off its answer: ${(err as Error).message}`, 'upstream');
    }
  };

  const parse = (text: string, url: URL): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      throw new EvidenceError(`${url.host} sent a response that is not JSON.`, 'upstream');
    }
  };

  /** Gated hosts cache in their gate (shared by every run); others in the Cache API, GET only. */
  const cachedExchange = async (url: URL, init: RequestInit, keyText: string): Promise<string> => {
    if (options.gateFor?.(url)) {
      const ex = await send(url, init, await sha256Hex(keyText));
      options.onCache?.(!!ex.fromCache);
      return ex.text;
    }
    const key = init.method === 'POST' || !cache ? undefined : new Request(url.toString(), { headers: init.headers });
    const hit = key && cache ? await cache.match(key).catch(() => undefined) : undefined;
    if (key) options.onCache?.(!!hit);
    if (hit) return readText(hit, url);
    const { text } = await send(url, init);
    if (key && cache) {
      const stored = new Response(text, { headers: { 'content-type': 'application/json', 'cache-control': `public, max-age=${ttl}` } });
      await cache.put(key, stored).catch(() => undefined);
    }
    return text;
  };

  return {
    async getJson(url, accept = 'application/json') {
      const init = { headers: { 'user-agent': options.userAgent, accept } };
      return parse(await cachedExchange(url, init, `GET ${url}\n${accept}`), url);
    },
    async postFormJson(url, form, accept = 'application/json') {
      const body = new URLSearchParams(form).toString();
      const init = {
        method: 'POST',
        headers: { 'user-agent': options.userAgent, accept, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      };
      return parse(await cachedExchange(url, init, `POST ${url}\n${accept}\n${body}`), url);
    },
    async postJson(url, value, accept = 'application/json') {
      const body = JSON.stringify(value);
      const init = { method: 'POST', headers: { 'user-agent': options.userAgent, accept, 'content-type': 'application/json' }, body };
      return parse(await cachedExchange(url, init, `POST ${url}\n${accept}\n${body}`), url);
    },
  };
};
