import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/engine/types';
import { scriptedLLM } from '../../src/llm/scripted';
import { lateFusionPipelineStrategy, lateFusionRandomStrategy } from '../../src/strategies/hqa/baselines/late-fusion-pipelines';
import { staticPipelineStrategy } from '../../src/strategies/hqa/baselines/static-pipeline';
import { parametricStrategy } from '../../src/strategies/baselines/parametric';
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

describe('baselines and the attribution layer', () => {
  type Verdict = { answer: string; confidence: string; agreementSources: string[]; citations: { source: string; verified: boolean; quote?: string }[]; sources: unknown[] };
  const fusionScriptFor = () => ({ read: ['It was written by George Orwell.'], generateQuery: [QUERY] });
  const verdict = (events: EventInput[]) => ofType(events, 'answer')[0] as unknown as Verdict;

  /** The label says how many sources a citation verified: never all_agree with fewer than two, never none with any. */
  const expectConsistent = (a: Verdict) => {
    const verified = [...new Set(a.citations.filter((c) => c.verified).map((c) => c.source))];
    expect(verified).toEqual(expect.arrayContaining(a.agreementSources));
    if (['all_agree', 'two_agree', 'conflict'].includes(a.confidence)) expect(a.agreementSources.length).toBeGreaterThanOrEqual(2);
    if (a.confidence === 'one_source') expect(a.agreementSources).toHaveLength(1);
    if (a.confidence === 'none') expect(a.agreementSources).toEqual([]);
  };

  it("parametric: the model's own knowledge is no evidence, so none and no citation, even for a right answer", async () => {
    const { events } = await drive(parametricStrategy, { parametric: ['George Orwell'] });
    const a = verdict(events);
    expect(a).toMatchObject({ answer: 'George Orwell', confidence: 'none', agreementSources: [], citations: [] });
    expect(a.sources).toEqual([{ title: "the model's own knowledge", kind: 'model' }]);
  });

  it('late-fusion-random says all_agree only because both pipelines are verified, whichever answer the seed picks', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const a = verdict((await drive(lateFusionRandomStrategy, fusionScriptFor(), { seed })).events);
      expectConsistent(a);
      expect(a).toMatchObject({ confidence: 'all_agree', agreementSources: ['wikipedia', 'wikidata'] });
    }
  });

  it('static-pipeline: an answer the query row holds is verified with a quote containing it; one no record holds is none', async () => {
    const found = verdict((await drive(staticPipelineStrategy, { generateQuery: [QUERY], final: ['George Orwell'] })).events);
    expectConsistent(found);
    expect(found).toMatchObject({ confidence: 'one_source', agreementSources: ['wikidata'] });
    expect(found.citations.filter((c) => c.verified).every((c) => c.quote?.includes('George Orwell'))).toBe(true);

    // The merge writes an author the pipeline never saw: nothing the run read backs it.
    const invented = verdict((await drive(staticPipelineStrategy, { generateQuery: [QUERY], final: ['Aldous Huxley'] })).events);
    expectConsistent(invented);
    expect(invented).toMatchObject({ answer: 'Aldous Huxley', confidence: 'none', agreementSources: [] });
    expect(invented.citations.some((c) => c.quote?.includes('Huxley'))).toBe(false);
  });

  it('late-fusion-pipeline: both pipelines verified agree; with options.abstain an unbacked merge says "I don\'t know"', async () => {
    const both = verdict((await drive(lateFusionPipelineStrategy, { ...fusionScriptFor(), final: ['George Orwell'] })).events);
    expectConsistent(both);
    expect(both.agreementSources).toEqual(['wikipedia', 'wikidata']);
    // The Wikipedia pipeline's reader claims a page says what it does not, and the query finds nothing: no verified source.
    const unbacked = verdict(
      (await drive(lateFusionPipelineStrategy, { read: ['It was written by Aldous Huxley.'], generateQuery: ['SELECT ?x WHERE { wd:Q208460 wdt:P57 ?x . }'], final: ['Aldous Huxley'] }, { abstain: true })).events,
    );
    expectConsistent(unbacked);
    expect(unbacked).toMatchObject({ answer: "I don't know", confidence: 'none', agreementSources: [] });
  });
});

