import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/engine/types';
import { scriptedLLM, type Script } from '../../src/llm/scripted';
import { createAgentStrategy } from '../../src/strategies/hqa';
import { hqaTools } from '../../src/tools';
import { driveStrategy } from '../helpers/drive';
import { fixtureLibrary, ofType, snapshotServices } from './fixtures';

/** The merge call is made only when it has something to decide (issue 25): the model's received calls tell. */
const QUESTION = 'In which city was the director of Forrest Gump born?';
const QUERY = 'SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }';
const agent = createAgentStrategy({ mode: 'agent', description: 'test', library: () => fixtureLibrary });

const run = async (read: string, options: Record<string, unknown> = {}, extra: Script = {}) => {
  const llm = scriptedLLM({
    agent: [
      // The film's hit names its director, and the run links him: what ties the query and the page to the question.
      'Thought: who directed it\nAction: wikisearch\nAction Input: Forrest Gump',
      'Thought: his id\nAction: getWikidataID\nAction Input: Robert Zemeckis',
      'Thought: query\nAction: runQuery\nAction Input: ' + QUERY,
      'Thought: check the text\nAction: read\nAction Input: Robert Zemeckis # Where was he born?',
      'Thought: done\nFinal Answer: Chicago',
    ],
    parametric: ['Chicago'],
    read: [read],
    ...extra,
  });
  const { events } = await driveStrategy(agent, { request: { question: QUESTION, options }, llm, services: snapshotServices(), tools: hqaTools() });
  const purposes = llm.requests.map((r) => r.purpose);
  return { purposes, answer: ofType(events as EventInput[], 'answer')[0], thoughts: ofType(events as EventInput[], 'thought').map((t) => t.text) };
};

const AGREE = 'Robert Zemeckis was born in Chicago, Illinois.';
const DISAGREE = 'He studied film at the University of Southern California.';

describe('the merge call', () => {
  it('is skipped when Wikipedia and Wikidata agree in verified evidence, and the trace says so', async () => {
    const { purposes, answer, thoughts } = await run(AGREE);
    expect(purposes).not.toContain('final');
    expect(answer).toMatchObject({ answer: 'Chicago', confidence: 'all_agree', agreementSources: ['wikipedia', 'wikidata'] });
    expect(thoughts.at(-1)).toBe('Wikipedia and Wikidata agree, verified in the evidence; the merge call is skipped.');
  });

  it('is skipped for a long answer too, which names the agreeing sources', async () => {
    const { purposes, answer } = await run(AGREE, { answerStyle: 'long' });
    expect(purposes).not.toContain('final');
    expect(answer.answer).toMatch(/^Chicago\. Wikipedia and Wikidata agree on this answer/);
    expect(answer.answer).toContain(`Wikipedia: ${AGREE}`);
  });

  it('is made when the sources disagree', async () => {
    const { purposes, answer, thoughts } = await run(DISAGREE, {}, { final: ['Chicago'] });
    expect(purposes.filter((p) => p === 'final')).toHaveLength(1);
    expect(answer).toMatchObject({ answer: 'Chicago', confidence: 'conflict' });
    expect(thoughts.join('\n')).not.toMatch(/merge call is skipped/);
  });

  it('is made under the paper recipe even when the sources agree', async () => {
    const paperAgent = [
      'Thought: query\nAction: runQuery\nAction Input: ' + QUERY,
      'Thought: check the text\nAction: read\nAction Input: Robert Zemeckis # Where was he born?',
      'Thought: done\nFinal Answer: Chicago\nWikipedia Answer: Chicago\nWikidata Answer: Chicago',
    ];
    const { purposes } = await run(AGREE, { recipe: 'paper' }, { agent: paperAgent, final: ['Chicago'] });
    expect(purposes.filter((p) => p === 'final')).toHaveLength(1);
  });
});
