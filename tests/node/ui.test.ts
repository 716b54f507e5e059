import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stub } from '../support/openai-stub.mjs';
import { axeProblems } from '../support/axe';
import { hasChromium, startUi, withRunOptions, type UiServer } from '../support/ui-browser';

/**
 * The web UI in real Chromium against a real `wrangler dev` with an OpenAI-compatible stub as the model.
 * Runs use the test-only `test-tool-loop` mode (TEST_MODE=true): it emits thought/action/observation triples
 * with a chosen delay, so a run is deterministic and slow enough to cut its stream mid-way.
 * UI_SCREENSHOTS=1 also writes the screenshots in docs/ (1280 and 390 px wide).
 */
// Callbacks below run in the page; the project's lib has no DOM types, so name the page globals loosely here.
declare const document: any;
declare const window: any;

const ROOT = resolve(import.meta.dirname, '../..');

describe.skipIf(!hasChromium)('web UI in Chromium', () => {
  let ui: UiServer;
  let stub: Stub;
  let base = '';

  beforeAll(async () => {
    ui = await startUi();
    ({ stub, base } = ui);
  });

  afterAll(() => ui?.close());

  const openPage = (path: string, viewport?: { width: number; height: number }) => ui.openPage(path, viewport);
  /** Asks the Forrest Gump question in agent mode through the form: the page once the answer's badge shows, and the run as the API holds it. */
  const askForrestGumpInAgentMode = async <Run>() => {
    const { page, problems } = await openPage('/');
    await page.fill('#question', 'In which city was the director of Forrest Gump born?');
    await page.selectOption('#mode', 'agent');
    await page.click('#ask-button');
    await page.waitForSelector('.answer .badge', { timeout: 60_000 });
    const runId = new URL(page.url()).pathname.split('/').pop();
    const run = (await (await fetch(`${base}/v1/runs/${runId}`)).json()) as Run;
    return { page, problems, run };
  };

  /** Presses Tab until the focused element matches, as a keyboard-only person would (at most 60 presses). */
  const tabTo = async (page: Page, selector: string) => {
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return;
    }
    throw new Error(`Tab never reached ${selector}`);
  };

  const cardIds = (page: Page) => page.$$eval('#cards > li', (els) => els.map((e) => Number(e.getAttribute('data-event-id'))));
  const cardKinds = (page: Page) => page.$$eval('#cards > li', (els) => els.map((e) => e.getAttribute('data-kind')));

  it('loads the ask page with the server modes and variants', async () => {
    const { page, problems } = await openPage('/');
    expect(await page.title()).toBe('Ask · HumanIQ answers');
    const modes = await page.$$eval('#mode option', (o) => o.map((x) => (x as any).value));
    expect(modes).toEqual(expect.arrayContaining(['parametric', 'program', 'rag', 'test-tool-loop']));
    const variants = await page.$$eval('#variant option', (o) => o.map((x) => (x as any).value));
    expect(variants).toEqual(expect.arrayContaining(['mintaka', 'qald9plus', 'compmix', 'hybridqa', 'mmqa', 'crag']));
    // The empty state offers questions the offline snapshot answers; picking one fills the question box.
    await page.click('#example-list button >> nth=0');
    expect(await page.inputValue('#question')).toBe('In which city was the director of Forrest Gump born?');
    expect(await page.textContent('#model-status')).toContain('Model:');
    expect(await page.getAttribute('label[for="question"]', 'for')).toBe('question');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('streams a run card by card, ends with the answer, and replays it from its /runs/{id} URL', async () => {
    stub.setScript({ final: ['<img src=x onerror="window.pwned=1">Paris'], parametric: ['Paris'] });
    const { page, problems } = await openPage('/');
    await withRunOptions(page, { calls: 2, delayMs: 150 });
    await page.fill('#question', 'What is the capital of France?');
    await page.selectOption('#mode', 'test-tool-loop');
    await page.click('#ask-button');
    await page.waitForSelector('#cards > li[data-kind="answer"]');
    await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'Finished.');
    expect(await cardKinds(page)).toEqual(['thought', 'action', 'observation', 'thought', 'action', 'observation', 'answer']);
    // The trace counts its cards as entries; "step" is kept for what the progress line and forks count.
    expect(await page.textContent('#trace-count')).toBe('(7 entries)');
    expect(await page.textContent('#cards > li[data-kind="observation"] summary')).toMatch(/\d+ ms/);
    // Model text is shown as text: the markup appears literally and never runs.
    expect(await page.textContent('.answer-text')).toBe('<img src=x onerror="window.pwned=1">Paris');
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.textContent('#run-usage')).toContain('1 model call, 2 tool calls');
    // The answer leads: its card's top is above the first step of the trace.
    const answerTop = (await page.locator('#answer-panel').boundingBox())!.y;
    const firstStepTop = (await page.locator('#cards > li').first().boundingBox())!.y;
    expect(answerTop).toBeLessThan(firstStepTop);
    expect(await page.textContent('#run-meter')).toMatch(/step \d+ of 40 · 1 of 40 model calls/);

    const url = new URL(page.url());
    expect(url.pathname).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
    const replay = await openPage(url.pathname);
    await replay.page.waitForSelector('#cards > li[data-kind="answer"]');
    expect(await cardIds(replay.page)).toEqual(await cardIds(page));
    expect(await replay.page.textContent('#run-question')).toBe('What is the capital of France?');
    expect([...problems, ...replay.problems]).toEqual([]);
    await replay.page.close();
    await page.close();
  });

  it('shows each source answer with the agreement badge, and explains errors', async () => {
    stub.setScript({ parametric: ['Paris'] });
    const { page } = await openPage('/');
    await page.fill('#question', 'What is the capital of France?');
    await page.selectOption('#mode', 'parametric');
    await page.click('#ask-button');
    await page.waitForSelector('.answer .badge');
    // Only the model answered: the badge says so instead of claiming agreement.
    expect(await page.textContent('.answer .badge')).toBe("Only the model's own knowledge answered: not verified in any evidence");
    expect(await page.textContent('.per-source')).toContain("Model's own knowledge");

    // A mode the server does not know: the API's message is shown, not a blank page.
    await page.evaluate(() => document.querySelector('#mode')!.append(new (window as any).Option('nope', 'nope')));
    await page.selectOption('#mode', 'nope');
    await page.click('#ask-button');
    await page.waitForSelector('#run-error .error-box');
    expect(await page.textContent('#run-error')).toContain('mode must be one of');
    await page.close();
  });

  it('names in the badge exactly the sources the API found supporting, and shows each citation with its quote and grade', async () => {
    const query = 'SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }';
    // The film's hit names its director, the run links him, and Wikidata's answer stands in the query about him; the
    // model's own knowledge agrees, which counts for nothing.
    const find = ['Thought: who\nAction: wikisearch\nAction Input: Forrest Gump', 'Thought: his id\nAction: getWikidataID\nAction Input: Robert Zemeckis'];
    stub.setScript({ agent: [...find, `Thought: query\nAction: runQuery\nAction Input: ${query}`, 'Thought: done\nFinal Answer: Chicago'], parametric: ['Chicago'], final: ['Chicago'] });
    const { page, problems, run } = await askForrestGumpInAgentMode<{ agreementSources: string[]; citations: Array<{ verified: boolean; support?: string }> }>();
    expect(run.agreementSources).toEqual(['wikidata']);
    expect(await page.textContent('.answer .badge')).toBe('Supported by one source: Wikidata');
    const verified = await page.locator('.citation.verified').allTextContents();
    expect(verified.length).toBe(run.citations.filter((c) => c.verified).length);
    const supporting = await page.locator('.citation.supports').allTextContents();
    expect(supporting.length).toBe(run.citations.filter((c) => c.verified && c.support === 'supports').length);
    expect(supporting[0]).toContain('Chicago');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an answer whose evidence only mentions it: the badge says not supported, and the citation says mentions only', async () => {
    const query = 'SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }';
    // The agent queries Robert Zemeckis without anything tying him to Forrest Gump (issue 40).
    stub.setScript({ agent: [`Thought: query\nAction: runQuery\nAction Input: ${query}`, 'Thought: done\nFinal Answer: Chicago'], parametric: ['Chicago'], final: ['Chicago'] });
    const { page, problems, run } = await askForrestGumpInAgentMode<{ confidence: string; agreementSources: string[] }>();
    expect(run).toMatchObject({ confidence: 'none', agreementSources: [] });
    // The agent's own answer rests on the same row, and votes only when a source is supported: it is shown too.
    expect(await page.textContent('.answer .badge')).toBe('Not supported: Wikidata and Agent (tools) only mention the answer');
    const mentions = await page.locator('.citation.mentions').allTextContents();
    expect(mentions.length).toBeGreaterThan(0);
    expect(mentions[0]).toMatch(/^Wikidata \(mentions the answer only, no support\): “.*Chicago/);
    expect(await page.locator('.citation.supports').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an answer no verified source backs: the badge says not verified, and a source verified for its own answer says so', async () => {
    const query = 'SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }';
    // Wikidata's query says Chicago, but the merge writes Houston: nothing the run read backs the answer given.
    const find = ['Thought: who\nAction: wikisearch\nAction Input: Forrest Gump', 'Thought: his id\nAction: getWikidataID\nAction Input: Robert Zemeckis'];
    stub.setScript({ agent: [...find, `Thought: query\nAction: runQuery\nAction Input: ${query}`, 'Thought: done\nFinal Answer: Chicago'], parametric: ['Houston'], final: ['Houston'] });
    const { page, problems, run } = await askForrestGumpInAgentMode<{ answer: string; confidence: string; agreementSources: string[] }>();
    expect(run).toMatchObject({ answer: 'Houston', confidence: 'none', agreementSources: [] });
    expect(await page.textContent('.answer .badge')).toBe('Not verified: no evidence this run read contains the answer');
    expect(await page.locator('.citation.verified').count()).toBe(0);
    const other = await page.locator('.citation.other-answer').allTextContents();
    expect(other.length).toBeGreaterThan(0);
    expect(other[0]).toMatch(/^Wikidata \(its own answer, not the one given\): “.*Chicago/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('resumes a dropped stream from the last event id without duplicate cards', async () => {
    stub.setScript({ final: ['Paris'] });
    const { page, problems } = await openPage('/');
    await withRunOptions(page, { calls: 4, delayMs: 400 });
    await page.fill('#question', 'What is the capital of France?');
    await page.selectOption('#mode', 'test-tool-loop');
    await page.click('#ask-button');
    await page.waitForFunction(() => document.querySelectorAll('#cards > li').length >= 2);
    expect(await page.evaluate(() => (window as any).humaniq.dropStream())).toBe(1);
    await page.waitForSelector('#cards > li[data-kind="answer"]', { timeout: 30_000 });
    expect(await page.evaluate(() => (window as any).humaniq.reconnects)).toBeGreaterThanOrEqual(1);
    const ids = await cardIds(page);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(await cardKinds(page)).toEqual([...Array(4)].flatMap(() => ['thought', 'action', 'observation']).concat('answer'));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('says why a blank question cannot be asked, and what a missing run or link means', async () => {
    const { page, problems } = await openPage('/');
    await page.click('#ask-button');
    expect(await page.textContent('#question-error')).toContain('Type a question first');
    expect(await page.getAttribute('#question', 'aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('question');

    const missing = await openPage('/runs/00000000-0000-4000-8000-000000000000');
    await missing.page.waitForSelector('#run-error .error-box');
    expect(await missing.page.textContent('#run-error')).toContain('There is no run with the id');
    expect(await missing.page.textContent('#run-error')).not.toContain('Try again');
    expect(await missing.page.textContent('#run-status')).toBe('Run not found.');
    expect([...problems, ...missing.problems]).toEqual([]);
    await missing.page.close();
    await page.close();
  });

  it('shows the answer as the model writes it, then the finished answer in its place', async () => {
    const reply = 'The Danube flows through ten countries, more than any other river in the world.';
    stub.setScript({ parametric: [reply] });
    await fetch(stub.url.replace(/\/v1$/, '/__latency'), { method: 'POST', body: JSON.stringify({ ms: 0, chunkMs: 250 }) });
    try {
      const { page, problems } = await openPage('/');
      await page.fill('#question', 'Which river flows through the most countries?');
      await page.selectOption('#mode', 'parametric');
      await page.click('#ask-button');
      await page.waitForSelector('#answer-body .answer-draft');
      const draft = (await page.textContent('#answer-body .answer-draft')) ?? '';
      expect(reply.startsWith(draft) && draft.length > 0 && draft.length < reply.length).toBe(true);
      await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'Finished.');
      expect(await page.$('#answer-body .answer-draft')).toBeNull();
      expect(await page.textContent('#answer-body')).toContain(reply);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await fetch(stub.url.replace(/\/v1$/, '/__latency'), { method: 'POST', body: JSON.stringify({ ms: 0 }) });
    }
  });

  it('shows live progress, cancels a run through the API (saying so, not "try again"), and lists it on the runs page', async () => {
    stub.setScript({ final: ['Paris'] });
    const { page, problems } = await openPage('/');
    await withRunOptions(page, { calls: 30, delayMs: 400 });
    await page.fill('#question', 'A run to cancel');
    await page.selectOption('#mode', 'test-tool-loop');
    await page.click('#ask-button');
    await page.waitForFunction(() => document.querySelectorAll('#cards > li').length >= 3);
    expect(await page.textContent('#run-meter')).toMatch(/^\d+ s · step \d+ of 40 · \d+ of 40 model calls · [\d,]+ tokens$/);
    expect(await page.textContent('#answer-body')).toContain('Working on it');
    await page.click('#cancel-button');
    await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'Cancelled.', undefined, { timeout: 30_000 });
    expect(await page.textContent('#answer-body')).toMatch(/Partial answer: the run was cancelled|cancelled before it found an answer/);
    // It says it was cancelled, not to try again or read the server log.
    const stopped = await page.textContent('#cards > li[data-kind="error"]');
    expect(stopped).toContain('The run was cancelled');
    expect(stopped).toContain('Nothing failed: the run was stopped with "Cancel run"');
    expect(await page.textContent('#run-view')).not.toContain('check the server log');
    const runId = new URL(page.url()).pathname.split('/').pop()!;
    const view = (await (await fetch(`${base}/v1/runs/${runId}`)).json()) as any;
    expect(view.status).toBe('cancelled');

    // The runs page (through the nav, as a person would) lists it; route changes move focus and retitle the page.
    await page.click('nav a[href="/runs"]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('runs-heading');
    expect(await page.title()).toBe('Recent runs · HumanIQ answers');
    const row = page.locator(`#runs-rows tr[data-run-id="${runId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('A run to cancel');
    expect(await row.textContent()).toContain('cancelled');
    await row.locator('a').click();
    await page.waitForSelector('#cards > li');
    expect(new URL(page.url()).pathname).toBe(`/runs/${runId}`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('offers "Fork from here" on a finished step, and the fork opens as a new run linked to its parent', async () => {
    stub.setScript({ final: ['Paris', 'Lyon'] });
    const { page, problems } = await openPage('/');
    await withRunOptions(page, { calls: 3 });
    await page.fill('#question', 'A run to fork');
    await page.selectOption('#mode', 'test-tool-loop');
    await page.click('#ask-button');
    await page.waitForSelector('.fork-button[data-step="2"]', { timeout: 30_000 });
    const parentId = new URL(page.url()).pathname.split('/').pop()!;
    await page.click('.fork-button[data-step="2"]');
    await page.waitForFunction((id) => !(globalThis as any).location.pathname.endsWith(id), parentId);
    await page.waitForSelector('.run-parent a', { timeout: 30_000 });
    expect(await page.textContent('.run-parent')).toContain('Forked after step 2 of');
    const childId = new URL(page.url()).pathname.split('/').pop()!;
    const child = (await (await fetch(`${base}/v1/runs/${childId}`)).json()) as any;
    expect(child.parent).toEqual({ runId: parentId, fromStep: 2 });
    expect(child.answer).toBe('Lyon');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('has no serious or critical accessibility violations (ask: empty, running, done; runs; workbench)', async () => {
    stub.setScript({ final: ['Paris'] });
    const { page } = await openPage('/');
    expect(await axeProblems(page)).toEqual([]);
    await withRunOptions(page, { calls: 3, delayMs: 600 });
    await page.fill('#question', 'What is the capital of France?');
    await page.selectOption('#mode', 'test-tool-loop');
    await page.click('#ask-button');
    await page.waitForFunction(() => document.querySelectorAll('#cards > li').length >= 2);
    expect(await axeProblems(page)).toEqual([]);
    await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'Finished.', undefined, { timeout: 30_000 });
    expect(await axeProblems(page)).toEqual([]);
    // The trace is not a live region: only the announcer speaks, with status changes and the answer.
    expect(await page.getAttribute('#cards', 'aria-live')).toBeNull();
    expect(await page.textContent('#announcer')).toMatch(/Run finished\.|Answer: Paris\./);
    for (const path of ['/runs', '/workbench']) {
      const other = await openPage(path);
      if (path === '/runs') await other.page.waitForSelector('#runs-rows tr, #runs-body p');
      expect(await axeProblems(other.page), path).toEqual([]);
      await other.page.close();
    }
    await page.close();
  });

  it('keyboard only: asks a question and opens the answer\'s first source', async () => {
    stub.setScript({
      agent: [
        'Thought: Find the country on Wikidata.\nAction: getWikidataID\nAction Input: France',
        'Thought: France is the country.\nFinal Answer: France',
      ],
      parametric: ['France'],
      final: ['France'],
    });
    const { page, problems } = await openPage('/');
    await page.selectOption('#mode', 'agent');
    await page.evaluate(() => (document.activeElement as any)?.blur());
    await tabTo(page, '#question');
    await page.keyboard.type('Which country is the Eiffel Tower in?');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('#answer-panel .sources a', { timeout: 60_000 });
    const href = await page.getAttribute('#answer-panel .sources a >> nth=0', 'href');
    // The machine is offline: the source's site is served by the test, so the new tab really loads it.
    await page.context().route('https://www.wikidata.org/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>source</title>' }));
    await tabTo(page, '#answer-panel .sources a');
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.keyboard.press('Enter')]);
    expect(popup.url()).toBe(href);
    expect(problems).toEqual([]);
    await popup.close();
    await page.close();
  });

  it('workbench: solves a question by hand, saves it, and exports it in the few-shot library format', async () => {
    const { page, problems } = await openPage('/workbench');
    expect(await page.isVisible('#workbench-page')).toBe(true);
    expect(await page.title()).toBe('Workbench · HumanIQ answers');
    // An empty form explains what is missing in words, and an empty step list says what a step is.
    await page.click('#wb-save');
    expect(await page.textContent('#wb-message')).toBe('Not saved: Write the question before saving.');
    expect(await page.textContent('#wb-steps')).toContain('No steps yet');
    await page.selectOption('#wb-benchmark', 'mintaka');
    // Control characters typed or pasted are removed as they arrive.
    await page.fill('#wb-question', 'Which\u0007 country');
    await page.dispatchEvent('#wb-question', 'input');
    expect(await page.inputValue('#wb-question')).toBe('Which country');
    await page.fill('#wb-question', 'Which country is the Eiffel Tower in?');
    await page.click('#wb-add-step');
    await page.getByLabel('Thought', { exact: true }).fill('Look the tower up on Wikipedia.');
    await page.getByLabel('Tool', { exact: true }).selectOption('wikisearch');
    await page.getByLabel('Action input').fill('Eiffel Tower');
    await page.click('.step-run');
    await page.waitForFunction(() => /in \d+ ms/.test(document.querySelector('.step-note')?.textContent ?? ''));
    const observation = await page.inputValue('.step-observation');
    expect(observation.length).toBeGreaterThan(0);
    await page.getByLabel(/Rate the observation/).selectOption('4');
    await page.fill('#wb-final-thought', 'The tower stands in Paris, so the country is France.');
    await page.fill('#wb-final-answer', 'France');
    if (process.env.UI_SCREENSHOTS) await page.screenshot({ path: join(ROOT, 'docs/ui-workbench.png'), fullPage: true });
    await page.click('#wb-save');
    await page.waitForFunction(() => /^(Saved|Not saved)/.test(document.querySelector('#wb-message')?.textContent ?? ''));
    expect(await page.textContent('#wb-message')).toBe('Saved (1 step).');
    await page.waitForFunction(() => (document.querySelector('#export-text')?.textContent ?? '').includes('Final Answer'));

    const exported = await page.textContent('#export-text');
    const firstObsLine = observation.replace(/\r\n/g, '\n').trimEnd();
    expect(exported).toBe(
      `Question: Which country is the Eiffel Tower in?\nThought: Look the tower up on Wikipedia.\nAction: wikisearch\nAction Input: Eiffel Tower\n` +
        `Observation: ${firstObsLine}\nThought: The tower stands in Paris, so the country is France.\nFinal Answer: France\n`,
    );
    const id = await page.inputValue('#wb-id');
    const stored = (await (await fetch(`${base}/v1/demonstrations/${id}`)).json()) as any;
    expect(stored.steps[0]).toMatchObject({ action: 'wikisearch', rating: 4 });
    expect(await page.textContent(`#saved-list li[data-id="${id}"]`)).toContain('Which country is the Eiffel Tower in?');
    expect(problems).toEqual([]);
    await page.close();
  });

  // Documentation only: an HQA agent run with a scripted model, photographed mid-run and at the end, 1280 and 390 px wide.
  it.skipIf(!process.env.UI_SCREENSHOTS)('screenshots', async () => {
    for (const [width, height, tag] of [[1280, 900, '1280'], [390, 844, '390']] as const) {
      stub.setScript({
        agent: [
          'Thought: I should find the Wikipedia page about the Eiffel Tower.\nAction: wikisearch\nAction Input: Eiffel Tower',
          'Thought: The tower is a landmark of Paris. Let me confirm the country through Wikidata.\nAction: getWikidataID\nAction Input: France',
          'Thought: Paris is the capital of France, so the tower is in France.\nFinal Answer: France',
        ],
        parametric: ['France'],
        final: ['France'],
      });
      const { page } = await openPage('/', { width, height });
      await page.screenshot({ path: join(ROOT, `docs/ui-empty-${tag}.png`) });
      await fetch(stub.url.replace(/\/v1$/, '/__latency'), { method: 'POST', body: JSON.stringify({ ms: 2500 }) });
      await page.fill('#question', 'Which country is the Eiffel Tower in?');
      await page.selectOption('#mode', 'agent');
      await page.click('#ask-button');
      await page.waitForFunction(() => document.querySelectorAll('#cards > li[data-kind="observation"]').length >= 1, undefined, { timeout: 60_000 });
      await page.screenshot({ path: join(ROOT, `docs/ui-running-${tag}.png`) });
      await fetch(stub.url.replace(/\/v1$/, '/__latency'), { method: 'POST', body: JSON.stringify({ ms: 0 }) });
      await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'Finished.', undefined, { timeout: 60_000 });
      await page.screenshot({ path: join(ROOT, `docs/ui-answer-${tag}.png`), fullPage: true });
      await page.click('nav a[href="/runs"]');
      await page.waitForSelector('#runs-rows tr');
      await page.screenshot({ path: join(ROOT, `docs/ui-runs-${tag}.png`) });
      await page.close();
    }
  });
});
