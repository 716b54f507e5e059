import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/engine/types';
import type { ChatRequest } from '../../src/llm/types';
import { scriptedLLM } from '../../src/llm/scripted';
import { programStrategy } from '../../src/strategies/program';
import { retrieveSentences } from '../../src/strategies/program/sentence-retriever';
import { driveStrategy } from '../helpers/drive';
import { fence, marathonContext } from './fixture';

const promptOf = (r: ChatRequest) => r.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
const answerOf = (events: EventInput[]) => (events.find((e) => e.type === 'answer') as Extract<EventInput, { type: 'answer' }>).data.answer;
const drive = (question: string, llm: ReturnType<typeof scriptedLLM>, options: Record<string, unknown> = {}) =>
  driveStrategy(programStrategy, { request: { question, variant: 'hybridqa', mode: 'program', context: marathonContext, options }, llm });

const dentist = 'What was the winning time of the runner who trained as a dentist?';
const timeOf = `function solve(table) {
  const row = table.rows.find((r) => check(r['Winner'].text, 'Jonas Meyer', '=='));
  return check(row['Year'].text, '2000', '>') ? row['Time'].text : 'not available';
}`;
const broken = `function solve(table) { return table.rows[0]['Champion'].text; }`;

describe('program mode: options.recipe', () => {
  it('finds the passage sentence that matches the question, as "cell: sentence" knowledge', () => {
    expect(retrieveSentences(dentist, marathonContext)).toEqual(['Jonas Meyer: Before turning professional he trained as a dentist.']);
    expect(retrieveSentences('Which year had the fastest time?', marathonContext)).toEqual([]);
  });

  it('runs the published recipe under "paper": sentence-level simplification, describe-then-code, few-shot check for every comparison', async () => {
    const llm = scriptedLLM({
      simplify: [(r) => (promptOf(r).includes('Jonas Meyer: Before turning professional he trained as a dentist.') ? 'What was the winning time of Jonas Meyer?' : '??')],
      code: [`I find the row whose winner is Jonas Meyer with check, then return its time.\n${fence(timeOf)}`],
      check: ['False', 'True', 'True'],
    });
    const { events } = await drive(dentist, llm, { recipe: 'paper' });
    expect(answerOf(events)).toBe('2:18:45');
    const simplify = llm.requests.find((r) => r.purpose === 'simplify')!;
    expect(simplify.messages).toHaveLength(1);
    expect(promptOf(simplify)).toMatch(/Replace exactly\s+that part/);
    const code = llm.requests.find((r) => r.purpose === 'code')!;
    expect(promptOf(code)).toContain('First describe your solution');
    expect(promptOf(code)).toContain('always call check(a, b, op) instead of writing ==');
    expect(promptOf(code)).toContain('Question: What was the winning time of Jonas Meyer?');
    // Four worked examples, as in the authors' runs (ours shows six).
    expect(promptOf(code).match(/^Question: /gm)).toHaveLength(4 + 1);
    // Even "2020 > 2000" goes to the model, with worked examples, as in the paper.
    const checks = llm.requests.filter((r) => r.purpose === 'check');
    expect(checks).toHaveLength(3);
    expect(promptOf(checks[2])).toContain('Q: 2020 > 2000\nCheck:');
    expect(promptOf(checks[2])).toContain('Q: Paris == the capital of France');
  });

  it('runs our recipe by default: passage-level simplification, code only, numbers and dates compared in code', async () => {
    const llm = scriptedLLM({
      simplify: [(r) => (promptOf(r).includes('Passage: Jonas Meyer (born 1987 in Leipzig)') ? 'What was the winning time of Jonas Meyer?' : '??')],
      code: [fence(timeOf)],
      check: ['False', 'True'],
    });
    const { events } = await drive(dentist, llm);
    expect(answerOf(events)).toBe('2:18:45');
    const code = llm.requests.find((r) => r.purpose === 'code')!;
    expect(promptOf(code)).not.toContain('First describe your solution');
    expect(promptOf(code)).toContain('Reply with the function in one ```javascript code block and nothing else.');
    expect(promptOf(code).match(/^Question: /gm)).toHaveLength(6 + 1);
    expect(llm.requests.filter((r) => r.purpose === 'check').map((r) => promptOf(r))).not.toContainEqual(expect.stringContaining('2020'));
  });

  it('under "paper", refinement continues the code conversation and extract_info closes with "So my answer is"', async () => {
    const birthplace = `function solve(table) { return extract_info(table.rows[1]['Winner'], 'the place of birth'); }`;
    const llm = scriptedLLM({
      code: [fence(broken)],
      refine: [(r) => {
        // The original code prompt, the broken program as the model's own turn, then the error.
        expect(r.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
        expect(String(r.messages[2].content)).toContain("table.rows[0]['Champion'].text");
        expect(String(r.messages[3].content)).toMatch(/TypeError/);
        return fence(birthplace);
      }],
      extract_info: ['The passage says he was born in Leipzig in 1987.\nSo my answer is Leipzig.'],
    });
    const { events } = await drive('Where was the 2020 winner born?', llm, { recipe: 'paper', simplify: false });
    expect(answerOf(events)).toBe('Leipzig');
    expect(promptOf(llm.requests.find((r) => r.purpose === 'extract_info')!)).toContain('So my answer is <the information>');
  });

  it('refines once under "paper" and twice under ours', async () => {
    const paper = scriptedLLM({ code: [fence(broken)], refine: [fence(broken), fence(broken)] });
    await drive('Who won in 2019?', paper, { recipe: 'paper', simplify: false });
    expect(paper.requests.filter((r) => r.purpose === 'refine')).toHaveLength(1);
    const ours = scriptedLLM({ code: [fence(broken)], refine: [fence(broken), fence(broken)] });
    await drive('Who won in 2019?', ours, { simplify: false });
    expect(ours.requests.filter((r) => r.purpose === 'refine')).toHaveLength(2);
  });
});
