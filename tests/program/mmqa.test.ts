// @module-tag slow
import { describe, expect, it } from 'vitest';
import { mmqaContext, type MMQAImage, type MMQATable, type MMQAText } from '../../src/eval/contexts/mmqa';
import { installScript } from '../../src/llm/scripted';
import { post } from '../engine/helpers';
import tablesText from '../fixtures/mmqa/MMQA_tables.jsonl?raw';
import textsText from '../fixtures/mmqa/MMQA_texts.jsonl?raw';
import imagesText from '../fixtures/mmqa/MMQA_images.jsonl?raw';

// The MMQA fixture in its released formats (tests/fixtures/mmqa), built the way `npm run eval` builds it.
const lines = <T>(text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
const table = lines<MMQATable>(tablesText).find((t) => t.id === '41dc98f6fcf3e153b4d6fd5dd1f48212')!;
const texts = lines<MMQAText>(textsText);
// A 1×1 PNG stands in for the file's bytes; the eval CLI sends the real file as a data: URL the same way.
const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
const images = lines<MMQAImage>(imagesText).map((image) => ({ image, url: PIXEL }));
const context = mmqaContext(table, texts, images);

const fence = (code: string) => `\`\`\`javascript\n${code}\n\`\`\``;
const ask = (question: string) => post('/v1/answer', { question, variant: 'mmqa', context, options: { simplify: false } });

describe('the mmqa variant (program mode by default) on the MMQA fixture', () => {
  it('shows MMQA\'s own examples and the documents no cell links to, and reads one by its key', async () => {
    const llm = installScript({
      code: [fence("function solve(table) { return extract_info('/wiki/Flag_of_the_Philippines', 'what the symbols stand for'); }")],
      extract_info: ["unity, freedom, people's democracy, and sovereignty"],
    });
    const run = await (await ask('what does the sun symbolize in the philippine flag')).json<any>();
    expect(run).toMatchObject({ variant: 'mmqa', mode: 'program', status: 'succeeded', answer: "unity, freedom, people's democracy, and sovereignty" });
    const prompt = JSON.stringify(llm.requests.find((r) => r.purpose === 'code')!.messages);
    expect(prompt).toContain('Coastal Rowing League'); // an MMQA example, not a HybridQA one
    expect(prompt).not.toContain('Lighthouses of the northern coast');
    expect(prompt).toContain('Passages no cell links to');
    expect(prompt).toContain('\\"/wiki/Flag_of_the_Philippines\\": The national flag of the Philippines');
    expect(prompt).toContain('row 0: 2008 | Slumdog Millionaire [passage] [image] | Latika | Danny Boyle | -');
  });

  it('without a vision model the image read is refused in words the program and the run show', async () => {
    // Only the image can answer: the table's passages are left out.
    const imageOnly = { ...context, passages: {} };
    const llm2 = installScript({ code: [fence("function solve(table) { return extract_info(table.rows[0]['Title'], 'what floats around'); }")] });
    const run2 = await (
      await post('/v1/answer', { question: 'What floats around them?', variant: 'mmqa', context: imageOnly, options: { simplify: false, refineRounds: 0 } })
    ).json<any>();
    const observation = run2.steps.find((s: any) => s.type === 'observation');
    expect(JSON.stringify(observation)).toMatch(/the image could not be read \(linked to \\"Slumdog Millionaire\\"\): no vision model is configured; set LLM_MODEL_VISION/);
    expect(llm2.requests.map((r) => r.purpose)).toEqual(['code']);
  });

  it('with a model that reads images, the image goes out as an image_url part of a vision request', async () => {
    const llm = installScript(
      { code: [fence("function solve(table) { return extract_info(table.rows[0]['Title'], 'what floats around the two people'); }")], vision: ['confetti'] },
      { acceptsImages: true },
    );
    const run = await (await ask('What is floating around the two people in Slumdog Millionaire?')).json<any>();
    expect(run.answer).toBe('confetti');
    const read = llm.requests.find((r) => r.purpose === 'vision')!;
    expect(read.messages[1].content).toContainEqual({ type: 'image_url', image_url: { url: PIXEL } });
    expect(run.usage.byPurpose.vision.calls).toBe(1);
  });
});
