import { describe, expect, it } from 'vitest';
import { installScript } from '../../src/llm/scripted';
import { get, post, readSse } from '../engine/helpers';
import { CHICAGO_QUESTION, chicagoAgentScript } from './fixtures';

describe('POST /v1/answer in agent mode', () => {
  it('streams thought, action, observation and answer events from the Durable Object run', async () => {
    const llm = installScript(chicagoAgentScript());
    const res = await post(
      '/v1/answer',
      { question: CHICAGO_QUESTION, mode: 'agent', options: { fewshot: 'zero-shot' } },
      { accept: 'text/event-stream' },
    );
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual([
      'run',
      'thought', 'action', 'observation',
      'thought', 'action', 'observation',
      'thought', 'action', 'observation',
      'thought',
      'answer',
      'done',
    ]);
    expect(events[0].data).toMatchObject({ mode: 'agent', variant: 'mintaka' });
    expect(events.filter((e) => e.event === 'action').map((e) => e.data.tool)).toEqual(['wikisearch', 'getWikidataID', 'runQuery']);
    expect(events.filter((e) => e.event === 'observation').map((e) => e.data.output)[2]).toBe('?place\nQ1297 (Chicago)\n(1 row)');
    const answer = events.find((e) => e.event === 'answer')!.data;
    expect(answer).toMatchObject({
      answer: 'Chicago',
      answers: { wikidata: 'Chicago', agent: 'Chicago', parametric: 'Chicago' },
      // Only Wikidata answered from evidence; the model agreeing with it is not a second source.
      confidence: 'one_source',
      agreementSources: ['wikidata'],
      entities: [{ id: 'Q1297', label: 'Chicago' }],
    });
    expect(events.at(-1)!.data).toMatchObject({ status: 'succeeded', usage: { toolCalls: 3 } });
    expect(events.at(-1)!.data.usage.byPurpose).toMatchObject({ agent: { calls: 4 }, parametric: { calls: 1 }, final: { calls: 1 } });
    expect(llm.remaining()).toMatchObject({ agent: 0, parametric: 0, final: 0 });
    // The answer event cites the query row that holds the answer.
    expect(answer.citations).toContainEqual(expect.objectContaining({ source: 'wikidata', verified: true, quote: 'place: Q1297 (Chicago)', url: 'https://www.wikidata.org/wiki/Q1297' }));
    // The run JSON carries the same entities, and the same verdict and citations.
    const run = await (await get(`/v1/runs/${events[0].data.runId}`)).json();
    expect(run).toMatchObject({ answer: 'Chicago', entities: [{ id: 'Q1297', label: 'Chicago' }] });
    expect(run).toMatchObject({ confidence: answer.confidence, agreementSources: answer.agreementSources, citations: answer.citations });
  });
});
