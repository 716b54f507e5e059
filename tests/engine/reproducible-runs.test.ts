import { afterEach, describe, expect, it, vi } from 'vitest';
import { env, exports } from 'cloudflare:workers';
import { archiveInfo, archiveReplaySource, createArchive } from '../../src/storage/archives';
import { installTestVars } from '../../src/config-test-vars';
import { installScript } from '../../src/llm/scripted';
import { tickExecutions } from '../../src/strategies/testing/tool-loop';
import { deployedStyle, uniqueKey } from '../public/helpers';
import { get, post } from './helpers';
import { chicagoAgentScript } from '../hqa/fixtures';

const waitUntilEnded = async (runId: string) => {
  for (let i = 0; i < 400; i++) {
    const run = await (await get(`/v1/runs/${runId}`)).json<any>();
    if (['succeeded', 'failed', 'limited', 'cancelled'].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('run did not end');
};

const uploadArchive = (text: string) =>
  exports.default.fetch('http://localhost/v1/archives', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: text });

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });

/** A tiny stand-in of Wikipedia search, page props and the Wikidata query service; counts what it serves. */
const startFakeWikimedia = () => {
  const served: string[] = [];
  let up = true;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (!up) throw new TypeError('fetch failed: connection refused (the stand-in is stopped)');
    served.push(url.href);
    const p = url.searchParams;
    if (url.pathname.endsWith('/sparql')) {
      return json({ head: { vars: ['place'] }, results: { bindings: [{ place: { type: 'uri', value: 'http://www.wikidata.org/entity/Q1297' } }] } });
    }
    if (p.get('action') === 'wbgetentities') {
      const ids = (p.get('ids') ?? '').split('|');
      return json({ entities: Object.fromEntries(ids.map((id) => [id, { labels: { en: { value: id === 'Q1297' ? 'Chicago' : `Label ${id}` } } }])) });
    }
    if (p.get('list') === 'search') {
      return json({ query: { search: [{ title: 'Forrest Gump', snippet: 'a 1994 film directed by <b>Robert Zemeckis</b>' }] } });
    }
    if (p.get('action') === 'query' && p.get('titles')) {
      return json({ query: { pages: [{ title: p.get('titles'), pageprops: { wikibase_item: 'Q187364' } }] } });
    }
    return json({});
  });
  return { served, stop: () => (up = false) };
};

const agentScript = chicagoAgentScript;

/** The trace without what measures time (event times, tool durations): those differ between any two runs. */
const trace = (run: any) => run.steps.map(({ at: _at, ms: _ms, id: _id, ...rest }: any) => rest);

afterEach(() => {
  vi.restoreAllMocks();
  installTestVars();
});

