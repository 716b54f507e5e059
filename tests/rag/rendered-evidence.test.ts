import { describe, expect, it } from 'vitest';
import { localEmbedder } from '../../src/embeddings/local';
import type { AnswerData, EventInput } from '../../src/engine/types';
import { scriptedLLM } from '../../src/llm/scripted';
import { ragStrategy } from '../../src/strategies/rag';
import { driveStrategy } from '../helpers/drive';

// Issue 33: verification reads what a reader sees. The reasoning step answers "Quendrith"; whether that answer is
// verified depends only on how the supplied page shows the word.
const question = 'What is the name of the spring the river rises from?';
const prose = '<p>The Aldwater is a river in the northern hills. It flows east for 140 kilometres.</p>';

const answerFor = async (html: string): Promise<AnswerData> => {
  const llm = scriptedLLM({
    attribute: ['Dynamism: static\nDomain: open', 'Dynamism: static\nDomain: open', 'Dynamism: static\nDomain: open'],
    calculator: ['NONE', 'NONE', 'NONE'],
    parametric: ["Answer: I don't know\nFalse premise: no"],
    reasoning: ['<reasoning>The page names the spring.</reasoning>\n<answer>Quendrith</answer>\n<false_premise>no</false_premise>'],
  });
  const { events } = await driveStrategy(ragStrategy, {
    request: { question, variant: 'crag', mode: 'rag', context: { pages: [{ url: 'https://example.org/aldwater', html }] } },
    llm,
    services: { embedder: () => localEmbedder() },
  });
  const answer = events.filter((e): e is Extract<EventInput, { type: 'answer' }> => e.type === 'answer');
  expect(answer).toHaveLength(1);
  return answer[0]!.data as AnswerData;
};

describe('rag answers are verified against the text a reader sees', () => {
  it.each([
    ['display:none', '<p style="display:none">The Aldwater rises from the Quendrith spring.</p>'],
    ['the hidden attribute', '<p hidden>The Aldwater rises from the Quendrith spring.</p>'],
    ['<template>', '<template><p>The Aldwater rises from the Quendrith spring.</p></template>'],
    ['font-size:0', '<p>The Aldwater rises from the <span style="font-size:0">Quendrith</span> spring.</p>'],
    ["the page's own style rule", '<style>.note{display:none}</style><p class="note">The Aldwater rises from the Quendrith spring.</p>'],
  ])('an answer that stands only in text hidden by %s is not verified: confidence none', async (_, hidden) => {
    const answer = await answerFor(`<html><body>${prose}${hidden}</body></html>`);
    expect(answer.answer).toBe('Quendrith');
    expect(answer).toMatchObject({ confidence: 'none', agreementSources: [] });
    expect(answer.citations.every((c) => !c.verified)).toBe(true);
  });

  it('the same answer written across inline tags, one word on screen, is verified from the page', async () => {
    const answer = await answerFor(`<html><body>${prose}<p>The Aldwater rises from the Quen<b>dri</b>th spring.</p></body></html>`);
    expect(answer).toMatchObject({ answer: 'Quendrith', confidence: 'one_source', agreementSources: ['web'] });
    expect(answer.citations).toContainEqual(expect.objectContaining({ source: 'web', key: 'context page 0', verified: true, quote: 'The Aldwater rises from the Quendrith spring.' }));
  });
});
