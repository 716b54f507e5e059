import { describe, expect, it } from 'vitest';
import { localEmbedder } from '../../src/embeddings/local';
import type { AnswerData, EventInput } from '../../src/engine/types';
import { scriptedLLM } from '../../src/llm/scripted';
import { ragStrategy } from '../../src/strategies/rag';
import { driveStrategy } from '../helpers/drive';

// Issue 33: verification reads what a reader sees. The reasoning step answers "Quendrith"; whether that answer is
// verified depends only on how the supplied page shows the word. Issue 40: and only what the model was shown — the
// reasoning prompt is cut from the same rendering, so hidden text is never in it either.
const question = 'What is the name of the spring the Aldwater rises from?';
const prose = '<p>The Aldwater is a river in the northern hills. It flows east for 140 kilometres.</p>';

const answerFor = async (html: string): Promise<AnswerData & { prompt: string }> => {
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
  // What the model was shown of the page: the references of its reasoning prompt.
  const prompt = llm.requests.filter((r) => r.purpose === 'reasoning').flatMap((r) => r.messages.map((m) => String(m.content))).join('\n');
  expect(prompt).toContain('140 kilometres');
  return { ...(answer[0]!.data as AnswerData), prompt };
};

const SENTENCE = 'The Aldwater rises from the Quendrith spring.';

describe('rag answers are verified against the text a reader sees', () => {
  it.each([
    ['display:none', '<p style="display:none">The Aldwater rises from the Quendrith spring.</p>'],
    ['the hidden attribute', '<p hidden>The Aldwater rises from the Quendrith spring.</p>'],
    ['<template>', '<template><p>The Aldwater rises from the Quendrith spring.</p></template>'],
    ['font-size:0', '<p>The Aldwater rises from the <span style="font-size:0">Quendrith</span> spring.</p>'],
    ["the page's own style rule", '<style>.note{display:none}</style><p class="note">The Aldwater rises from the Quendrith spring.</p>'],
    // Issue 40: the ways of hiding that still backed an answer.
    ['color:#fff on background:#fff', `<p style="color:#fff;background:#fff">${SENTENCE}</p>`],
    ['color:white on the white page', `<p style="color:white">${SENTENCE}</p>`],
    ['the same rgb() as its background', `<div style="background:rgb(240,240,240)"><p style="color:rgb(240, 240, 240)">${SENTENCE}</p></div>`],
    ['opacity:0.01', `<p style="opacity:0.01">${SENTENCE}</p>`],
    ['transform:translateX(-10000px)', `<p style="transform:translateX(-10000px)">${SENTENCE}</p>`],
    ['a zero-size <svg>', `<svg width="0" height="0"><text>${SENTENCE}</text></svg>`],
    ['a descendant rule of the page', `<style>main .aside p{display:none}</style><main><div class="aside"><p>${SENTENCE}</p></div></main>`],
    ['a child rule of the page', `<style>section > p{visibility:hidden}</style><section><p>${SENTENCE}</p></section>`],
    ['an attribute rule of the page', `<style>p[data-k="x"]{font-size:0}</style><p data-k="x">${SENTENCE}</p>`],
  ])('an answer that stands only in text hidden by %s is not shown to the model and not verified: confidence none', async (_, hidden) => {
    const answer = await answerFor(`<html><body>${prose}${hidden}</body></html>`);
    expect(answer.answer).toBe('Quendrith');
    expect(answer.prompt).not.toContain('Quendrith');
    expect(answer).toMatchObject({ confidence: 'none', agreementSources: [] });
    expect(answer.citations.every((c) => !c.verified)).toBe(true);
  });

  it.each([
    ['aria-hidden', `<p aria-hidden="true">${SENTENCE}</p>`],
    ['a closed <details>', `<details><summary>Source</summary><p>${SENTENCE}</p></details>`],
    ['light text on a dark background', `<div style="background:#203040;color:#f0f0f0"><p>${SENTENCE}</p></div>`],
    ['coloured text on a coloured background', `<p style="color:navy;background:lightyellow">${SENTENCE}</p>`],
  ])('text a reader sees although it is %s is shown to the model and supports the answer', async (_, shown) => {
    const answer = await answerFor(`<html><body>${prose}${shown}</body></html>`);
    expect(answer.prompt).toContain(SENTENCE);
    expect(answer).toMatchObject({ answer: 'Quendrith', confidence: 'one_source', agreementSources: ['web'] });
    expect(answer.citations).toContainEqual(expect.objectContaining({ verified: true, support: 'supports', quote: SENTENCE }));
  });

  it('the same answer written across inline tags, one word on screen, is verified from the page', async () => {
    const answer = await answerFor(`<html><body>${prose}<p>The Aldwater rises from the Quen<b>dri</b>th spring.</p></body></html>`);
    expect(answer).toMatchObject({ answer: 'Quendrith', confidence: 'one_source', agreementSources: ['web'] });
    expect(answer.citations).toContainEqual(
      expect.objectContaining({ source: 'web', key: 'context page 0', verified: true, support: 'supports', quote: 'The Aldwater rises from the Quendrith spring.' }),
    );
  });
});
