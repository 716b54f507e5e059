// @module-tag slow
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stub } from '../support/openai-stub.mjs';
import { axeProblems } from '../support/axe';
import { hasChromium, startUi, type UiServer } from '../support/ui-browser';

/**
 * The web UI in real Chromium (as tests/node/ui.test.ts) against `wrangler dev` with the OpenAI-compatible stub:
 * each variant picks the API's default mode, program mode takes a table in HybridQA's own file format or our JSON,
 * rag mode takes pages by file, and what a finished, cancelled, missing or replayed run shows a person.
 */
declare const document: any;

const files = mkdtempSync(join(tmpdir(), 'ui-modes-'));
/** A table in WikiTables-WithLinks' tables_tok format and its request_tok passages (HybridQA's official layout). */
const TABLE_FILE = join(files, 'BAA_draft_0.json');
writeFileSync(
  TABLE_FILE,
  JSON.stringify({
    url: 'https://en.wikipedia.org/wiki/1947_BAA_draft',
    title: '1947 BAA draft',
    section_title: 'Draft',
    header: [['Pick', []], ['Player', []]],
    data: [
      [['1', []], ['Clifton McNeely', ['/wiki/Clifton_McNeely']]],
      [['2', []], ['Glen Selbo', ['/wiki/Glen_Selbo']]],
    ],
  }),
);
const PASSAGES_FILE = join(files, 'BAA_draft_0.passages.json');
writeFileSync(
  PASSAGES_FILE,
  JSON.stringify({
    '/wiki/Clifton_McNeely': 'Clifton McNeely ( June 22 , 1919 - December 26 , 2003 ) was an American basketball player .',
    '/wiki/Glen_Selbo': 'Glen Selbo ( 1926 - 2000 ) was an American basketball player .',
    '/wiki/Unlinked': 'No cell links here.',
  }),
);
const PAGE_FILE = join(files, 'inception.html');
writeFileSync(PAGE_FILE, '<html><head><title>Inception</title></head><body><p>Inception is a 2010 film directed by Christopher Nolan.</p></body></html>');

const PROGRAM_SCRIPT = {
  simplify: ['When was the first pick born?'],
  code: ['```javascript\nfunction solve(table) {\n  return extract_info(table.rows[0]["Player"], "year of birth");\n}\n```'],
  extract_info: ['1919'],
};
const RAG_SCRIPT = {
  attribute: ['Dynamism: static\nDomain: movie'],
  parametric: ['Christopher Nolan'],
  reasoning: ['<reasoning>The page names him.</reasoning>\n<answer>Christopher Nolan</answer>\n<false_premise>no</false_premise>'],
};

