import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { installTestVars } from '../../src/config-test-vars';
import { installScript } from '../../src/llm/scripted';
import { PagePrefetch, prefetching } from '../../src/evidence/prefetch';
import type { Evidence, Page } from '../../src/evidence/types';
import { get, post, readSse } from '../engine/helpers';
import { createMediaWikiStandIn } from '../support/wikimedia-standins.mjs';

/** Evidence ahead of need (issue 25): a search's top page is fetched in the background for the read that follows. */
const QUESTION = 'In which city was the director of Forrest Gump born?';

// The Worker's first start (its bundle, the snapshot) can take long on a busy machine.
beforeAll(() => get('/healthz'), 120_000);

describe('a search prefetches its top page', () => {
  it('serves the following read from the prefetched page and counts it in the run usage', async () => {
    installScript({
      agent: [
        ' Find him.\nAction: wikisearch\nAction Input: Robert Zemeckis',
        ' Read his page.\nAction: read\nAction Input: Robert Zemeckis # Where was he born?',
        ' Done.\nFinal Answer: Chicago',
      ],
      read: ['He was born in Chicago, Illinois.'],
      parametric: ['Chicago'],
      final: ['Chicago'],
    });
    const events = await readSse(await post('/v1/answer', { question: QUESTION, options: { fewshot: 'zero-shot' } }, { accept: 'text/event-stream' }));
    const done = events.at(-1)!.data;
    expect(done.status).toBe('succeeded');
    expect(done.usage.prefetch).toEqual({ pages: 1, hits: 1 });
    // The read still cites the page: the recording sees it as any read.
    const answer = events.find((e) => e.event === 'answer')!.data;
    expect(answer.citations.some((c: { key: string }) => /page/.test(c.key) && /Robert Zemeckis/.test(c.key))).toBe(true);
  });
});

describe('a live search prefetches its top page', () => {
  beforeEach(() => installTestVars({ EVIDENCE: 'live' }));
  afterEach(() => {
    vi.restoreAllMocks();
    installTestVars();
  });

  it('through the politeness gate, still in flight when the next step reads it, and the read waits for that fetch', async () => {
    // Slow pages: the search's step ends, and the model's next turn runs, while the page is still on its way.
    const wiki = createMediaWikiStandIn({ latencyMs: 400 });
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const host = new URL(request.url).host;
      if (host === 'en.wikipedia.org' || host === 'www.wikidata.org') return wiki.handle(request);
      throw new TypeError(`unexpected host ${host}`);
    });
    installScript({
      agent: [' Search.\nAction: wikisearch\nAction Input: Ada Lovelace', ' Read it.\nAction: read\nAction Input: Ada Lovelace (topic) # When did it begin?', ' Done.\nFinal Answer: 1900'],
      read: ['It began in 1900.'],
      parametric: ['1815'],
      final: ['1900'],
    });
    const run = await (
      await post('/v1/answer', { question: 'When did Ada Lovelace begin?', options: { fewshot: 'zero-shot' } }, { accept: 'application/json' })
    ).json<any>();
    expect(run.status).toBe('succeeded');
    expect(run.usage.prefetch).toEqual({ pages: 1, hits: 1 });
    const read = run.steps.filter((s: any) => s.type === 'observation')[1];
    expect(read).toMatchObject({ tool: 'read', error: false });
    // The page was asked for once (its text and its tables), by the prefetch, one request at a time.
    expect(wiki.stats()).toMatchObject({ peakConcurrency: 1 });
    expect(wiki.stats().requests).toBeLessThanOrEqual(4);
  });
});

const page = (title: string): Page => ({ title, url: `https://en.wikipedia.org/wiki/${title}`, sections: [{ heading: '', text: `${title} text` }], tables: [] });

/** An evidence double that counts page fetches and can be told to fail them. */
const fakeEvidence = (opts: { failPages?: boolean } = {}) => {
  const fetched: string[] = [];
  const evidence = {
    kind: 'static',
    search: async () => [{ title: 'Top Page', snippet: '', url: '' }, { title: 'Second', snippet: '', url: '' }],
    page: async (title: string) => {
      fetched.push(title);
      if (opts.failPages) throw new Error('upstream down');
      return page(title);
    },
  } as unknown as Evidence;
  return { evidence, fetched };
};

describe('prefetching evidence', () => {
  it('fetches only the top hit, once, and a read of another page goes to the source', async () => {
    const { evidence, fetched } = fakeEvidence();
    const counts = { started: 0, hits: 0 };
    const ev = prefetching(evidence, new PagePrefetch(), { onStart: () => counts.started++, onHit: () => counts.hits++ });
    await ev.search('x');
    await ev.search('x');
    expect(await ev.page('Top_Page')).toMatchObject({ title: 'Top Page' });
    expect(await ev.page('Second')).toMatchObject({ title: 'Second' });
    expect(fetched).toEqual(['Top Page', 'Second']);
    expect(counts).toEqual({ started: 1, hits: 1 });
  });

  it('a failed prefetch fails nothing: the read asks the source itself and gets its answer', async () => {
    const { evidence, fetched } = fakeEvidence({ failPages: true });
    let hits = 0;
    const ev = prefetching(evidence, new PagePrefetch(), { onHit: () => hits++ });
    await expect(ev.search('x')).resolves.toHaveLength(2);
    await expect(ev.page('Top Page')).rejects.toThrow('upstream down');
    expect(fetched).toEqual(['Top Page', 'Top Page']);
    expect(hits).toBe(0);
  });

  it('starts nothing when the run has almost no wall time left', async () => {
    const { evidence, fetched } = fakeEvidence();
    let started = 0;
    const ev = prefetching(evidence, new PagePrefetch(), { deadline: Date.now() + 500, onStart: () => started++ });
    await ev.search('x');
    expect(started).toBe(0);
    expect(fetched).toEqual([]);
  });
});
