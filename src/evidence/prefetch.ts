import type { Evidence, Page } from './types';

/**
 * Evidence ahead of need: when a search returns pages, the top page is fetched in the background, so the `read` that
 * usually follows finds it already here. Only evidence is fetched this way, never a model call. The pages live as
 * long as the run's object does (a resumed run just fetches again) and a failed prefetch is forgotten: the read then
 * asks the source itself, as it would have without one.
 */

/** Pages kept per run; a run reads one or two of the pages its latest searches found. */
const MAX_PAGES = 4;
/** A prefetch is not started when less of the run's wall time is left than this. */
const MIN_REMAINING_MS = 2_000;

interface Entry {
  page: Promise<Page | null>;
  failed: boolean;
}

const keyOf = (title: string) => title.trim().replace(/[\s_]+/g, ' ').toLowerCase();

/** The run's prefetched pages, shared by its steps (each step wraps its own evidence with `prefetching`). */
export class PagePrefetch {
  private readonly pages = new Map<string, Entry>();

  start(title: string, load: () => Promise<Page | null>): boolean {
    const key = keyOf(title);
    if (!key || this.pages.has(key)) return false;
    const entry: Entry = { page: Promise.resolve(null), failed: false };
    // Caught here: a prefetch that fails must never surface as an unhandled rejection or fail the run.
    entry.page = load().catch(() => {
      entry.failed = true;
      this.pages.delete(key);
      return null;
    });
    this.pages.set(key, entry);
    while (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value!);
    return true;
  }

  /** The prefetched page, or undefined when there is none or it failed (the caller then fetches it itself). */
  async take(title: string): Promise<Page | null | undefined> {
    const entry = this.pages.get(keyOf(title));
    if (!entry) return undefined;
    const page = await entry.page;
    return entry.failed ? undefined : page;
  }
}

export interface PrefetchOptions {
  /** When the run's wall time ends (epoch ms): no prefetch starts close to it, and none is waited for past it. */
  deadline?: number;
  /** Told when a prefetch starts and when a read is served by one (the run's usage counts both). */
  onStart?: () => void;
  onHit?: () => void;
}

/** `inner` with its searches starting a fetch of their top page and its page reads served from those fetches. */
export const prefetching = (inner: Evidence, store: PagePrefetch, options: PrefetchOptions = {}): Evidence => {
  const timeLeft = () => (options.deadline === undefined ? Infinity : options.deadline - Date.now());
  return {
    kind: inner.kind,
    wikidataId: (title) => inner.wikidataId(title),
    sparql: (query) => inner.sparql(query),
    labels: (ids, language) => inner.labels(ids, language),
    properties: (id, limit) => inner.properties(id, limit),
    ...(inner.health ? { health: () => inner.health!() } : {}),
    search: async (query, limit) => {
      const hits = await inner.search(query, limit);
      const top = hits[0]?.title;
      if (top && timeLeft() > MIN_REMAINING_MS) {
        const budget = timeLeft();
        const load = () =>
          new Promise<Page | null>((resolve, reject) => {
            // Past the run's wall time the page is abandoned: nothing waits for it then.
            const timer = Number.isFinite(budget) ? setTimeout(() => reject(new Error('prefetch past the run wall time')), budget) : undefined;
            inner.page(top).then(resolve, reject).finally(() => clearTimeout(timer));
          });
        if (store.start(top, load)) options.onStart?.();
      }
      return hits;
    },
    page: async (title) => {
      const ready = await store.take(title);
      if (ready !== undefined) {
        options.onHit?.();
        return ready;
      }
      return inner.page(title);
    },
  };
};