describe.skipIf(!hasChromium)('web UI: variants, modes and their evidence, in Chromium', () => {
  let ui: UiServer;
  let stub: Stub;
  let base = '';

  // A model that takes a little while, as a real one does: each model-call step has a duration to show.
  beforeAll(async () => {
    ui = await startUi({ latencyMs: 15 });
    ({ stub, base } = ui);
  });

  afterAll(() => ui?.close());

  const openPage = (path: string, viewport?: { width: number; height: number }) => ui.openPage(path, viewport);

  /** The bodies the page POSTs to /v1/answer. */
  const recordAnswers = (page: Page) => {
    const bodies: any[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/v1/answer')) bodies.push(JSON.parse(r.postData() ?? '{}'));
    });
    return bodies;
  };

  const finished = (page: Page) =>
    page.waitForFunction(() => /^(Finished|The run failed|The run stopped|Cancelled)/.test(document.querySelector('#run-status')?.textContent ?? ''), undefined, { timeout: 60_000 });

  it('a variant picks the mode the API runs for it, and shows the evidence that mode takes', async () => {
    const { page, problems } = await openPage('/');
    const health = (await (await fetch(`${base}/healthz`)).json()) as { defaultModes: Record<string, string> };
    expect(health.defaultModes).toMatchObject({ hybridqa: 'program', mmqa: 'program', crag: 'rag', mintaka: 'agent', qald9plus: 'agent', compmix: 'agent' });
    expect(await page.inputValue('#variant')).toBe('mintaka');
    expect(await page.inputValue('#mode')).toBe('agent');
    for (const [variant, mode] of Object.entries(health.defaultModes)) {
      await page.selectOption('#variant', variant);
      expect(await page.inputValue('#mode'), variant).toBe(mode);
      expect(await page.isVisible('#context-program'), variant).toBe(mode === 'program');
      expect(await page.isVisible('#context-rag'), variant).toBe(mode === 'rag');
    }
    // MultiModalQA's own files are not read here, and the form says so.
    await page.selectOption('#variant', 'mmqa');
    expect(await page.textContent('#mmqa-note')).toContain('are not read here');
    expect(await axeProblems(page)).toEqual([]);
    await page.selectOption('#variant', 'crag');
    expect(await page.textContent('#pages-status')).toBe('No pages chosen: rag mode reads the top Wikipedia pages for the question instead.');
    expect(await axeProblems(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('program mode: says a table is needed, names a wrong one, and answers from a HybridQA table file with its passages', async () => {
    stub.setScript(PROGRAM_SCRIPT);
    const { page, problems } = await openPage('/');
    const bodies = recordAnswers(page);
    await page.selectOption('#variant', 'hybridqa');
    await page.fill('#question', 'When was the first pick born?');
    await page.click('#ask-button');
    expect(await page.textContent('#table-status')).toBe('Program mode answers from a table: choose a table file or paste one.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('table-text');
    expect(bodies).toEqual([]);

    await page.fill('#table-text', '{"rows": []}');
    expect(await page.textContent('#table-status')).toMatch(/^This JSON is not a table\. Expected a HybridQA table file/);
    expect(await page.getAttribute('#table-text', 'aria-invalid')).toBe('true');

    await page.setInputFiles('#table-file', TABLE_FILE);
    await page.waitForFunction(() => (document.querySelector('#table-status')?.textContent ?? '').startsWith('Table:'));
    expect(await page.textContent('#table-status')).toBe('Table: 1947 BAA draft — Draft: 2 columns × 2 rows, 0 linked passages.');
    await page.setInputFiles('#passages-file', PASSAGES_FILE);
    await page.waitForFunction(() => (document.querySelector('#table-status')?.textContent ?? '').includes('passages;'));
    expect(await page.textContent('#table-status')).toBe(
      'Table: 1947 BAA draft — Draft: 2 columns × 2 rows, 2 linked passages. (BAA_draft_0.passages.json: 3 passages; only those a cell links to are sent)',
    );
    await page.click('#ask-button');
    await finished(page);
    expect(await page.textContent('#run-status')).toBe('Finished.');
    expect(await page.textContent('.answer-text')).toBe('1919');
    expect(await page.textContent('.per-source')).toContain('Table');
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ variant: 'hybridqa', mode: 'program' });
    expect(bodies[0].context.table.rows[0][1]).toEqual({ text: 'Clifton McNeely', links: ['/wiki/Clifton_McNeely'] });
    expect(Object.keys(bodies[0].context.passages).sort()).toEqual(['/wiki/Clifton_McNeely', '/wiki/Glen_Selbo']);
    const usage = await page.textContent('#run-usage');
    expect(usage).toMatch(/^Run succeeded: 2 model calls, 1 program run, [\d,]+ tokens, \d+ ms\.$/);

    // Our own JSON, pasted, works the same way.
    await page.fill('#table-text', JSON.stringify({ table: { columns: ['Pick', 'Player'], rows: [[{ text: '1' }, { text: 'Clifton McNeely', links: ['/wiki/Clifton_McNeely'] }]] }, passages: { '/wiki/Clifton_McNeely': 'born 1919' } }));
    expect(await page.textContent('#table-status')).toMatch(/^Table: 2 columns × 1 rows, 1 linked passage\./);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('rag mode: reads pages given by file, shows each model-call step with its real duration, and counts what it did', async () => {
    stub.setScript(RAG_SCRIPT);
    const { page, problems } = await openPage('/');
    const bodies = recordAnswers(page);
    await page.selectOption('#variant', 'crag');
    await page.setInputFiles('#pages-file', PAGE_FILE);
    await page.waitForFunction(() => (document.querySelector('#pages-status')?.textContent ?? '').startsWith('1 page'));
    expect(await page.textContent('#pages-status')).toBe('1 page: inception.html.');
    await page.fill('#question', 'Who directed Inception?');
    await page.click('#ask-button');
    await finished(page);
    expect(await page.textContent('.answer-text')).toBe('Christopher Nolan');
    expect(bodies[0].context.pages).toEqual([expect.objectContaining({ url: 'inception.html', html: expect.stringContaining('Christopher Nolan') })]);

    const runId = new URL(page.url()).pathname.split('/').pop();
    const run = (await (await fetch(`${base}/v1/runs/${runId}`)).json()) as { steps: Array<{ type: string; tool?: string; ms?: number }>; usage: { toolCalls: number } };
    const summaries = await page.$$eval('#cards > li[data-kind="observation"] summary', (els) => els.map((e) => e.textContent));
    // Model-call steps (attribute, parametric, reasoning) show how long their calls took, never "0 ms".
    for (const s of summaries) expect(s).not.toMatch(/(^|\D)0 ms/);
    for (const tool of ['attribute', 'parametric', 'reasoning']) {
      const step = run.steps.find((s) => s.type === 'observation' && s.tool === tool)!;
      expect(step.ms, tool).toBeGreaterThan(0);
      const title = await page.textContent(`#cards > li[data-kind="observation"]:has(h3:text-is("Observation from ${tool}")) summary`);
      expect(title, tool).toContain(`${step.ms} ms`);
    }
    // Rag mode calls no agent tool; the usage line counts its pipeline stages instead of saying "0 tool calls".
    expect(run.usage.toolCalls).toBe(0);
    const actions = run.steps.filter((s) => s.type === 'action').length;
    const usage = await page.textContent('#run-usage');
    expect(usage).toContain(`, ${actions} pipeline stages, `);
    expect(usage).not.toContain('tool calls');

    // The runs page names each run's variant.
    await page.click('nav a[href="/runs"]');
    const row = page.locator(`#runs-rows tr[data-run-id="${runId}"]`);
    await row.waitFor();
    expect(await page.$$eval('.runs thead th', (th) => th.map((t) => t.textContent))).toEqual(['Question', 'Variant', 'Mode', 'Status', 'Answer', 'Started']);
    expect(await row.locator('td').nth(1).textContent()).toBe('crag');
    expect(await row.locator('td').nth(2).textContent()).toBe('rag');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an unknown run id shows the error alone, without empty answer and trace panels', async () => {
    const { page, problems } = await openPage('/runs/00000000-0000-4000-8000-000000000000');
    await page.waitForSelector('#run-error .error-box');
    expect(await page.textContent('#run-error')).toContain('There is no run with the id');
    expect(await page.isVisible('#answer-panel')).toBe(false);
    expect(await page.isVisible('#trace')).toBe(false);
    expect(await page.textContent('#run-status')).toBe('Run not found.');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('at 390 px each source keeps its sentence readable: several words a line, the label above or beside it', async () => {
    const sentence = 'The Danube flows through ten countries, more than any other river in the world.';
    stub.setScript({ agent: [`Thought: I know this.\nFinal Answer: ${sentence}`], parametric: [sentence], final: [sentence] });
    const { page, problems } = await openPage('/', { width: 390, height: 844 });
    await page.fill('#question', 'Which river flows through the most countries?');
    await page.selectOption('#mode', 'agent');
    await page.click('#ask-button');
    await page.waitForSelector('.answer .per-source dd', { timeout: 60_000 });
    await page.screenshot({ path: join(process.env.UI_SHOTS_DIR ?? tmpdir(), 'ui-per-source-390.png'), fullPage: true });
    // Lines a person reads: the distinct tops of the text's boxes in each answer cell.
    const cells = await page.$$eval('.per-source dd', (dds) =>
      dds.map((dd) => {
        const range = document.createRange();
        range.selectNodeContents(dd);
        const tops = new Set([...range.getClientRects()].map((r: any) => Math.round(r.top)));
        return { text: dd.textContent as string, lines: tops.size };
      }),
    );
    const long = cells.filter((c) => c.text === sentence);
    expect(long.length).toBeGreaterThan(0);
    for (const c of long) expect(c.lines, JSON.stringify(cells)).toBeLessThanOrEqual(Math.ceil(sentence.split(' ').length / 3));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('on a 390 px phone a replayed run shows its answer before the form, within the first screen', async () => {
    stub.setScript({ parametric: ['Paris'] });
    const res = await fetch(`${base}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'What is the capital of France?', mode: 'parametric' }) });
    const { runId } = (await res.json()) as { runId: string };
    const { page, problems } = await openPage(`/runs/${runId}`, { width: 390, height: 844 });
    await page.waitForSelector('.answer-text');
    const answer = (await page.locator('#answer-panel').boundingBox())!;
    const form = (await page.locator('#ask-form').boundingBox())!;
    expect(answer.y).toBeLessThan(form.y);
    expect(answer.y + 40).toBeLessThan(844);
    expect(await page.textContent('.answer-text')).toBe('Paris');
    // Asking a new question puts the form back on top.
    await page.fill('#question', 'What is the capital of Italy?');
    await page.click('#ask-button');
    await finished(page);
    expect((await page.locator('#ask-form').boundingBox())!.y).toBeLessThan((await page.locator('#answer-panel').boundingBox())!.y);
    expect(problems).toEqual([]);
    await page.close();
  });
});
