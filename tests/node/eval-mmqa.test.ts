/// <reference types="node" />
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contextSchema } from '../../src/runs/request-schema';
import { mmqaLinkKey } from '../../src/eval/contexts/mmqa';
import type { TableContext } from '../../src/eval/contexts/types';
import { loadBenchmark } from '../../src/eval/loaders/index';
import { mmqaSpans } from '../../src/eval/metrics/mmqa-images';
import { prepareContexts } from '../../src/eval/node/contexts';
import { mmqaFiles } from '../../src/eval/node/mmqa-files';
import { readBenchmarkText } from '../../src/eval/node/read-text';
import { indexPredictions, scoreBenchmark } from '../../src/eval/score';
import { parseProgramContext } from '../../src/strategies/program/input';
import { dataPath, needsData } from '../support/benchmark-data';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = join(repoRoot, 'tests/fixtures/mmqa');
const questions = dataPath('mmqa/MMQA_dev_first300.jsonl.gz');
const hasData = existsSync(questions);
const load = () => loadBenchmark('mmqa', readBenchmarkText(questions));
const byPrefix = (items: ReturnType<typeof load>, prefix: string) => items.find((i) => i.id.startsWith(prefix))!;

/** How many of the real questions lack their table in the fixture, and how many more lack a supporting text or image. */
const missingFromFixture = () => {
  const idsIn = (file: string) => new Set(readFileSync(join(fixture, file), 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id));
  const docs: Record<string, Set<string>> = { table: idsIn('MMQA_tables.jsonl'), text: idsIn('MMQA_texts.jsonl'), image: idsIn('MMQA_images.jsonl') };
  type Raw = { metadata: { table_id: string }; supporting_context: Array<{ doc_id: string; doc_part: string }> };
  const raw = readBenchmarkText(questions).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Raw);
  const withTable = raw.filter((q) => docs.table.has(q.metadata.table_id));
  return {
    withoutTable: raw.length - withTable.length,
    withoutDocs: withTable.filter((q) => !q.supporting_context.every((s) => docs[s.doc_part]?.has(s.doc_id))).length,
  };
};

describe('MMQA link keys', () => {
  it('ties cells, texts and images to one page key', () => {
    expect(mmqaLinkKey('https://en.wikipedia.org/wiki/Slumdog_Millionaire')).toBe('/wiki/Slumdog_Millionaire');
    expect(mmqaLinkKey('https://en.wikipedia.org/wiki/Love,_Wedding,_Repeat')).toBe('/wiki/Love,_Wedding,_Repeat');
    expect(mmqaLinkKey('https://en.wikipedia.org/wiki/Caf%C3%A9_Society')).toBe('/wiki/Café_Society');
    expect(mmqaLinkKey(undefined, 'Miral (film)')).toBe('/wiki/Miral_(film)');
  });

  it('reads a text answer as a list only when the gold is a list', () => {
    expect(mmqaSpans("unity, freedom, people's democracy, and sovereignty", 4)).toEqual(['unity', 'freedom', "people's democracy", 'sovereignty']);
    expect(mmqaSpans('Washington, D.C.', 1)).toBe('Washington, D.C.');
  });
});

