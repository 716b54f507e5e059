import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeInstructions, openAIJudge } from '../../src/eval/judge';
import { judgedAccuracy } from '../../src/eval/judged-accuracy';
import { seededSample } from '../../src/eval/sample';
import { indexPredictions, scoreBenchmark } from '../../src/eval/score';
import type { EvalItem } from '../../src/eval/types';
import { startStub } from '../support/openai-stub.mjs';

describe('--sample N --seed S', () => {
  const items = Array.from({ length: 500 }, (_, i) => `q${i}`);
  it('draws the same N questions for the same seed, in file order, and others for another seed', () => {
    const a = seededSample(items, 200, 7);
    expect(a).toHaveLength(200);
    expect(new Set(a).size).toBe(200);
    expect(seededSample(items, 200, 7)).toEqual(a);
    expect(a.map((q) => Number(q.slice(1)))).toEqual([...a.map((q) => Number(q.slice(1)))].sort((x, y) => x - y));
    expect(seededSample(items, 200, 8)).not.toEqual(a);
    expect(seededSample(items.slice(0, 5), 200, 7)).toHaveLength(5);
  });
});

describe('--judge: a model-judged accuracy beside the exact metrics', () => {
  let stub: { url: string; requests: { purpose: string; body: { messages: { role: string; content: string }[] } }[]; setScript: (s: Record<string, string[]>) => void; close: () => Promise<void> };
  beforeAll(async () => {
    stub = await startStub({ port: 0 });
  });
  afterAll(() => stub?.close());

  it('asks the judge only about answers the exact metric rejects, with the gold written as names', async () => {
    stub.setScript({ judge: ['{"score": 1, "explanation": "same city"}', '{"score": 0, "explanation": "other person"}'] });
    const items: EvalItem[] = [
      { id: 'a', question: 'Where was Bill Gates born?', gold: { kind: 'qald9plus', answers: ['http://www.wikidata.org/entity/Q30'] } },
      { id: 'b', question: 'Capital of South Africa (judicial)?', gold: { kind: 'qald9plus', answers: ['http://www.wikidata.org/entity/Q37701'] } },
      { id: 'c', question: 'Who wrote Dracula?', gold: { kind: 'qald9plus', answers: ['http://www.wikidata.org/entity/Q36184'] } },
      { id: 'd', question: 'Who?', gold: { kind: 'qald9plus', answers: ['http://www.wikidata.org/entity/Q1'] } },
    ];
    const labels = { entities: { Q30: { en: ['United States of America', 'USA'] }, Q37701: { en: ['Bloemfontein'] }, Q36184: { en: ['Bram Stoker'] } } };
    const preds = indexPredictions([
      { id: 'a', answer: 'USA' }, // exact through the label table: no call
      { id: 'b', answer: 'It is the city of Bloemfontein in the Free State.' }, // judge says 1
      { id: 'c', answer: 'Mary Shelley' }, // judge says 0
      { id: 'd', answer: "I don't know" }, // wrong without a call
    ]);
    const exact = await scoreBenchmark('qald9plus', items, preds, { qaldLabels: labels });
    const judge = openAIJudge({ baseURL: stub.url, model: 'stub', kind: 'answer-check' });
    const r = await judgedAccuracy(items, preds, exact.items, judge, { labels });
    expect(r.calls).toBe(2);
    expect(judge.calls()).toBe(2);
    expect(r.accuracy).toBe(50);
    const asked = stub.requests.filter((q) => q.purpose === 'judge');
    expect(asked).toHaveLength(2);
    expect(asked[0].body.messages[0].content).toBe(judgeInstructions('answer-check'));
    expect(asked[0].body.messages[1].content).toContain('Accepted answers: Bloemfontein');
    expect(asked[1].body.messages[1].content).toContain('Accepted answers: Bram Stoker');
  });

  it('keeps each judge\'s instructions in its own file, in different words', () => {
    expect(judgeInstructions('crag')).toMatch(/reference answer/i);
    expect(judgeInstructions('answer-check')).toMatch(/by hand/);
    expect(judgeInstructions('crag')).not.toBe(judgeInstructions('answer-check'));
  });
});
