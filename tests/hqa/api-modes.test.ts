import { describe, expect, it } from 'vitest';
import { installScript } from '../../src/llm/scripted';
import { get, post, readSse } from '../engine/helpers';

const QUESTION = 'Where was Robert Zemeckis born?';
const QUERY = 'SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }';

describe('the paper\'s modes through POST /v1/answer', () => {
  it('/healthz lists structured-only, unstructured-only and late-fusion', async () => {
    const health = (await (await get('/healthz')).json()) as { modes: string[] };
    expect(health.modes).toEqual(expect.arrayContaining(['structured-only', 'unstructured-only', 'late-fusion', 'late-fusion-pipeline']));
  });

  it('late-fusion under the paper recipe runs both restricted agents in the Durable Object and merges', async () => {
    const llm = installScript({
      agent: [
        ' Read.\nAction: read\nAction Input: Robert Zemeckis # Where was he born?',
        'Final Answer: Wikipedia_Answer: Chicago\nAssistant Response: His page says he was born in Chicago.',
        ' His id.\nAction: getWikidataID\nAction Input: Robert Zemeckis',
        ' Query.\nAction: runQuery\nAction Input: ' + QUERY,
        'Final Answer: Wikidata_Answer: [Chicago]\nAssistant Response: Wikidata lists Chicago.',
      ],
      read: ['Born in Chicago, Illinois.'],
      parametric: ['Chicago'],
      final: ['Chicago'],
    });
    const res = await post('/v1/answer', { question: QUESTION, mode: 'late-fusion', options: { recipe: 'paper' } }, { accept: 'text/event-stream' });
    const events = await readSse(res);
    expect(events.filter((e) => e.event === 'action').map((e) => e.data.tool)).toEqual(['read', 'getWikidataID', 'runQuery']);
    expect(events.find((e) => e.event === 'answer')!.data).toMatchObject({
      answer: 'Chicago',
      answers: { wikipedia: 'Chicago', wikidata: 'Chicago', parametric: 'Chicago' },
      confidence: 'all_agree',
    });
    expect(events.at(-1)!.data).toMatchObject({ status: 'succeeded' });
    const merge = llm.requests.find((r) => r.purpose === 'final')!;
    expect(String(merge.messages[1].content)).toMatch(/Context:\n<<<EVIDENCE\nHis page says he was born in Chicago\.\n\nWikidata lists Chicago\./);
  });

  it('an unknown options.library is refused with 400 and the names that exist', async () => {
    const res = await post('/v1/answer', { question: QUESTION, mode: 'structured-only', options: { library: 'no-such-library' } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.message).toMatch(/options.library must name a bundled few-shot library: .*mintaka/);
  });
});
