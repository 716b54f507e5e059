/// <reference types="node" />
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadQald9Plus } from '../../src/eval/loaders/qald9plus';
import type { QaldLabelTable } from '../../src/eval/metrics/qald-labels';
import { fetchLabels } from '../../src/eval/node/wikidata-labels';
import { renderReport } from '../../src/eval/report/html';
import { indexPredictions, scoreBenchmark } from '../../src/eval/score';
import type { EvalItem, Prediction } from '../../src/eval/types';
import { startWikidataApi } from '../support/wikidata-api-stub.mjs';
import { dataPath, needsData } from '../support/benchmark-data';

const QALD = dataPath('qald9plus/qald_9_plus_test_wikidata_half_a.json');

/** Names as Wikidata has them (label first, then aliases), served by the local API stand-in. */
const NAMES: Record<string, Record<string, string[]>> = {
  Q37701: { en: ['Bloemfontein', 'Mangaung'], de: ['Bloemfontein'] },
  Q30: { en: ['United States of America', 'USA', 'United States', 'US', 'America'], de: ['Vereinigte Staaten', 'USA'] },
  Q9588: { en: ['Richard Nixon', 'Richard Milhous Nixon', 'Nixon'] },
  Q9640: { en: ['Lyndon B. Johnson', 'LBJ', 'Lyndon Johnson'] },
  Q9696: { en: ['John F. Kennedy', 'JFK', 'John Fitzgerald Kennedy'] },
  Q13371: { en: ['Harvard University', 'Harvard'] },
  Q21578: { en: ['Princeton University', 'Princeton'] },
  Q14712798: { en: ['Whitney M. Young Magnet High School'] },
};

const score = async (items: EvalItem[], preds: Prediction[], labels?: QaldLabelTable, language = 'en') =>
  scoreBenchmark('qald9plus', items, indexPredictions(preds), { qaldLabels: labels, language });

let api: Awaited<ReturnType<typeof startWikidataApi>>;
const table: QaldLabelTable = { entities: {} };

beforeAll(async () => {
  api = await startWikidataApi(NAMES);
});
afterAll(() => api?.close());

describe('QALD label table from a Wikidata API', () => {
  it('fetches labels and aliases of the gold ids in batches of 50, marks unknown ids, and never asks twice', async () => {
    const ids = [...Object.keys(NAMES), ...Array.from({ length: 60 }, (_, i) => `Q${900_000 + i}`)];
    const first = await fetchLabels(table, ids, 'en', { api: api.url });
    expect(first).toEqual({ fetched: ids.length, requests: 2 });
    expect(table.entities.Q30.en).toEqual(NAMES.Q30.en);
    expect(table.entities.Q900000.en).toEqual([]);
    expect(table.api).toBe(api.url);
    const again = await fetchLabels(table, ids, 'en', { api: api.url });
    expect(again).toEqual({ fetched: 0, requests: 0 });
    expect(api.requests[0]).toContain('props=labels%7Caliases');
  });

  it('says which API failed and how', async () => {
    await expect(fetchLabels({ entities: {} }, ['Q1'], 'en', { api: api.url.replace('/w/api.php', '/nope') })).rejects.toThrow(/HTTP 404/);
    // Offline: the URL it tried, the cause, and how to go on.
    await expect(fetchLabels({ entities: {} }, ['Q1'], 'en', { api: 'http://127.0.0.1:9/w/api.php' })).rejects.toThrow(
      /could not reach http:\/\/127\.0\.0\.1:9\/w\/api\.php for the QALD label table: fetch failed.*--wikidata-api none/,
    );
  });
});