describe.skipIf(!hasData)(needsData('MMQA contexts from the official formats (fixture) for real dev questions'), () => {
  it('keeps the 8 questions the fixture covers and says why the others are skipped', () => {
    const items = load();
    expect(items).toHaveLength(300);
    const prepared = prepareContexts('mmqa', items, { mmqaDir: fixture });
    expect(prepared.items.map((i) => i.id.slice(0, 8)).sort()).toEqual(
      ['08fac605', '312db49d', '4f2dca99', '72e81cfa', '7e99b54a', '9c3996fc', 'ca18ab80', 'eb3f72ae'],
    );
    // Counted from the files themselves: the questions' own table and supporting documents against the fixture's ids.
    const { withoutTable, withoutDocs } = missingFromFixture();
    expect(withoutTable).toBeGreaterThan(0);
    expect(withoutDocs).toBeGreaterThan(0);
    expect(prepared.skipped).toBe(withoutTable + withoutDocs);
    expect(prepared.skipped).toBe(items.length - prepared.items.length);
    expect(prepared.note).toContain(`${withoutTable} without their table, ${withoutDocs} without a supporting text or image`);
  });

  it('builds table, passages and images that program mode and the API accept, with the answers where the gold says', () => {
    const items = load();
    const files = mmqaFiles(fixture, items);
    const imageQ = files.context(byPrefix(items, '9c3996fc')) as TableContext;
    expect(imageQ.table.title).toBe('Freida Pinto — Filmography');
    expect(imageQ.table.columns).toEqual(['Year', 'Title', 'Role', 'Director', 'Notes']);
    expect(imageQ.table.rows[0][1]).toEqual({ text: 'Slumdog Millionaire', links: ['/wiki/Slumdog_Millionaire'] });
    expect(imageQ.images?.['/wiki/Slumdog_Millionaire']).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(Object.keys(imageQ.images ?? {})).toEqual(['/wiki/Slumdog_Millionaire', '/wiki/Miral_(film)']);

    const textQ = files.context(byPrefix(items, 'ca18ab80')) as TableContext;
    expect(textQ.passages['/wiki/Slumdog_Millionaire']).toContain('won eight Oscars');
    const listQ = files.context(byPrefix(items, '7e99b54a')) as TableContext;
    expect(listQ.passages['/wiki/Flag_of_the_Philippines']).toContain("unity, freedom, people's democracy, and sovereignty");

    for (const item of prepared(items)) {
      const ctx = files.context(item)!;
      expect(contextSchema.safeParse(ctx).success, item.id).toBe(true);
      expect(parseProgramContext(ctx).ok, item.id).toBe(true);
    }
  });

  it('the fixture puts each table answer at its gold table index', () => {
    const items = prepared(load());
    const files = mmqaFiles(fixture, items);
    const raw = readBenchmarkText(questions).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (const item of items) {
      const record = raw.find((r: { qid: string }) => r.qid === item.id);
      const ctx = files.context(item)!;
      for (const answer of record.answers) {
        for (const [r, c] of answer.table_indices) expect(ctx.table.rows[r][c].text, item.id).toBe(answer.answer);
      }
    }
  });

  it('scores the gold written as answer text at 100, lists included', async () => {
    const items = prepared(load());
    const predictions = indexPredictions(
      items.map((i) => ({ id: i.id, answer: i.gold.kind === 'mmqa' ? i.gold.answers.join(', ') : '' })),
    );
    const r = await scoreBenchmark('mmqa', items, predictions);
    expect(r.metrics).toMatchObject({ em: 100, f1: 100, image_questions: 2, image_read: 0 });
  });

  it('never reads an image outside the images folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmqa-hostile-'));
    try {
      copyFileSync(join(fixture, 'MMQA_tables.jsonl'), join(dir, 'MMQA_tables.jsonl'));
      copyFileSync(join(fixture, 'MMQA_texts.jsonl'), join(dir, 'MMQA_texts.jsonl'));
      mkdirSync(join(dir, 'final_dataset_images'));
      writeFileSync(join(dir, 'secret.png'), 'not for the model');
      writeFileSync(
        join(dir, 'MMQA_images.jsonl'),
        `${JSON.stringify({ title: 'Slumdog Millionaire', url: 'https://en.wikipedia.org/wiki/Slumdog_Millionaire', id: '6eaff02e7a4e8da95cd67e4021d98c6d', path: '../secret.png' })}\n`,
      );
      const items = load();
      const files = mmqaFiles(dir, items);
      const item = byPrefix(items, '9c3996fc');
      expect(files.missing(item)).toBe('documents');
      expect(files.context(item)?.images).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function prepared(items: ReturnType<typeof load>) {
  return prepareContexts('mmqa', items, { mmqaDir: fixture }).items;
}
