import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/engine/types';
import { scriptedLLM } from '../../src/llm/scripted';
import { lateFusionPipelineStrategy, lateFusionRandomStrategy } from '../../src/strategies/hqa/baselines/late-fusion';
import { staticPipelineStrategy } from '../../src/strategies/hqa/baselines/static-pipeline';
import { randomFewshotStrategy, zeroShotStrategy } from '../../src/strategies/hqa';
import { hqaTools } from '../../src/tools';
import { driveStrategy } from '../helpers/drive';
import { snapshotServices, ofType } from '../hqa/fixtures';

const QUESTION = 'Who wrote Nineteen Eighty-Four?'; // demo question d22
const QUERY = 'SELECT ?author WHERE { wd:Q208460 wdt:P50 ?author . }';


const drive = (strategy: Parameters<typeof driveStrategy>[0], script: Parameters<typeof scriptedLLM>[0], options: Record<string, unknown> = {}) => {
  const llm = scriptedLLM(script);
  return driveStrategy(strategy, { request: { question: QUESTION, options }, llm, services: snapshotServices(), tools: hqaTools() }).then((r) => ({ ...r, llm }));
};

describe('baselines', () => {
  it('static-pipeline runs wikisearch → getWikidataID → generateQuery → runQuery → getLabel, then merges', async () => {
    const { events, llm } = await drive(staticPipelineStrategy, { generateQuery: [QUERY], final: ['George Orwell'] });
    expect(ofType(events, 'action').map((a) => a.tool)).toEqual(['wikisearch', 'getWikidataID', 'generateQuery', 'runQuery', 'getLabel']);
    const obs = ofType(events, 'observation').map((o) => o.output);
    expect(obs[1]).toBe('Nineteen Eighty-Four: Q208460');
    expect(obs[3]).toBe('?author\nQ3335 (George Orwell)\n(1 row)');
    expect(obs[4]).toMatch(/^Q3335: George Orwell/);
    const answer = ofType(events, 'answer')[0];
    expect(answer).toMatchObject({ answer: 'George Orwell', answers: { wikidata: 'George Orwell' }, confidence: 'one_source' });
    expect(answer.sources).toContainEqual({ title: 'Q3335 (George Orwell)', url: 'https://www.wikidata.org/wiki/Q3335', kind: 'wikidata' });
    expect(llm.requests.map((r) => r.purpose)).toEqual(['generateQuery', 'final']);
  });

  it('static-pipeline stops early, saying why, when the search finds nothing', async () => {
    const llm = scriptedLLM({ final: ["I don't know"] });
    const { events } = await driveStrategy(staticPipelineStrategy, {
      request: { question: 'zzqx qqzx' },
      llm,
      services: snapshotServices(),
      tools: hqaTools(),
    });
    expect(ofType(events, 'action').map((a) => a.tool)).toEqual(['wikisearch']);
    expect(ofType(events, 'thought')[0].text).toMatch(/no page/);
    expect(ofType(events, 'answer')[0]).toMatchObject({ answer: "I don't know", confidence: 'none' });
  });

  const fusionScript = () => ({
    read: ['It was written by George Orwell.'],
    generateQuery: [QUERY],
  });

  it('late-fusion-pipeline runs the text and graph pipelines separately, then one merge call', async () => {
    const { events, llm } = await drive(lateFusionPipelineStrategy, { ...fusionScript(), final: ['George Orwell'] });
    expect(ofType(events, 'action').map((a) => a.tool)).toEqual(['wikisearch', 'read', 'wikisearch', 'getWikidataID', 'generateQuery', 'runQuery']);
    expect(ofType(events, 'answer')[0]).toMatchObject({
      answer: 'George Orwell',
      answers: { wikipedia: 'It was written by George Orwell.', wikidata: 'George Orwell' },
      confidence: 'all_agree',
    });
    expect(llm.requests.filter((r) => r.purpose === 'final')).toHaveLength(1);
  });

  it('late-fusion-random picks one pipeline answer by seed, with no merge call', async () => {
    const picks = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { events, llm } = await drive(lateFusionRandomStrategy, fusionScript(), { seed });
      expect(llm.requests.some((r) => r.purpose === 'final')).toBe(false);
      const a = ofType(events, 'answer')[0];
      expect([a.answers.wikipedia, a.answers.wikidata]).toContain(a.answer);
      picks.add(a.answer);
      const again = await drive(lateFusionRandomStrategy, fusionScript(), { seed });
      expect(ofType(again.events, 'answer')[0].answer).toBe(a.answer);
    }
    expect(picks.size).toBe(2);
  });

  it('zero-shot is the agent with no examples; random-fewshot shows seeded examples', async () => {
    const reply = 'Thought: known\nFinal Answer: George Orwell';
    const z = await drive(zeroShotStrategy, { agent: [reply], parametric: ['George Orwell'], final: ['George Orwell'] }, { fewshot: 'dpp' });
    expect(String(z.llm.requests.find((r) => r.purpose === 'agent')!.messages[1].content)).not.toMatch(/Worked examples/);
    expect((z.state as { selection: string }).selection).toBe('zero-shot');
    const r = await drive(randomFewshotStrategy, { agent: [reply], parametric: ['George Orwell'], final: ['George Orwell'] }, { seed: 3 });
    expect((r.state as { selection: string }).selection).toBe('random');
    expect(ofType(r.events, 'answer')[0].answer).toBe('George Orwell');
  });
});
