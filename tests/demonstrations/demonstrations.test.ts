import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { parseProcess } from '../../src/fewshot/library';
import { deployedStyle, uniqueKey } from '../public/helpers';

const call = (method: string, path: string, body?: unknown) =>
  exports.default.fetch(`http://localhost${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });

const process = {
  benchmark: 'mintaka',
  question: 'Which country is the Eiffel Tower in?',
  steps: [
    {
      thought: 'I should look the tower up.',
      action: 'wikisearch',
      actionInput: 'Eiffel Tower',
      observation: 'Eiffel Tower: a wrought-iron lattice tower in Paris, France.\nSecond line of the page.\n\n',
      rating: 5,
    },
    { thought: 'Check the Wikidata id.', action: 'getWikidataID', actionInput: 'Eiffel Tower', observation: 'Q243', rating: null },
  ],
  finalThought: 'The tower is in Paris, so France.',
  finalAnswer: 'France',
};

describe('/v1/demonstrations', () => {
  it('stores, lists, reads, updates and deletes a solution process', async () => {
    const created = await call('POST', '/v1/demonstrations', process);
    expect(created.status).toBe(201);
    const item = await created.json<any>();
    expect(item.id).toMatch(/^[0-9a-f-]{36}$/);
    // Trailing blank lines of a textarea are dropped: the library format forbids them.
    expect(item.steps[0].observation).toBe('Eiffel Tower: a wrought-iron lattice tower in Paris, France.\nSecond line of the page.');

    const list = await (await call('GET', '/v1/demonstrations?benchmark=mintaka')).json<any>();
    expect(list.demonstrations.map((d: any) => d.id)).toContain(item.id);
    const other = await (await call('GET', '/v1/demonstrations?benchmark=compmix')).json<any>();
    expect(other.demonstrations.map((d: any) => d.id)).not.toContain(item.id);

    const read = await (await call('GET', `/v1/demonstrations/${item.id}`)).json<any>();
    expect(read).toMatchObject({ question: process.question, finalAnswer: 'France', steps: [{ rating: 5 }, { rating: null }] });

    const put = await call('PUT', `/v1/demonstrations/${item.id}`, { ...process, finalAnswer: 'France (Paris)' });
    expect(put.status).toBe(200);
    const updated = await put.json<any>();
    expect(updated.updatedAt).toBeGreaterThan(item.updatedAt);
    expect(updated.createdAt).toBe(item.createdAt);
    expect((await (await call('GET', `/v1/demonstrations/${item.id}`)).json<any>()).finalAnswer).toBe('France (Paris)');

    expect((await call('DELETE', `/v1/demonstrations/${item.id}`)).status).toBe(204);
    const gone = await call('GET', `/v1/demonstrations/${item.id}`);
    expect(gone.status).toBe(404);
    expect((await gone.json<any>()).error.code).toBe('not_found');
  });

  it('exports the exact few-shot library format, and the export imports back to the same process', async () => {
    const item = await (await call('POST', '/v1/demonstrations', process)).json<any>();
    const res = await call('GET', `/v1/demonstrations/${item.id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.headers.get('x-fewshot-path')).toBe('fewshot/mintaka/which-country-is-the-eiffel-tower.txt');
    const text = await res.text();
    expect(text).toBe(
      [
        'Question: Which country is the Eiffel Tower in?',
        'Thought: I should look the tower up.',
        'Action: wikisearch',
        'Action Input: Eiffel Tower',
        'Observation: Eiffel Tower: a wrought-iron lattice tower in Paris, France.',
        'Second line of the page.',
        'Thought: Check the Wikidata id.',
        'Action: getWikidataID',
        'Action Input: Eiffel Tower',
        'Observation: Q243',
        'Thought: The tower is in Paris, so France.',
        'Final Answer: France',
        '',
      ].join('\n'),
    );
    expect(parseProcess(text, 'mintaka/x').toolSequence).toEqual(['wikisearch', 'getWikidataID']);

    const imported = await call('POST', '/v1/demonstrations/import', { benchmark: 'compmix', text });
    expect(imported.status).toBe(201);
    const copy = await imported.json<any>();
    expect(copy.id).not.toBe(item.id);
    expect(copy).toMatchObject({ benchmark: 'compmix', question: process.question, finalAnswer: 'France' });
    expect(await (await call('GET', `/v1/demonstrations/${copy.id}/export`)).text()).toBe(text);
  });

  it('refuses processes that would not be a valid library file, with JSON errors', async () => {
    const unknownTool = await call('POST', '/v1/demonstrations', { ...process, steps: [{ ...process.steps[0], action: 'google' }] });
    expect(unknownTool.status).toBe(400);
    expect((await unknownTool.json<any>()).error.message).toContain('action must be one of');

    // A line that starts with a protocol label would split the field when the file is read back.
    const smuggled = await call('POST', '/v1/demonstrations', { ...process, finalThought: 'ok\nAction: read' });
    expect(smuggled.status).toBe(400);
    expect((await smuggled.json<any>()).error.code).toBe('invalid_process');

    const empty = await call('POST', '/v1/demonstrations', { ...process, finalAnswer: '   ' });
    expect(empty.status).toBe(400);
    expect((await empty.json<any>()).error.message).toContain('finalAnswer must not be empty');

    const badImport = await call('POST', '/v1/demonstrations/import', { benchmark: 'mintaka', text: 'Thought: no question\nFinal Answer: x\n' });
    expect(badImport.status).toBe(400);
    expect((await badImport.json<any>()).error.message).toMatch(/^line 1: expected "Question:" first/);

    expect((await call('POST', '/v1/demonstrations', '{nope')).status).toBe(400);
    expect((await call('GET', '/v1/demonstrations?benchmark=nope')).status).toBe(400);
  });
});

describe('/v1/demonstrations with API keys', () => {
  const keyA = uniqueKey('demo-a');
  const keyB = uniqueKey('demo-b');
  const app = deployedStyle({ API_KEYS: `${keyA},${keyB}`, RATE_LIMIT_PER_MINUTE: '1000' });
  const as = (key: string, method: string, path: string, body?: unknown) =>
    app(path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("belong to the key that stored them: another key gets 404 for read, replace, delete and export, and does not list them", async () => {
    const mine = await (await as(keyA, 'POST', '/v1/demonstrations', process)).json<any>();
    const notFound = async (res: Response) => {
      expect(res.status).toBe(404);
      expect((await res.json<any>()).error.code).toBe('not_found');
    };
    await notFound(await as(keyB, 'GET', `/v1/demonstrations/${mine.id}`));
    await notFound(await as(keyB, 'PUT', `/v1/demonstrations/${mine.id}`, { ...process, finalAnswer: 'written by B' }));
    await notFound(await as(keyB, 'DELETE', `/v1/demonstrations/${mine.id}`));
    await notFound(await as(keyB, 'GET', `/v1/demonstrations/${mine.id}/export`));
    const listB = await (await as(keyB, 'GET', '/v1/demonstrations')).json<any>();
    expect(listB.demonstrations.map((d: any) => d.id)).not.toContain(mine.id);

    // A's own, untouched by B's attempts.
    const read = await (await as(keyA, 'GET', `/v1/demonstrations/${mine.id}`)).json<any>();
    expect(read.finalAnswer).toBe('France');
    const listA = await (await as(keyA, 'GET', '/v1/demonstrations?benchmark=mintaka')).json<any>();
    expect(listA.demonstrations.map((d: any) => d.id)).toEqual([mine.id]);
    expect((await as(keyA, 'DELETE', `/v1/demonstrations/${mine.id}`)).status).toBe(204);
  });
});
