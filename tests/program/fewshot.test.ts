import { describe, expect, it } from 'vitest';
import { scriptedLLM } from '../../src/llm/scripted';
import { runProgram, type Json } from '../../src/sandbox';
import { extractCode } from '../../src/strategies/program/extract-code';
import { programExamples } from '../../src/strategies/program/fewshot';
import { checkValues } from '../../src/strategies/program/host-functions';

// Rebuilds the table of an example from its listing, so its program can be run as the model would see it run.
const tableOf = (example: string) => {
  const columns = /^Columns: (.*)$/m.exec(example)![1].split(' | ');
  const rows = [...example.matchAll(/^row (\d+): (.*)$/gm)].map(([, i, line]) =>
    Object.fromEntries(
      line.split(' | ').map((raw, j) => {
        const text = raw.replace(/ \[(passage|image)\]/g, '');
        return [columns[j], { text, links: /\[(passage|image)\]/.test(raw) ? [`/wiki/${text}`] : [], row: Number(i), column: columns[j] }];
      }),
    ),
  );
  return { title: /^Title: (.*)$/m.exec(example)![1], columns, rows };
};

const runsInSandbox = async (ex: string) => {
  const r = await runProgram({
    code: extractCode(ex)!,
    args: [tableOf(ex) as unknown as Json],
    hostFunctions: { extract_info: async () => '1950', check: checkValues({ llm: scriptedLLM({ check: Array(20).fill('true') }) }) },
  });
  return r.ok ? 'ok' : r.error;
};

describe('few-shot programs (fewshot/hybridqa)', () => {
  const examples = programExamples(100);

  it('has at least six examples, each a table, a question and a solve program', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const ex of examples) {
      expect(ex).toMatch(/^Title: /m);
      expect(ex).toMatch(/^Question: /m);
      expect(extractCode(ex)).toMatch(/function solve\(table\)/);
    }
  });

  it.each(programExamples(100).map((ex) => [/^Title: (.*)$/m.exec(ex)![1], ex]))('%s runs in the sandbox', async (_title, ex) => {
    expect(await runsInSandbox(ex)).toBe('ok');
  });
});

describe('few-shot programs (fewshot/mmqa)', () => {
  const examples = programExamples(100, 'mmqa');

  it('are MultiModalQA\'s own: table, text and image questions, including documents no cell links to', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    expect(examples).not.toEqual(programExamples(100));
    expect(examples.some((ex) => ex.includes('[image]'))).toBe(true);
    expect(examples.some((ex) => ex.includes('[passage]'))).toBe(true);
    expect(examples.some((ex) => ex.includes('Images no cell links to'))).toBe(true);
    expect(examples.some((ex) => ex.includes('Passages no cell links to'))).toBe(true);
    // Any other variant is shown HybridQA's examples.
    expect(programExamples(100, 'mintaka')).toEqual(programExamples(100));
  });

  it.each(programExamples(100, 'mmqa').map((ex) => [/^Title: (.*)$/m.exec(ex)![1] + ' / ' + /^Question: (.*)$/m.exec(ex)![1], ex]))('%s runs in the sandbox', async (_title, ex) => {
    expect(await runsInSandbox(ex)).toBe('ok');
  });
});
