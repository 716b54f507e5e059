import { describe, expect, it } from 'vitest';
import { hybridqaContext, type WikiTable } from '../../src/eval/contexts/hybridqa';
import { installScript } from '../../src/llm/scripted';
import { post } from '../engine/helpers';

// The real WikiTables-WithLinks files in the benchmark data folder (BENCHMARK_DATA, default ../shared/data; the tests skip without them).
const tableFiles = import.meta.glob<string>('@benchmark-data/hybridqa/WikiTables-WithLinks/tables_tok/*.json', {
  query: '?raw',
  import: 'default',
  eager: true,
});
const requestFiles = import.meta.glob<string>('@benchmark-data/hybridqa/WikiTables-WithLinks/request_tok/*.json', {
  query: '?raw',
  import: 'default',
  eager: true,
});
const byId = (files: Record<string, string>) =>
  new Map(Object.entries(files).map(([path, text]) => [path.split('/').pop()!.replace(/\.json$/, ''), text]));
const tables = byId(tableFiles);
const requests = byId(requestFiles);
const contextOf = (id: string) =>
  hybridqaContext(JSON.parse(tables.get(id)!) as WikiTable, requests.has(id) ? JSON.parse(requests.get(id)!) : {});

const fence = (code: string) => `\`\`\`javascript\n${code}\n\`\`\``;

describe.skipIf(tables.size === 0)('POST /v1/answer, program mode, real HybridQA tables [benchmark data]', () => {
  it('accepts a built context and runs a program that reads a linked passage', async () => {
    const context = contextOf('1947_BAA_draft_0');
    const llm = installScript({
      code: [fence(`function solve(table) {
  const first = table.rows.find((r) => r['Pick'].text === '1');
  return extract_info(first['Player'], 'the year of birth');
}`)],
      extract_info: ['1919'],
    });
    const res = await post('/v1/answer', {
      question: 'In what year was the first pick of the 1947 BAA draft born?',
      variant: 'hybridqa',
      mode: 'program',
      context,
      options: { simplify: false },
    });
    expect(res.status).toBe(200);
    const run = await res.json<any>();
    expect(run).toMatchObject({ status: 'succeeded', mode: 'program', answer: '1919' });
    // extract_info was given the passage behind the cell's /wiki/ link.
    const read = llm.requests.find((r) => r.purpose === 'extract_info')!;
    expect(JSON.stringify(read.messages)).toContain('was the first player ever drafted');
  });

  it('accepts every real table, including the one without a passages file', async () => {
    for (const id of tables.keys()) {
      // The first non-empty cell, read through the sandbox's row objects (columns made unique).
      installScript({ code: [fence('function solve(table) { return table.rows.flatMap((r) => table.columns.map((c) => r[c].text)).find((t) => t.trim()); }')] });
      const context = contextOf(id);
      const res = await post('/v1/answer', { question: `First cell of ${id}?`, variant: 'hybridqa', mode: 'program', context, options: { simplify: false } });
      expect(res.status, id).toBe(200);
      const run = await res.json<any>();
      expect(run.status, `${id}: ${JSON.stringify(run.error)}`).toBe('succeeded');
      expect(run.answer, id).toBe(context.table.rows.flat().map((c) => c.text).find((t) => t.trim())!.trim());
    }
    expect(requests.has('List_of_sports_venues_with_sole_naming_rights_4')).toBe(false);
    expect(tables.has('List_of_sports_venues_with_sole_naming_rights_4')).toBe(true);
  });
});
