import { env, exports } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installTestVars } from '../../src/config-test-vars';
import { installScript } from '../../src/llm/scripted';
import { KG_ENDPOINTS } from '../../src/evidence/crag/endpoints';
import { createLiveKg } from '../../src/evidence/live/crag-kg';
import { recordingKg, replayingKg, type EvidenceRecord } from '../../src/evidence/recording';
import { EvidenceError } from '../../src/evidence/types';
import type { Gate, GateNamespace } from '../../src/net/politeness/pass';
import { cragKg } from '../support/crag-kg';
import { get, post } from '../engine/helpers';

/**
 * The CRAG mock-KG client of the evidence layer against a stand-in of the 38 endpoints, served over real HTTP on
 * 127.0.0.1 (tests/support/crag-kg-standin.mjs). Every test asks about names of its own, so tests in other files that
 * use the same stand-in at the same time never see each other's requests or faults.
 */
const kg = cragKg();

/** A politeness gate of its own per test (the gate Durable Object every run shares, under a name nobody else uses). */
const gate = (name: string): ((url: URL) => Gate) => {
  const ns = env.POLITENESS_GATE as unknown as GateNamespace;
  const client: Gate = {
    backend: ns.get(ns.idFromName(`test:${name}`)),
    policy: { concurrency: 2, leaseMs: 20_000, maxBackoffMs: 120_000, enforce: true },
    host: new URL(kg.url).host,
    maxWaitMs: 10_000,
  };
  return () => client;
};

const failure = async (p: Promise<unknown>): Promise<EvidenceError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EvidenceError);
  return err as EvidenceError;
};

/** A well-formed body for each endpoint, by the shape its schema takes. */
const sampleArgs = (path: string): Record<string, unknown> => {
  if (path === 'music/grammy_get_all_awarded_artists') return {};
  if (path === 'music/get_billboard_rank_date') return { rank: 1, date: '2024-02-24' };
  if (path === 'music/get_billboard_attributes') return { date: '2024-02-24', attribute: 'weeks_in_chart', song_name: 'Lovin On Me' };
  if (path.endsWith('/get_games_on_date')) return { date: '2024-03' };
  if (path.endsWith('/get_play_by_play_data_by_game_ids')) return { game_ids: ['0022300832'] };
  if (path === 'movie/get_year_info') return { query: '1994' };
  if (path.endsWith('_by_id')) return { query: 13 };
  if (path.endsWith('_by_year')) return { query: 2012 };
  return { query: path.startsWith('finance/get_') && !path.includes('name') ? 'MSFT' : 'Adele' };
};

