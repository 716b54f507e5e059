/**
 * The Cache API store of a live host without a politeness gate (a gated host's answers are kept by its gate): good
 * answers only, keyed by the GET request, for `ttlSeconds`. A POST is never cached; lookups and writes that fail are
 * misses, never errors.
 */
export interface AnswerCache {
  /** The stored body of this GET, or undefined; undefined `key` when the request is not cacheable. */
  lookup(key: Request | undefined): Promise<Response | undefined>;
  store(key: Request | undefined, text: string): Promise<void>;
  keyOf(url: URL, init: RequestInit): Request | undefined;
}

export const answerCache = (cache: Cache | null, ttlSeconds: number): AnswerCache => ({
  keyOf: (url, init) => (init.method === 'POST' || !cache || ttlSeconds <= 0 ? undefined : new Request(url.toString(), { headers: init.headers })),
  lookup: async (key) => (key && cache ? await cache.match(key).catch(() => undefined) : undefined),
  store: async (key, text) => {
    if (!key || !cache) return;
    const stored = new Response(text, { headers: { 'content-type': 'application/json', 'cache-control': `public, max-age=${ttlSeconds}` } });
    await cache.put(key, stored).catch(() => undefined);
  },
});

/** `caches.default` where the runtime has it (workerd), else no cache. */
export const defaultCache = (): Cache | null => (typeof caches !== 'undefined' && 'default' in caches ? (caches as unknown as { default: Cache }).default : null);
