/// <reference types="node" />
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadBenchmark, parseHybridQAReference } from '../../src/eval/loaders/index';
import { readBenchmarkText } from '../../src/eval/node/read-text';
import { indexPredictions, scoreBenchmark } from '../../src/eval/score';
import type { EvalItem, Prediction } from '../../src/eval/types';
import { dataPath, needsData } from '../support/benchmark-data';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const data = dataPath('.');
const fixtures = join(repoRoot, 'tests/eval/fixtures');
const hasData = existsSync(data);

/** The gold answer written as a prediction, the way a perfect system would answer. */
const goldAsPrediction = (item: EvalItem): Prediction => {
  const g = item.gold;
  switch (g.kind) {
    case 'mintaka':
      return { id: item.id, answer: g.text };
    case 'qald9plus':
      return { id: item.id, answers: g.answers };
    case 'compmix':
      return { id: item.id, answer: g.answers[0]?.label };
    case 'hybridqa':
      return { id: item.id, answer: g.answer };
    case 'mmqa':
      return { id: item.id, answers: g.answers };
    case 'crag':
      return { id: item.id, answer: g.answer };
  }
};

const perfect = (items: EvalItem[]) => indexPredictions(items.map(goldAsPrediction));

describe.skipIf(!hasData)(needsData('loaders on the benchmark data folder'), () => {
  it('Mintaka sample: 71 questions, all answer types; gold scores 100', async () => {
    const items = loadBenchmark('mintaka', readBenchmarkText(join(data, 'mintaka/dev_sample.json')));
    expect(items).toHaveLength(71);
    expect(new Set(items.map((i) => (i.gold.kind === 'mintaka' ? i.gold.answerType : '')))).toEqual(new Set(['entity', 'boolean', 'numerical', 'date']));
    const unlinked = items.find((i) => i.gold.kind === 'mintaka' && i.gold.kg === null);
    expect(unlinked?.gold).toMatchObject({ text: expect.stringContaining('Anthony, Benedict') });
    const r = await scoreBenchmark('mintaka', items, perfect(items));
    expect(r.metrics).toEqual({ em: 100, f1: 100, hits1: 100 });
    const none = await scoreBenchmark('mintaka', items, new Map());
    expect(none.metrics).toEqual({ em: 0, f1: 0, hits1: 0 });
  });

  it('CompMix dev: 1680 questions over 5 domains; gold scores 100', async () => {
    const items = loadBenchmark('compmix', readBenchmarkText(join(data, 'compmix/dev_set.json')));
    expect(items).toHaveLength(1680);
    expect(new Set(items.map((i) => i.category)).size).toBe(5);
    const r = await scoreBenchmark('compmix', items, perfect(items));
    expect(r.metrics.p_at_1).toBe(100);
  });

  it('HybridQA dev + reference: 3466 questions, 1349 table and 2025 passage; gold scores 100', async () => {
    const reference = parseHybridQAReference(readBenchmarkText(join(data, 'hybridqa/dev_reference.json')));
    const items = loadBenchmark('hybridqa', readBenchmarkText(join(data, 'hybridqa/dev.json')), { reference });
    expect(items).toHaveLength(3466);
    expect(items.filter((i) => i.category === 'table')).toHaveLength(1349);
    expect(items.filter((i) => i.category === 'passage')).toHaveLength(2025);
    const r = await scoreBenchmark('hybridqa', items, perfect(items), { reference });
    expect(r.metrics).toEqual({ em: 100, f1: 100, table_em: 100, table_f1: 100, passage_em: 100, passage_f1: 100 });
  });

  it('CRAG sample (gzip): 5 questions with their pages as context; gold scores 100', async () => {
    const items = loadBenchmark('crag', readBenchmarkText(join(data, 'crag/sample5.jsonl.gz')));
    expect(items).toHaveLength(5);
    for (const item of items) {
      expect(item.context).toMatchObject({ queryTime: expect.stringMatching(/PT$/) });
      expect((item.context as { pages: unknown[] }).pages.length).toBeGreaterThan(0);
    }
    const r = await scoreBenchmark('crag', items, perfect(items));
    expect(r.metrics).toEqual({ correct: 100, missing: 0, hallucination: 0, score: 100 });
  });
});

describe('loaders on fixtures written from the official formats', () => {
  it('QALD-9-Plus: English strings, URI/literal/boolean answers; gold scores 100', async () => {
    const items = loadBenchmark('qald9plus', readBenchmarkText(join(fixtures, 'qald9plus-mini.json')));
    expect(items.map((i) => i.question)).toEqual([
      'Who developed the theory of relativity?',
      'Is Berlin the capital of Germany?',
      'Which rivers flow through Vienna and Budapest?',
      'How many moons does Mars have?',
    ]);
    expect(items[1].gold).toMatchObject({ boolean: true, answers: ['true'] });
    expect(items[3].gold).toMatchObject({ answers: ['2'] });
    const r = await scoreBenchmark('qald9plus', items, perfect(items));
    expect(r.metrics).toEqual({ precision: 100, recall: 100, macro_f1: 100, macro_f1_qald: 100 });
  });

  it('MultiModalQA (gzip JSONL): skips unannotated questions; gold scores 100', async () => {
    const items = loadBenchmark('mmqa', readBenchmarkText(join(fixtures, 'mmqa-mini.jsonl.gz')));
    expect(items.map((i) => i.id)).toEqual(['m1', 'm2', 'm3']);
    expect(items[1].gold).toMatchObject({ answers: ['Notting Hill', 'Runaway Bride'], modality: 'table' });
    const r = await scoreBenchmark('mmqa', items, perfect(items));
    // m3 needs an image; no run read one (the gold predictions carry no usage), and the notes say so.
    expect(r.metrics).toEqual({ em: 100, f1: 100, image_questions: 1, image_read: 0 });
    expect(r.notes?.join('\n')).toMatch(/1 of 3 questions need an image; no image was read .*LLM_MODEL_VISION/);
  });

  it('CRAG (bzip2): Python-literal alternative answers and page context', async () => {
    const items = loadBenchmark('crag', readBenchmarkText(join(fixtures, 'crag-mini.jsonl.bz2')));
    expect(items).toHaveLength(2);
    expect(items[0].gold).toMatchObject({ answer: 'yes', alternatives: ['Yes, it is'] });
    expect(items[0].context).toEqual({
      pages: [{ url: 'https://example.org/water', html: expect.stringContaining('Water is wet.'), lastModified: 'Mon, 04 Mar 2024 10:49:26 GMT' }],
      queryTime: '03/01/2024, 10:00:00 PT',
    });
    const r = await scoreBenchmark('crag', items, indexPredictions([{ id: 'c1', answer: 'yes, it is' }, { id: 'c2', answer: 'nine' }]));
    expect(r.metrics).toEqual({ correct: 50, missing: 0, hallucination: 50, score: 0 });
  });
});
