import { OverCapError, readCapped, readHead } from '../../net/read-capped';
import { parseRetryAfter, retrying } from '../../net/retry';
import { EvidenceError } from '../types';

export interface HttpOptions {
  /** Endpoint URLs (origin + path) requests may go to; anything else is refused before any network access. */
  endpoints: string[];
  userAgent: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Upper bound for one wait between retries, whatever Retry-After asks for. */
  maxRetryWaitMs?: number;
  cacheTtlSeconds?: number;
  /** The Cache API cache to use; null disables caching. Defaults to `caches.default` when it exists. */
  cache?: Cache | null;
  /** Bytes one response may have; a larger one is abandoned unread past this point (default 8 MiB). */
  maxResponseBytes?: number;
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
}

const defaultCache = (): Cache | null => (typeof caches !== 'undefined' && 'default' in caches ? (caches as unknown as { default: Cache }).default : null);

/**
 * The only HTTP client of the live adapters: fixed endpoints, a descriptive User-Agent (Wikimedia's policy asks
 * for one), a timeout per attempt, retries with capped exponential backoff on 429/5xx honouring Retry-After,
 * and successful GET responses cached with a TTL.
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

  const send = async (url: URL, init: RequestInit): Promise<Response> => {
    if (!allowed(url)) {
      throw new EvidenceError(`Refused: ${url.origin}${url.pathname} is not one of the configured evidence endpoints.`, 'refused');
    }
    const attempt = async () => {
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
    const res = await retrying(attempt, {
      retries: maxRetries,
      retryIn: (outcome, n) => {
        if (!outcome.ok) return (outcome.error as EvidenceError).code === 'upstream' ? Math.min(maxWait, 250 * 2 ** n) : undefined;
        if (outcome.value.status !== 429 && outcome.value.status < 500) return undefined;
        void outcome.value.body?.cancel().catch(() => {});
        return Math.min(maxWait, parseRetryAfter(outcome.value.headers.get('retry-after')) ?? 250 * 2 ** n);
      },
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw new EvidenceError(`${url.host} answered with a redirect (${res.status}); point the endpoint URL at the API itself.`, 'upstream');
    }
    if (!res.ok) {
      // Only the start of an error page is worth showing; the rest is not read.
      const body = new TextDecoder().decode(await readHead(res.body, 1_200).catch(() => new Uint8Array(0))).slice(0, 300);
      throw new EvidenceError(`${url.host} answered HTTP ${res.status}${body ? `: ${body}` : ''}`, res.status === 400 ? 'syntax' : 'upstream');
    }
    return res;
  };

  // The per-attempt timeout signal also covers the body: an endpoint that sends headers and then trickles stays bounded.
  // The byte cap bounds one that streams without end, or a query whose result is larger than any answer needs.
  const readText = async (res: Response, url: URL): Promise<string> => {
    try {
      return new TextDecoder().decode(await readCapped(res.body, maxBytes));
    } catch (err) {
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

  const parse = async (res: Response, url: URL): Promise<unknown> => {
    const text = await readText(res, url);
    try {
      return JSON.parse(text);
    } catch {
      throw new EvidenceError(`${url.host} sent a response that is not JSON.`, 'upstream');
    }
  };

  return {
    async getJson(url, accept = 'application/json') {
      const key = new Request(url.toString(), { headers: { accept } });
      const hit = cache ? await cache.match(key).catch(() => undefined) : undefined;
      if (hit) return parse(hit, url);
      const res = await send(url, { headers: { 'user-agent': options.userAgent, accept } });
      const text = await readText(res, url);
      if (cache) {
        const stored = new Response(text, { headers: { 'content-type': 'application/json', 'cache-control': `public, max-age=${ttl}` } });
        await cache.put(key, stored).catch(() => undefined);
      }
      return parse(new Response(text), url);
    },
    async postFormJson(url, form, accept = 'application/json') {
      const res = await send(url, {
        method: 'POST',
        headers: { 'user-agent': options.userAgent, accept, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      return parse(res, url);
    },
  };
};