describe('the CRAG KG client (evidence layer) against a stand-in of the mock API', () => {
  it('reaches each of the 38 endpoints with a body of its shape, and reads each answer', async () => {
    const api = createLiveKg(kg.url);
    expect(KG_ENDPOINTS).toHaveLength(38);
    for (const e of KG_ENDPOINTS) {
      const text = await api.call({ endpoint: e.path, args: sampleArgs(e.path) }).catch((err: Error) => `failed: ${err.message}`);
      expect(text, e.path).not.toMatch(/^failed/);
    }
  });

  it('POSTs a validated call as JSON and returns its result as prompt-sized text', async () => {
    const api = createLiveKg(kg.url);
    const text = await api.call({ endpoint: 'movie/get_person_info', args: { query: 'Robert Zemeckis' } });
    expect(JSON.parse(text)[0]).toMatchObject({ name: 'Robert Zemeckis', birthday: '1952-05-14' });
    const [sent] = await kg.requests('Robert Zemeckis');
    expect(sent.path).toBe('movie/get_person_info');
    expect(JSON.parse(sent.body)).toEqual({ query: 'Robert Zemeckis' });

    // A film as the API describes it (cast, crew, awards), shortened: ten items of a list at most, the whole under 1,500 characters.
    const film = await api.call({ endpoint: 'movie/get_movie_info', args: { query: 'Forrest Gump' } });
    expect(film.length).toBeLessThanOrEqual(1_501);
    expect(film).toContain('"release_date":"1994-07-06"');
  });

  it('refuses an unknown endpoint or a malformed body before anything is sent', async () => {
    const api = createLiveKg(kg.url);
    expect((await failure(api.call({ endpoint: 'admin/drop_tables', args: { query: 'Qwv Refused' } }))).code).toBe('refused');
    const badRank = await failure(api.call({ endpoint: 'music/get_billboard_rank_date', args: { rank: 500, date: '2024-02-24', note: 'Qwv Refused' } }));
    expect(badRank.message).toMatch(/^Refused: music\/get_billboard_rank_date: .*nothing was sent/);
    expect(await kg.requests('Qwv Refused')).toEqual([]);
  });

  it('says where a server that is not the KG API sent it, in a few words', async () => {
    const api = createLiveKg(`${kg.url}/not-the-api`);
    const err = await failure(api.call({ endpoint: 'open/get_entity', args: { query: 'Qwv Wrong Base' } }));
    expect(err.code).toBe('upstream');
    expect(err.message).toMatch(/answered HTTP 404: \{"detail":"Not Found"\}/);
  });

  it('stops reading a body that never ends at the byte cap, and says so', async () => {
    await kg.fault({ match: 'Qwv Endless', endless: true });
    const api = createLiveKg(kg.url, { maxResponseBytes: 256 * 1024, maxRetries: 0 });
    const err = await failure(api.call({ endpoint: 'open/get_entity', args: { query: 'Qwv Endless' } }));
    expect(err.code).toBe('too_large');
    expect(err.message).toMatch(/sent more than 256 KB; the answer was not read/);
  });

  it("waits out a 429's Retry-After at the host's gate, then gets the answer; nothing is sent inside the wait", async () => {
    await kg.fault({ match: 'Qwv Busy Corp', status: 429, retryAfter: 1, count: 1 });
    const api = createLiveKg(kg.url, { gateFor: gate('busy') });
    expect(await api.call({ endpoint: 'finance/get_ticker_by_name', args: { query: 'Qwv Busy Corp' } })).toBe('null');
    const sent = await kg.requests('Qwv Busy Corp');
    expect(sent).toHaveLength(2);
    expect(sent.filter((r) => r.insideRetryAfter)).toEqual([]);
  });

  it('gives up unsent when the Retry-After is longer than a run may wait, and the next run does not knock either', async () => {
    await kg.fault({ match: 'Qwv Overloaded', status: 429, retryAfter: 120, count: 5 });
    const gated = gate('overloaded');
    const err = await failure(createLiveKg(kg.url, { gateFor: gated }).call({ endpoint: 'finance/get_eps', args: { query: 'Qwv Overloaded' } }));
    expect(err.code).toBe('backoff');
    expect(err.message).toMatch(/120 s/);
    const again = await failure(createLiveKg(kg.url, { gateFor: gated }).call({ endpoint: 'finance/get_pe_ratio', args: { query: 'Qwv Overloaded' } }));
    expect(again.code).toBe('backoff');
    const sent = await kg.requests('Qwv Overloaded');
    expect(sent).toHaveLength(1);
  });

  it('serves the same call again from the gate\'s cache, shared by every run', async () => {
    const gated = gate('cache');
    const lookups: boolean[] = [];
    const works = async () => (await kg.requests('Adele')).filter((r) => r.path === 'music/get_artist_all_works').length;
    const before = await works();
    const first = await createLiveKg(kg.url, { gateFor: gated }).call({ endpoint: 'music/get_artist_all_works', args: { query: 'Adele' } });
    const second = await createLiveKg(kg.url, { gateFor: gated, scope: { onCache: (hit) => lookups.push(hit) } }).call({ endpoint: 'music/get_artist_all_works', args: { query: 'Adele' } });
    expect(second).toBe(first);
    expect(lookups).toEqual([true]);
    expect(await works()).toBe(before + 1);
  });
});

