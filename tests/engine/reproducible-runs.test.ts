import { afterEach, describe, expect, it, vi } from 'vitest';
import { exports } from 'cloudflare:workers';
import { installScript } from '../../src/llm/scripted';
import { tickExecutions } from '../../src/strategies/testing/tool-loop';
import { get, post } from './helpers';

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

const agentScript = () => ({
  agent: [
    ' I need the director of Forrest Gump.\nAction: wikisearch\nAction Input: Forrest Gump',
    ' The snippet names Robert Zemeckis. I need his id.\nAction: getWikidataID\nAction Input: Robert Zemeckis',
    ' Now his place of birth.\nAction: runQuery\nAction Input: SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }',
    ' Wikidata says Chicago.\nFinal Answer: Chicago',
  ],
  parametric: ['Chicago'],
  final: ['Chicago'],
});

/** The trace without what measures time (event times, tool durations): those differ between any two runs. */
const trace = (run: any) => run.steps.map(({ at: _at, ms: _ms, id: _id, ...rest }: any) => rest);

afterEach(() => vi.restoreAllMocks());

describe('recording and replaying a run', () => {
  it('a run recorded live replays offline from its archive with the identical trace and answer', async () => {
    const wikimedia = startFakeWikimedia();
    const question = 'In which city was the director of Forrest Gump born?';
    installScript(agentScript());
    const recorded = await (await post('/v1/answer', { question, mode: 'agent', options: { fewshot: 'zero-shot', testEvidence: 'live' } })).json<any>();
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
    const replayed = await (await post('/v1/answer', { question, mode: 'agent', options: { fewshot: 'zero-shot', testEvidence: 'live', evidence: { replay: archiveId } } })).json<any>();
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

  it('refuses an archive that is not one, and a run naming an archive that does not exist ends failed', async () => {
    const bad = await uploadArchive('{"hello": 1}\n');
    expect(bad.status).toBe(400);
    expect((await bad.json<any>()).error.code).toBe('invalid_archive');
    const wrongType = await exports.default.fetch('http://localhost/v1/archives', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(wrongType.status).toBe(415);
    installScript({ final: ['x'] });
    const run = await (await post('/v1/answer', { question: 'tick', mode: 'test-tool-loop', options: { calls: 1, evidence: { replay: `arc_${'0'.repeat(32)}` } } })).json<any>();
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('archive_not_found');
    const invalid = await post('/v1/answer', { question: 'tick', mode: 'test-tool-loop', options: { evidence: { replay: 'nope' } } });
    expect(invalid.status).toBe(400);
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