describe('QALD answer sets', () => {
  it('"Bloemfontein" against wd:Q37701 scores F1 1 through the label table, 0 without it', async () => {
    // Q37701 is not among the 68 questions of half_a; this item is written in the same QALD-JSON form.
    const doc = {
      questions: [
        {
          id: 'b1',
          question: [{ language: 'en', string: 'What is the judicial capital of South Africa?' }],
          query: { sparql: 'SELECT ?c WHERE { wd:Q258 wdt:P36 ?c }' },
          answers: [{ head: { vars: ['c'] }, results: { bindings: [{ c: { type: 'uri', value: 'http://www.wikidata.org/entity/Q37701' } }] } }],
        },
      ],
    };
    const items = loadQald9Plus(JSON.stringify(doc));
    const labels: QaldLabelTable = { entities: {} };
    await fetchLabels(labels, ['Q37701'], 'en', { api: api.url });
    expect((await score(items, [{ id: 'b1', answer: 'Bloemfontein' }], labels)).metrics.macro_f1_qald).toBe(100);
    expect((await score(items, [{ id: 'b1', answer: 'Mangaung.' }], labels)).metrics.macro_f1_qald).toBe(100);
    expect((await score(items, [{ id: 'b1', answer: 'Bloemfontein' }])).metrics.macro_f1_qald).toBe(0);
  });
});