describe('recording and replaying a run', () => {
  it('a run recorded live replays offline from its archive with the identical trace and answer', async () => {
    const wikimedia = startFakeWikimedia();
    const question = 'In which city was the director of Forrest Gump born?';
    installScript(agentScript());
    // Recorded from live evidence (the stand-in above), then replayed with the same vars: the archive answers instead.
    installTestVars({ EVIDENCE: 'live' });
    const recorded = await (await post('/v1/answer', { question, mode: 'agent', options: { fewshot: 'zero-shot' } })).json<any>();
    expect(recorded).toMatchObject({ status: 'succeeded', answer: 'Chicago', replay: null });
    expect(wikimedia.served.length).toBeGreaterThan(0);

    const res = await get(`/v1/runs/${recorded.runId}/evidence`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const archive = await res.text();
    const [header, ...lines] = archive.trim().split('\n').map((l) => JSON.parse(l));
    expect(header).toMatchObject({ format: 'humaniq-evidence-archive', version: 1, records: lines.length, runs: [recorded.runId] });
    expect(lines.map((l) => l.request.method)).toEqual(expect.arrayContaining(['search', 'wikidataId', 'sparql']));
    for (const l of lines) expect(l).toEqual({ key: expect.any(String), request: expect.any(Object), response: expect.any(Object) });

    wikimedia.stop();
    const upload = await uploadArchive(archive);
    expect(upload.status).toBe(201);
    const { archiveId, records } = await upload.json<any>();
    expect(records).toBe(lines.length);

    installScript(agentScript());
    const served = wikimedia.served.length;
    const replayed = await (await post('/v1/answer', { question, mode: 'agent', options: { fewshot: 'zero-shot', evidence: { replay: archiveId } } })).json<any>();
    expect(replayed.status).toBe('succeeded');
    expect(replayed.answer).toBe(recorded.answer);
    expect(trace(replayed)).toEqual(trace(recorded));
    expect(replayed.replay).toEqual({ archiveId, misses: 0 });
    expect(wikimedia.served.length).toBe(served);
  });

  it('a request the archive does not hold is answered "not in the recording" and counted', async () => {
    const header = JSON.stringify({ format: 'humaniq-evidence-archive', version: 1, records: 0, createdAt: new Date().toISOString() });
    const { archiveId } = await (await uploadArchive(`${header}\n`)).json<any>();
    installScript(agentScript());
    const run = await (await post('/v1/answer', { question: 'Where was the director of Forrest Gump born?', mode: 'agent', options: { fewshot: 'zero-shot', evidence: { replay: archiveId } } })).json<any>();
    const observations = run.steps.filter((s: any) => s.type === 'observation').map((s: any) => s.output);
    expect(observations[0]).toContain('not in the recording: search("Forrest Gump"');
    expect(run.usage.replayMisses).toBeGreaterThan(0);
    expect(run.replay).toEqual({ archiveId, misses: run.usage.replayMisses });
  });

  it('refuses an archive that is not one, and a run naming an archive that does not exist before it starts', async () => {
    const bad = await uploadArchive('{"hello": 1}\n');
    expect(bad.status).toBe(400);
    expect((await bad.json<any>()).error.code).toBe('invalid_archive');
    const wrongType = await exports.default.fetch('http://localhost/v1/archives', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(wrongType.status).toBe(415);
    installScript({ final: ['x'] });
    const missing = await post('/v1/answer', { question: 'tick', mode: 'test-tool-loop', options: { calls: 1, evidence: { replay: `arc_${'0'.repeat(32)}` } } });
    expect(missing.status).toBe(404);
    expect((await missing.json<any>()).error).toMatchObject({ code: 'not_found', message: expect.stringContaining('POST /v1/archives') });
    const invalid = await post('/v1/answer', { question: 'tick', mode: 'test-tool-loop', options: { evidence: { replay: 'nope' } } });
    expect(invalid.status).toBe(400);
  });
});

const HEADER = JSON.stringify({ format: 'humaniq-evidence-archive', version: 1, records: 0, createdAt: '2026-11-24T00:00:00.000Z' });
const searchRecord = (query: string, hits: unknown) =>
  // The agent's wikisearch asks for 5 hits.
  JSON.stringify({ key: `evidence search ${JSON.stringify([query, 5])}`, request: { source: 'evidence', kind: 'static', method: 'search', args: [query, 5] }, response: { body: hits } });
const hit = (title: string) => [{ title, snippet: `${title} is a 1994 film`, url: `https://en.wikipedia.org/wiki/${title}` }];
const agentRun = (archiveId: string) =>
  post('/v1/answer', { question: 'Who directed Forrest Gump?', mode: 'agent', options: { fewshot: 'zero-shot', evidence: { replay: archiveId } } });
const observationsOf = (run: any): string[] => run.steps.filter((s: any) => s.type === 'observation').map((s: any) => s.output);

describe('uploading an archive', () => {
  it('refuses a body of blank lines at the first one, and stops reading a body that never ends', async () => {
    let pulls = 0;
    const blank = new TextEncoder().encode('\n'.repeat(64 * 1024));
    const endless = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new TextEncoder().encode(`${HEADER}\n`)),
      pull: (c) => {
        pulls++;
        c.enqueue(blank);
      },
    });
    const res = await exports.default.fetch('http://localhost/v1/archives', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: endless });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'invalid_archive', message: 'line 2 is blank; an archive has one JSON object on every line' } });
    // After the refusal the rest is dropped unread, up to 64 MiB (so clients that send everything first hear the answer).
    expect(pulls).toBeLessThanOrEqual(64 * 16 + 2);
  });

  it('refuses a body that does not have the shape of its request kind, naming the line', async () => {
    const res = await uploadArchive(`${HEADER}\n${searchRecord('Forrest Gump', hit('Forrest Gump'))}\n${searchRecord('Tom Hanks', { title: 'not a list' })}\n`);
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.message).toMatch(/^line 3: search: /);
  });

  it('keeps the first of repeated records: they collapse as they arrive and the first response is replayed', async () => {
    const copies = Array.from({ length: 500 }, (_, i) => searchRecord('Forrest Gump', hit(i === 0 ? 'First Recorded' : `Later Copy ${i}`)));
    const res = await uploadArchive(`${HEADER}\n${copies.join('\n')}\n`);
    expect(res.status).toBe(201);
    const { archiveId, records } = await res.json<any>();
    expect(records).toBe(1);
    installScript(agentScript());
    const run = await (await agentRun(archiveId)).json<any>();
    expect(observationsOf(run)[0]).toContain('First Recorded');
    expect(observationsOf(run)[0]).not.toContain('Later Copy');
  });

  it('refuses an archive over ARCHIVE_MAX_BYTES with 413 and keeps nothing of it', async () => {
    const app = deployedStyle({ ARCHIVE_MAX_BYTES: '4096' });
    const lines = Array.from({ length: 200 }, (_, i) => searchRecord(`query ${i}`, hit(`Page ${i}`)));
    const res = await app('/v1/archives', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: `${HEADER}\n${lines.join('\n')}\n` });
    expect(res.status).toBe(413);
    expect((await res.json<any>()).error).toMatchObject({ code: 'payload_too_large', message: expect.stringContaining('over 4096 bytes') });
    const { results } = await env.DB.prepare('SELECT count(*) AS n FROM archives WHERE complete = 0').all<{ n: number }>();
    expect(results[0].n).toBe(0);
  });
});

