import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/engine/types';
import { scriptedLLM } from '../../src/llm/scripted';
import { programStrategy } from '../../src/strategies/program';
import { driveStrategy } from '../helpers/drive';
import { fence, marathonContext } from './fixture';

const text = (m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
const promptOf = (req: { messages: { content: unknown }[] }) => req.messages.map(text).join('\n');
const ofType = <T extends EventInput['type']>(events: EventInput[], type: T) =>
  events.filter((e): e is Extract<EventInput, { type: T }> => e.type === type);

const drive = (question: string, llm: ReturnType<typeof scriptedLLM>, context: unknown = marathonContext, options?: Record<string, unknown>) =>
  driveStrategy(programStrategy, { request: { question, variant: 'hybridqa', mode: 'program', context: context as Record<string, unknown>, options }, llm });

const birthplaceProgram = `function solve(table) {
  const row = table.rows.find((r) => r['Year'].text === '2020');
  return extract_info(row['Winner'], 'the place of birth');
}`;

describe('program strategy', () => {
  it('answers on the first attempt: code over the table plus one extract_info call', async () => {
    const llm = scriptedLLM({
      simplify: ['Where was the winner of the 2020 race born?'],
      code: [fence(birthplaceProgram)],
      extract_info: ['Leipzig'],
    });
    const { events } = await drive('Where was the winner of the 2020 race born?', llm);
    const answer = ofType(events, 'answer')[0].data;
    // Verified in the passage linked from the winner's cell.
    expect(answer).toMatchObject({ answer: 'Leipzig', answers: { table: 'Leipzig' }, confidence: 'one_source', agreementSources: ['table'] });
    expect(answer.citations).toEqual([
      {
        source: 'table',
        key: 'context passage /wiki/Jonas_Meyer',
        kind: 'passage',
        url: 'https://en.wikipedia.org/wiki/Jonas_Meyer',
        quote: 'Jonas Meyer (born 1987 in Leipzig) is a German marathon runner.',
        verified: true,
        // extract_info read this passage, linked from the cell of the row the program matched.
        support: 'supports',
      },
    ]);
    expect(answer.sources).toEqual([
      { title: 'Winners of the Coastal Marathon', kind: 'table' },
      { title: 'Jonas Meyer', url: 'https://en.wikipedia.org/wiki/Jonas_Meyer', kind: 'passage' },
    ]);

    const [action] = ofType(events, 'action');
    expect(action.data).toEqual({ tool: 'program', input: { code: birthplaceProgram } });
    const [obs] = ofType(events, 'observation');
    expect(obs.data.output).toBe('"Leipzig"');
    expect(obs.data.detail).toMatchObject({ hostCalls: [{ fn: 'extract_info', result: 'Leipzig' }] });

    // The code prompt shows the linearised table with passage marks and the team's examples.
    const codeReq = llm.requests.find((r) => r.purpose === 'code')!;
    expect(promptOf(codeReq)).toContain('row 1: 2020 | Jonas Meyer [passage] | Germany | 2:18:45');
    expect(promptOf(codeReq)).toContain('Lighthouses of the northern coast');
    // extract_info read the passage linked from the 2020 winner's cell.
    const extractReq = llm.requests.find((r) => r.purpose === 'extract_info')!;
    expect(promptOf(extractReq)).toContain('trained as a dentist');
    expect(promptOf(extractReq)).toContain('the place of birth');
  });

  it('makes no refinement call once a program answered from the evidence (issue 25), under either recipe', async () => {
    for (const recipe of ['ours', 'paper']) {
      // The paper's extract_info prompt asks the model to close with "So my answer is …".
      const llm = scriptedLLM({ code: [fence(birthplaceProgram)], extract_info: [recipe === 'paper' ? 'He was born in Leipzig.\nSo my answer is Leipzig.' : 'Leipzig'] });
      const { events } = await drive('Where was the winner of the 2020 race born?', llm, marathonContext, { simplify: false, recipe, refineRounds: 2 });
      expect(ofType(events, 'answer')[0].data).toMatchObject({ answer: 'Leipzig', confidence: 'one_source' });
      expect(llm.requests.map((r) => r.purpose)).toEqual(['code', 'extract_info']);
    }
  });

  it('leaves a computed answer no cell or passage holds unverified, with confidence none, however cleanly it ran', async () => {
    const llm = scriptedLLM({ code: [fence('function solve(table) { return table.rows.length * 7; }')] });
    const { events } = await drive('How many winners times seven?', llm, marathonContext, { simplify: false });
    const answer = ofType(events, 'answer')[0].data;
    expect(answer).toMatchObject({ answer: '21', confidence: 'none', agreementSources: [] });
    expect(answer.citations.every((c) => !c.verified && !c.quote)).toBe(true);
    // Asked to abstain, the run says "I don't know" instead of the unverified value.
    const again = await drive('How many winners times seven?', scriptedLLM({ code: [fence('function solve(table) { return table.rows.length * 7; }')] }), marathonContext, { simplify: false, abstain: true });
    expect(ofType(again.events, 'answer')[0].data).toMatchObject({ answer: "I don't know", answers: { table: '21' }, confidence: 'none' });
  });

  it('grades the table cell the program read as support, and a value it only wrote down as a mention', async () => {
    // Issue 40: the cell the program read, in the row it matched, supports its answer.
    const reading = `function solve(table) {
  return table.rows.find((r) => r['Winner'].text === 'Kari Vold')['Time'].text;
}`;
    const read = await drive('What was the winning time of Kari Vold?', scriptedLLM({ code: [fence(reading)] }), marathonContext, { simplify: false });
    expect(ofType(read.events, 'answer')[0].data).toMatchObject({
      confidence: 'one_source',
      agreementSources: ['table'],
      citations: [{ key: 'context table', quote: 'Year: 2019 | Winner: Kari Vold | Country: Norway | Time: 2:21:10', verified: true, support: 'supports' }],
    });
    // The same value, written into the program: the table holds it, but nothing the program read ties it to the question.
    const literal = `function solve(table) {
  return '2:21:10';
}`;
    const written = await drive('What was the winning time of Kari Vold?', scriptedLLM({ code: [fence(literal)] }), marathonContext, { simplify: false });
    expect(ofType(written.events, 'answer')[0].data).toMatchObject({
      answer: '2:21:10',
      confidence: 'none',
      agreementSources: [],
      citations: [{ key: 'context table', verified: true, support: 'mentions' }],
    });
    // A program that returns the cell itself read it too.
    const cell = `function solve(table) {
  return table.rows[1]['Time'];
}`;
    const returned = await drive('What was the winning time in 2020?', scriptedLLM({ code: [fence(cell)] }), marathonContext, { simplify: false });
    expect(ofType(returned.events, 'answer')[0].data).toMatchObject({ answer: '2:18:45', citations: [{ support: 'supports' }] });
  });

  it('repairs a failing program by refinement, showing the model its error', async () => {
    const broken = `function solve(table) {
  return table.rows.find((r) => r['Champion'].text === 'Kari Vold')['Time'].text;
}`;
    const fixed = `function solve(table) {
  return table.rows.find((r) => r['Winner'].text === 'Kari Vold')['Time'].text;
}`;
    const llm = scriptedLLM({ code: [fence(broken)], refine: [fence(fixed)] });
    const { events } = await drive('What was the winning time of Kari Vold?', llm, marathonContext, { simplify: false });
    // A refined program's answer counts as much as a first one's: what counts is that the table holds it.
    expect(ofType(events, 'answer')[0].data).toMatchObject({
      answer: '2:21:10',
      confidence: 'one_source',
      citations: [{ key: 'context table', kind: 'table', quote: 'Year: 2019 | Winner: Kari Vold | Country: Norway | Time: 2:21:10', verified: true }],
    });
    const observations = ofType(events, 'observation');
    expect(observations).toHaveLength(2);
    expect(observations[0].data.error).toBe(true);
    expect(observations[0].data.output).toMatch(/^exception: TypeError/);

    const refineReq = llm.requests.find((r) => r.purpose === 'refine')!;
    expect(promptOf(refineReq)).toContain("r['Champion'].text");
    expect(promptOf(refineReq)).toMatch(/TypeError: cannot read property 'text' of undefined/);
  });

  it('refines when the program returns "not available", and stops after the configured rounds', async () => {
    const hopeless = `function solve(table) { return extract_info(table.rows[0]['Country'], 'the capital'); }`;
    const llm = scriptedLLM({ code: [fence(hopeless)], refine: [fence(hopeless)] });
    const { events } = await drive('What is the capital of the 2019 winner\'s country?', llm, marathonContext, { simplify: false, refineRounds: 1 });
    expect(ofType(events, 'observation')).toHaveLength(2);
    expect(promptOf(llm.requests.find((r) => r.purpose === 'refine')!)).toMatch(/not available: no passage is linked to "Norway"/);
    // No answer at all rather than an empty one: the run fails and says why.
    expect(ofType(events, 'answer')).toHaveLength(0);
    expect(ofType(events, 'error')[0].data).toMatchObject({ code: 'no_answer', message: expect.stringMatching(/after 2 attempt\(s\).*returned "not available"|after 2 attempt\(s\)/) });
  });

  it('a program whose cost hides in a built-in fails at the CPU budget, and the run fails saying so', async () => {
    const search = "function solve(t){ const s='a'.repeat(2000000)+'b'; const n='a'.repeat(2000)+'c'; return s.indexOf(n); }";
    const llm = scriptedLLM({ code: [fence(search)], refine: [fence(search)] });
    const { events } = await drive('What was the winning time of Kari Vold?', llm, marathonContext, { simplify: false, refineRounds: 1 });
    const observations = ofType(events, 'observation');
    expect(observations).toHaveLength(2);
    for (const o of observations) {
      expect(o.data.error).toBe(true);
      expect(o.data.output).toMatch(/^cpu_budget: cpu budget exceeded/);
      expect(o.data.detail).toMatchObject({ error: { kind: 'cpu_budget' } });
    }
    expect(ofType(events, 'answer')).toHaveLength(0);
    expect(ofType(events, 'error')[0].data).toMatchObject({ code: 'no_answer', message: expect.stringMatching(/cpu_budget: cpu budget exceeded/) });

    const fixed = "function solve(table) { return table.rows.find((r) => r['Winner'].text === 'Kari Vold')['Time'].text; }";
    const next = await drive('What was the winning time of Kari Vold?', scriptedLLM({ code: [fence(fixed)] }), marathonContext, { simplify: false });
    expect(ofType(next.events, 'answer')[0].data).toMatchObject({ answer: '2:21:10' });
  });

  it('simplifies the question from the most related passage before writing code', async () => {
    const llm = scriptedLLM({
      simplify: ['What was the winning time of Jonas Meyer?'],
      check: ['false'],
      code: [fence(`function solve(table) { return table.rows.find((r) => check(r['Winner'].text, 'Jonas Meyer', '=='))['Time'].text; }`)],
    });
    const { events } = await drive('What was the winning time of the runner who trained as a dentist?', llm);
    const simplifyReq = llm.requests.find((r) => r.purpose === 'simplify')!;
    const prompt = promptOf(simplifyReq);
    // BM25 put the dentist passage first, with the cell it belongs to.
    expect(prompt.indexOf('trained as a dentist')).toBeLessThan(prompt.indexOf('Bergen') === -1 ? Infinity : prompt.indexOf('Bergen'));
    expect(prompt).toContain('row 1, column "Winner": Jonas Meyer');
    expect(promptOf(llm.requests.find((r) => r.purpose === 'code')!)).toContain('Question: What was the winning time of Jonas Meyer?');
    expect(ofType(events, 'thought')[0].data.text).toContain('What was the winning time of Jonas Meyer?');
    expect(ofType(events, 'answer')[0].data.answer).toBe('2:18:45');
  });

  it('tells the program an image is unavailable when the model cannot read images', async () => {
    const llm = scriptedLLM({ code: [fence(`function solve(table) { return extract_info(table.rows[2]['Country'], 'the colours of the flag'); }`)] });
    const { events } = await drive('What colours are on the flag of the 2021 winner?', llm, marathonContext, { simplify: false, refineRounds: 0 });
    const [obs] = ofType(events, 'observation');
    expect(JSON.stringify(obs.data.detail)).toMatch(/the image could not be read .*set LLM_MODEL_VISION/);
    expect(llm.requests.some((r) => r.purpose === 'extract_info' || r.purpose === 'vision')).toBe(false);
  });

  it('sends the image to a model that accepts images, as a vision request', async () => {
    const llm = scriptedLLM(
      { code: [fence(`function solve(table) { return extract_info(table.rows[2]['Country'], 'the colours of the flag'); }`)], vision: ['white and red'] },
      { acceptsImages: true },
    );
    const { events } = await drive('What colours are on the flag of the 2021 winner?', llm, marathonContext, { simplify: false });
    expect(ofType(events, 'answer')[0].data.answer).toBe('white and red');
    const content = llm.requests.find((r) => r.purpose === 'vision')!.messages[1].content;
    expect(content).toContainEqual({ type: 'image_url', image_url: { url: 'https://example.org/flag_japan.png' } });
  });

  it('refuses a request without a valid table with a clear error', async () => {
    const llm = scriptedLLM({});
    const { events } = await drive('Anything?', llm, { table: { columns: [], rows: 'none' } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', data: { code: 'invalid_context' } });
    expect((events[0] as Extract<EventInput, { type: 'error' }>).data.message).toMatch(/context\.table/);
    expect(llm.requests).toHaveLength(0);
  });

  it('contains a hostile generated program and still ends the run', async () => {
    const llm = scriptedLLM({ code: [fence('function solve(table) { while (true) {} }')] });
    const { events } = await drive('Loop forever?', llm, marathonContext, { simplify: false, refineRounds: 0 });
    expect(ofType(events, 'observation')[0].data.output).toMatch(/^cpu_budget:/);
    expect(ofType(events, 'answer')).toHaveLength(0);
    expect(ofType(events, 'error')[0].data.code).toBe('no_answer');
  });
});