describe.skipIf(!existsSync(QALD))(needsData('QALD scoring on the real QALD-9-Plus file (half a)'), () => {
  const items = existsSync(QALD) ? loadQald9Plus(readFileSync(QALD, 'utf8')) : [];
  const one = (id: string) => items.filter((i) => i.id === id);

  it('"A, B and C" matches {A, B, C}; a missing or an extra president lowers P or R', async () => {
    const q = one('84'); // Which American presidents were in office during the Vietnam War?
    expect(q).toHaveLength(1);
    const all = await score(q, [{ id: '84', answer: 'Lyndon B. Johnson, Richard Nixon and John F. Kennedy' }], table);
    expect(all.metrics).toMatchObject({ precision: 100, recall: 100, macro_f1_qald: 100 });
    const aliases = await score(q, [{ id: '84', answer: 'JFK; LBJ; Nixon' }], table);
    expect(aliases.metrics.macro_f1_qald).toBe(100);
    const two = await score(q, [{ id: '84', answer: 'Richard Nixon and Lyndon Johnson' }], table);
    expect(two.metrics.precision).toBe(100);
    expect(two.metrics.recall).toBeCloseTo(200 / 3, 9);
    const extra = await score(q, [{ id: '84', answer: 'Richard Nixon, Lyndon B. Johnson, John F. Kennedy and Gerald Ford' }], table);
    expect(extra.metrics.precision).toBe(75);
    expect(extra.metrics.recall).toBe(100);
  });

  it('the report names the gold entities of a failure from the label table', async () => {
    const q = one('84');
    const preds = indexPredictions([{ id: '84', answer: 'Gerald Ford' }]);
    const result = await score(q, [{ id: '84', answer: 'Gerald Ford' }], table);
    const html = renderReport(q, preds, result, { scoring: { qaldLabels: table, language: 'en' } });
    expect(html).toContain('Richard Nixon / Richard Milhous Nixon / Nixon');
  });

  it('an alias in the question language maps to the gold IRI; --lang de uses German names', async () => {
    const q = one('68'); // Which country was Bill Gates born in? → Q30
    expect((await score(q, [{ id: '68', answer: 'United States' }], table)).metrics.macro_f1_qald).toBe(100);
    const de = loadQald9Plus(readFileSync(QALD, 'utf8'), 'de', true).filter((i) => i.id === '68');
    expect(de[0].question).toMatch(/Bill Gates/);
    expect(de[0].gold).toEqual(q[0].gold); // gold unchanged
    const deTable: QaldLabelTable = { entities: {} };
    await fetchLabels(deTable, ['Q30'], 'de', { api: api.url });
    expect((await score(de, [{ id: '68', answer: 'Vereinigte Staaten' }], deTable, 'de')).metrics.macro_f1_qald).toBe(100);
  });

  it('an entity-based prediction is compared as IRIs, whatever its wording', async () => {
    const q = one('165'); // the university where Obama's wife studied: 3 gold IRIs
    const r = await score(q, [
      {
        id: '165',
        answer: 'Princeton, Harvard Law School and Chicago',
        entities: [
          { id: 'Q21578', label: 'Princeton' },
          { id: 'Q13371', label: 'Harvard Law School' },
          { id: 'Q1297', label: 'Chicago' },
        ],
      },
    ]);
    // 2 of 3 entities are gold: P = R = 2/3, with no label table at all.
    expect(r.metrics.precision).toBeCloseTo(200 / 3, 9);
    expect(r.metrics.recall).toBeCloseTo(200 / 3, 9);
  });

  it('a literal answer is not lost to an entity the lookup linked to it', async () => {
    // A live lookup of "Angela Dorothea Kasner" lands on Angela Merkel's item (a redirect): the gold is the literal.
    const r = await score(one('32'), [{ id: '32', answer: 'Angela Dorothea Kasner', entities: [{ id: 'Q567', label: 'Angela Dorothea Kasner' }] }]);
    expect(r.metrics.macro_f1_qald).toBe(100);
    // An entity no text item names still counts (here: a wrong one).
    const extra = await score(one('68'), [{ id: '68', answer: 'United States', entities: [{ id: 'Q30', label: 'United States' }, { id: 'Q16', label: 'Canada' }] }]);
    expect(extra.metrics.precision).toBe(50);
  });

  it('dates, numbers and literals compare as values', async () => {
    const r = await score(
      [...one('171'), ...one('82'), ...one('101'), ...one('32'), ...one('175')],
      [
        { id: '171', answer: '16 December 1773' }, // gold 1773-12-16T00:00:00Z
        { id: '82', answer: '1981' }, // gold 1981-01-01T00:00:00Z, a year-precision date
        { id: '101', answer: 'two' }, // gold "2"^^xsd:integer
        { id: '32', answer: 'angela dorothea kasner' },
        { id: '175', answer: 'June 11, 632' }, // gold 0632-06-11T00:00:00Z
      ],
    );
    expect(r.metrics.macro_f1_qald).toBe(100);
    const wrong = await score(one('171'), [{ id: '171', answer: '17 December 1773' }]);
    expect(wrong.metrics.macro_f1_qald).toBe(0);
  });

  it('a boolean question: the leading yes/no word is the answer', async () => {
    // Both ASK questions of half_a (92, 117) lost their boolean in this file: the loader types them from the query.
    const q = one('92'); // Is the wife of President Obama called Michelle?
    expect(q[0].type).toBe('ask');
    expect(q[0].gold).toMatchObject({ answers: [] });
    // With the boolean restored in QALD-JSON form ({"head": {}, "boolean": true}), as the official QALD-9 file has it:
    const doc = JSON.parse(readFileSync(QALD, 'utf8')) as { questions: { id: string; answers: unknown[] }[] };
    const raw = doc.questions.find((x) => x.id === '92')!;
    raw.answers = [{ head: {}, boolean: true }];
    const restored = loadQald9Plus(JSON.stringify({ questions: [raw] }));
    expect((await score(restored, [{ id: '92', answer: 'Yes, her name is Michelle.' }])).metrics.macro_f1_qald).toBe(100);
    expect((await score(restored, [{ id: '92', answer: 'No.' }])).metrics.macro_f1_qald).toBe(0);
  });

  it('an empty gold answer is matched by "I don\'t know" (GERBIL\'s empty-answer rule) and missed by any answer', async () => {
    const q = one('160'); // Who wrote Harry Potter? — gold lost in this file (empty result)
    expect(q[0].gold).toMatchObject({ answers: [] });
    expect((await score(q, [{ id: '160', answer: "I don't know" }])).metrics.macro_f1_qald).toBe(100);
    expect((await score(q, [{ id: '160', answer: 'J. K. Rowling' }])).metrics.macro_f1_qald).toBe(0);
  });
});