describe('replaying an archive', () => {
  it('looks up each record by its key: one query per request, none for the rest of the archive', async () => {
    const others = Array.from({ length: 300 }, (_, i) => searchRecord(`unrelated ${i}`, hit(`Other ${i}`)));
    const { archiveId, records } = await (await uploadArchive(`${HEADER}\n${others.join('\n')}\n${searchRecord('Forrest Gump', hit('Forrest Gump'))}\n`)).json<any>();
    expect(records).toBe(301);
    const statements: Array<{ sql: string; args: unknown[] }> = [];
    const watched = {
      prepare: (sql: string) => {
        const stmt = env.DB.prepare(sql);
        const bind = stmt.bind.bind(stmt);
        return Object.assign(stmt, { bind: (...args: unknown[]) => (statements.push({ sql, args }), bind(...args)) });
      },
      batch: (all: D1PreparedStatement[]) => env.DB.batch(all),
    } as unknown as D1Database;
    const source = archiveReplaySource({ DB: watched }, archiveId);
    const body = await source.get('evidence search ["Forrest Gump",5]');
    expect(JSON.parse(body!)).toEqual({ body: hit('Forrest Gump') });
    expect(await source.get('evidence search ["never asked"]')).toBeUndefined();
    const reads = statements.filter((s) => /FROM archive_records/.test(s.sql));
    expect(reads).toHaveLength(2);
    for (const r of reads) expect(r.sql).toMatch(/archive_id = \? AND record_key = \?/);
  });

  it('turns a stored body of the wrong shape into a clear observation, counted as a miss; the run goes on', async () => {
    const { archiveId } = await (await uploadArchive(`${HEADER}\n${searchRecord('Forrest Gump', hit('Forrest Gump'))}\n`)).json<any>();
    // Storage that changed under the server (or an archive stored before the shape check): the tool must not see it.
    await env.DB.prepare('UPDATE archive_records SET piece = ? WHERE archive_id = ?').bind('{"body":{"hits":"not a list"}}', archiveId).run();
    installScript(agentScript());
    const run = await (await agentRun(archiveId)).json<any>();
    expect(run.status).toBe('succeeded');
    expect(observationsOf(run)[0]).toMatch(/the recording's answer to search\("Forrest Gump".*is not usable \(expected array/);
    expect(run.usage.replayMisses).toBeGreaterThan(0);
  });
});

describe('archives with API keys', () => {
  const keyA = uniqueKey('arc-a');
  const keyB = uniqueKey('arc-b');
  const app = deployedStyle({ API_KEYS: `${keyA},${keyB}`, RATE_LIMIT_PER_MINUTE: '1000' });
  const as = (key: string, path: string, body: unknown, type = 'application/json') =>
    app(path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it("belong to the key that uploaded them: another key's replay, direct or through a fork's options, is a 404 before any run starts", async () => {
    const upload = await as(keyA, '/v1/archives', `${HEADER}\n${searchRecord('Forrest Gump', hit('Forrest Gump'))}\n`, 'application/x-ndjson');
    expect(upload.status).toBe(201);
    const { archiveId } = await upload.json<any>();
    const before = (await (await app('/v1/runs?limit=100', { headers: { authorization: `Bearer ${keyB}` } })).json<any>()).runs.length;

    const direct = await as(keyB, '/v1/answer', { question: 'tick', mode: 'test-tool-loop', options: { calls: 0, evidence: { replay: archiveId } } });
    expect(direct.status).toBe(404);
    expect((await direct.json<any>()).error.code).toBe('not_found');

    installScript({ final: ['own run of B'] });
    const own = await (await as(keyB, '/v1/answer', { question: 'tick', mode: 'test-tool-loop', options: { calls: 1 } })).json<any>();
    expect(own.status).toBe('succeeded');
    const fork = await as(keyB, `/v1/runs/${own.runId}/fork`, { fromStep: 1, options: { evidence: { replay: archiveId } } });
    expect(fork.status).toBe(404);
    expect((await fork.json<any>()).error.code).toBe('not_found');
    // Only B's own run was made.
    expect((await (await app('/v1/runs?limit=100', { headers: { authorization: `Bearer ${keyB}` } })).json<any>()).runs.length).toBe(before + 1);

    installScript({ final: ['replayed by A'] });
    const mine = await as(keyA, '/v1/answer', { question: 'tick', mode: 'test-tool-loop', options: { calls: 0, evidence: { replay: archiveId } } });
    expect(mine.status).toBe(200);
    expect((await mine.json<any>()).replay).toEqual({ archiveId, misses: 0 });
  });
});

describe('forking a run', () => {
  it('a fork from step 3 keeps steps 1–3 byte for byte, runs only what follows, and leaves the parent as it was', async () => {
    installScript({ final: ['parent answer', 'fork answer'] });
    const parent = await (await post('/v1/answer', { question: 'tick five times', mode: 'test-tool-loop', options: { calls: 5, runKey: 'fork-parent' } })).json<any>();
    expect(parent.status).toBe('succeeded');
    expect(tickExecutions.get('fork-parent')).toEqual([1, 2, 3, 4, 5]);
    const parentBefore = await (await get(`/v1/runs/${parent.runId}`)).json<any>();
    const step3 = parentBefore.checkpoints.find((c: any) => c.step === 3);
    expect(step3).toBeDefined();

    const res = await post(`/v1/runs/${parent.runId}/fork`, { fromStep: 3 });
    expect(res.status).toBe(201);
    const { runId, parent: link } = await res.json<any>();
    expect(link).toEqual({ runId: parent.runId, fromStep: 3 });
    const child = await waitUntilEnded(runId);
    expect(child).toMatchObject({ status: 'succeeded', answer: 'fork answer', parent: { runId: parent.runId, fromStep: 3 } });

    // Steps 1–3 (every event up to the last one step 3 stored) are the parent's, as stored.
    const inherited = parentBefore.steps.filter((s: any) => s.id <= step3.lastEventId);
    expect(inherited).toHaveLength(9);
    expect(JSON.stringify(child.steps.slice(0, inherited.length))).toBe(JSON.stringify(inherited));
    // Only ticks 4 and 5 ran again.
    expect(tickExecutions.get('fork-parent')).toEqual([1, 2, 3, 4, 5, 4, 5]);
    expect(child.steps.slice(inherited.length).filter((s: any) => s.type === 'observation').map((s: any) => s.output)).toEqual(['tick 4 done', 'tick 5 done']);

    const parentAfter = await (await get(`/v1/runs/${parent.runId}`)).json<any>();
    expect(JSON.stringify(parentAfter.steps)).toBe(JSON.stringify(parentBefore.steps));
    expect(parentAfter.answer).toBe('parent answer');
    expect(parentAfter.forks).toEqual([{ runId, fromStep: 3 }]);
  });

  it('refuses a step the run does not have', async () => {
    installScript({ final: ['done'] });
    const parent = await (await post('/v1/answer', { question: 'tick twice', mode: 'test-tool-loop', options: { calls: 2, runKey: 'fork-bad' } })).json<any>();
    const res = await post(`/v1/runs/${parent.runId}/fork`, { fromStep: 40 });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.code).toBe('invalid_step');
    expect((await post(`/v1/runs/${crypto.randomUUID()}/fork`, { fromStep: 1 })).status).toBe(404);
  });
});

describe('a strategy whose start throws', () => {
  it('ends the run failed with an error event instead of leaving it running', async () => {
    installScript({ final: ['never asked'] });
    const run = await (await post('/v1/answer', { question: 'tick', mode: 'test-tool-loop', options: { failStart: true } })).json<any>();
    expect(run.status).toBe('failed');
    expect(run.error).toEqual({ code: 'step_failed', message: 'start failed on purpose' });
    expect(run.answer).toBeNull();
  });
});

/** The part of an R2 bucket the archive store uses, in memory: put, get (with a byte range), list by prefix, delete. */
const memoryBucket = () => {
  const objects = new Map<string, Uint8Array>();
  const body = (bytes: Uint8Array) => ({ text: async () => new TextDecoder().decode(bytes), json: async () => JSON.parse(new TextDecoder().decode(bytes)) });
  return {
    objects,
    put: async (key: string, value: string | Uint8Array) => void objects.set(key, typeof value === 'string' ? new TextEncoder().encode(value) : value),
    get: async (key: string, options?: { range?: { offset: number; length: number } }) => {
      const bytes = objects.get(key);
      if (!bytes) return null;
      const r = options?.range;
      return body(r ? bytes.subarray(r.offset, r.offset + r.length) : bytes);
    },
    list: async ({ prefix }: { prefix: string }) => ({ objects: [...objects.keys()].filter((k) => k.startsWith(prefix)).map((key) => ({ key })), truncated: false }),
    delete: async (keys: string[]) => keys.forEach((k) => objects.delete(k)),
  };
};

describe('archives in R2 (deploys)', () => {
  it('stores records in chunks with an index, answers each by key, and a refused upload leaves nothing', async () => {
    const bucket = memoryBucket();
    const bindings = { DB: env.DB, ARCHIVES: bucket as unknown as R2Bucket };
    const writer = await createArchive(bindings, 'key:abc');
    const keys = Array.from({ length: 4_500 }, (_, i) => `evidence wikidataId ["Title ${i}"]`);
    // A 10 MB body fills a chunk of its own; the small ones share the next.
    await writer.add('evidence page ["Ünïcödé"]', JSON.stringify({ body: null, note: 'é'.repeat(5_000_000) }));
    for (const [i, key] of keys.entries()) await writer.add(key, JSON.stringify({ body: `Q${i}` }));
    // Nothing is visible before the upload was read whole.
    expect(await archiveInfo(bindings, writer.archiveId)).toBeNull();
    await writer.commit(keys.length + 1);
    expect(await archiveInfo(bindings, writer.archiveId)).toMatchObject({ owner: 'key:abc', records: 4_501 });
    const names = [...bucket.objects.keys()].map((k) => k.split('/').at(-1));
    expect(names.filter((n) => n!.startsWith('index-'))).toHaveLength(3);
    expect(names.filter((n) => n!.startsWith('chunk-'))).toHaveLength(2);

    const source = archiveReplaySource(bindings, writer.archiveId);
    expect(await source.get('evidence wikidataId ["Title 4321"]')).toBe('{"body":"Q4321"}');
    expect(JSON.parse((await source.get('evidence page ["Ünïcödé"]'))!).note).toHaveLength(5_000_000);
    expect(await source.get('evidence wikidataId ["never stored"]')).toBeUndefined();

    const refused = await createArchive(bindings, 'key:abc');
    await refused.add(keys[0], '{"body":"Q0"}');
    await refused.abort();
    expect([...bucket.objects.keys()].some((k) => k.includes(refused.archiveId))).toBe(false);
  });
});
