import { describe, expect, it } from 'vitest';
import type { AnswerData, EventInput } from '../../src/engine/types';
import { scriptedLLM } from '../../src/llm/scripted';
import { createAgentStrategy } from '../../src/strategies/hqa';
import { entitiesFromTrace } from '../../src/strategies/hqa/answer-entities';
import { hqaTools } from '../../src/tools';
import { driveStrategy } from '../helpers/drive';
import { fixtureLibrary, ofType, snapshotServices } from './fixtures';

const agent = createAgentStrategy({ mode: 'agent', description: 'test agent', library: () => fixtureLibrary });

const answerOf = async (question: string, script: Parameters<typeof scriptedLLM>[0]): Promise<AnswerData> => {
  const { events } = await driveStrategy(agent, { request: { question, options: {} }, llm: scriptedLLM(script), services: snapshotServices(), tools: hqaTools() });
  return ofType(events as EventInput[], 'answer')[0] as AnswerData;
};

const NOLAN = 'SELECT DISTINCT ?film ?filmLabel WHERE { ?film wdt:P31 wd:Q11424 ; wdt:P57 wd:Q25191 . SERVICE wikibase:label { bd:serviceParam wikibase:language "en". } }';

describe('the entities behind an answer', () => {
  it('names every item of a list answer with the entity of the query row it came from', async () => {
    const a = await answerOf('Give me all films directed by Christopher Nolan.', {
      agent: [' A list query.\nAction: runQuery\nAction Input: ' + NOLAN, ' Three films.\nFinal Answer: The Dark Knight, Inception and Interstellar'],
      parametric: ['Inception'],
      final: ['The Dark Knight, Inception and Interstellar'],
    });
    expect(a.answer).toBe('The Dark Knight, Inception and Interstellar');
    expect(a.entities!.map((e) => e.label).sort()).toEqual(['Inception', 'Interstellar', 'The Dark Knight']);
    expect(a.entities!.every((e) => /^Q\d+$/.test(e.id))).toBe(true);
    expect(a.entities!.find((e) => e.label === 'Inception')!.id).toBe('Q25188');
  });

  it('links an answer the trace never named through the lookup getWikidataID uses', async () => {
    const a = await answerOf('Where was Robert Zemeckis born?', {
      agent: [' I know this.\nFinal Answer: Chicago'],
      parametric: ['Chicago'],
      final: ['Chicago'],
    });
    expect(a.entities).toEqual([{ id: 'Q1297', label: 'Chicago' }]);
  });

  it('leaves unknown names, numbers, yes/no and "I don\'t know" without entities', async () => {
    for (const final of ['Bloemfontein', '8', 'No', "I don't know", 'June 11, 632', '1,000']) {
      const a = await answerOf('Some question?', { agent: [` Answer.\nFinal Answer: ${final}`], parametric: [final], final: [final] });
      expect(a.entities, final).toEqual([]);
    }
  });

  it('keeps a name that contains "and" whole when the trace names it', () => {
    const turns = [{ tool: 'runQuery', input: 'q', observation: '?c\nQ225 (Bosnia and Herzegovina)\n(1 row)' }];
    expect(entitiesFromTrace(turns, 'Bosnia and Herzegovina').entities).toEqual([{ id: 'Q225', label: 'Bosnia and Herzegovina' }]);
  });
});