describe('CRAG KG calls in a recording', () => {
  it('are recorded with their result, and replayed without a request; an unrecorded call is a miss', async () => {
    const records: EvidenceRecord[] = [];
    const call = { endpoint: 'finance/get_market_capitalization', args: { query: 'MSFT' } };
    const live = await recordingKg(createLiveKg(kg.url), (r) => void records.push(r)).call(call);
    expect(live).toBe('3040000000000');
    expect(records).toEqual([{ key: 'kg finance/get_market_capitalization {"query":"MSFT"}', request: { source: 'kg', ...call }, response: { body: live } }]);

    const archive = new Map(records.map((r) => [r.key, JSON.stringify(r.response)]));
    let misses = 0;
    const replay = replayingKg({ get: async (k) => archive.get(k) }, () => misses++);
    const before = (await kg.requests('MSFT')).length;
    expect(await replay.call(call)).toBe(live);
    await expect(replay.call({ endpoint: 'finance/get_pe_ratio', args: { query: 'MSFT' } })).rejects.toThrow('not in the recording: kg finance/get_pe_ratio({"query":"MSFT"})');
    expect(misses).toBe(1);
    expect(await kg.requests('MSFT')).toHaveLength(before);
  });

  it("records a failure as the source's error, so a replay fails the same way", async () => {
    await kg.fault({ match: 'Qwv Down', status: 503, count: 10 });
    const records: EvidenceRecord[] = [];
    const err = await failure(recordingKg(createLiveKg(kg.url, { maxRetries: 0 }), (r) => void records.push(r)).call({ endpoint: 'open/get_entity', args: { query: 'Qwv Down' } }));
    expect(records.map((r) => r.response)).toEqual([{ error: { code: 'upstream', message: err.message } }]);
  });
});

describe('a rag run that calls the KG API', () => {
  const page = { url: 'https://example.org/films', html: '<p>Forrest Gump is a 1994 film.</p>' };
  const script = () =>
    installScript({
      attribute: Array(3).fill('Dynamism: static\nDomain: movie'),
      calculator: ['NONE', 'NONE', 'NONE'],
      parametric: ['Answer: 1952\nFalse premise: no'],
      kg: ['{"person": ["Robert Zemeckis"]}'],
      reasoning: ['<answer>May 14, 1952</answer>'],
    });
  // The run's KG server is the stand-in (a test build's vars over the Worker's own).
  beforeEach(() => installTestVars({ CRAG_API_URL: kg.url }));
  afterEach(() => installTestVars());
  const ask = (options: Record<string, unknown>) =>
    post('/v1/answer', { question: 'When was the director Robert Zemeckis born?', variant: 'crag', mode: 'rag', context: { pages: [page] }, options: { kgMode: 'rules', ...options } });

  it("goes through the run's gate, lands in its evidence archive, and a replay of that archive sends nothing", async () => {
    const before = (await kg.requests('Robert Zemeckis')).length;
    script();
    const run = await (await ask({})).json<any>();
    expect(run.status).toBe('succeeded');
    expect(await kg.requests('Robert Zemeckis')).toHaveLength(before + 1);
    // The entities step plans the call; the fetch step shows what came back.
    const fetched = run.steps.filter((s: any) => s.type === 'observation' && s.tool === 'kg').at(-1);
    expect(fetched.output).toContain('"birthday":"1952-05-14"');
    // Asked of the KG host's gate first (its cache, shared by every run, did not have it): the run's usage counts it.
    expect(run.usage.evidence).toMatchObject({ cacheHits: 0, cacheMisses: 1 });

    const archive = await (await get(`/v1/runs/${run.runId}/evidence`)).text();
    const kgLines = archive.trim().split('\n').slice(1).map((l) => JSON.parse(l)).filter((l) => l.request.source === 'kg');
    expect(kgLines).toEqual([
      { key: 'kg movie/get_person_info {"query":"Robert Zemeckis"}', request: { source: 'kg', endpoint: 'movie/get_person_info', args: { query: 'Robert Zemeckis' } }, response: { body: expect.stringContaining('"birthday":"1952-05-14"') } },
    ]);

    const upload = await exports.default.fetch('http://localhost/v1/archives', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: archive });
    const { archiveId } = await upload.json<any>();
    script();
    const replayed = await (await ask({ evidence: { replay: archiveId } })).json<any>();
    expect(replayed).toMatchObject({ status: 'succeeded', answer: run.answer, replay: { archiveId, misses: 0 } });
    expect(replayed.usage.evidence).toBeUndefined();
    expect(await kg.requests('Robert Zemeckis')).toHaveLength(before + 1);
  });
});
