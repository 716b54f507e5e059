import { describe, expect, it } from 'vitest';
import { parseTurn, resolveTool } from '../../src/strategies/hqa/parse-step';

const TOOLS = ['wikisearch', 'read', 'getWikidataID', 'generateQuery', 'runQuery', 'getLabel'];

describe('parseTurn reads what models emit', () => {
  it('reads the plain protocol (the prompt ends in "Thought:", so the thought has no label)', () => {
    expect(parseTurn(' I need the director first.\nAction: wikisearch\nAction Input: Forrest Gump')).toEqual({
      kind: 'action',
      thought: 'I need the director first.',
      tool: 'wikisearch',
      input: 'Forrest Gump',
    });
  });

  it('reads an empty thought with the action on its line, as GPT-4 wrote it in the HQA authors\' runs', () => {
    expect(parseTurn('Thought: Action:generateQuery\n\nAction Input: the capital of Germany # wd:Q183')).toEqual({
      kind: 'action',
      thought: '',
      tool: 'generateQuery',
      input: 'the capital of Germany # wd:Q183',
    });
    expect(parseTurn('Thought: Final Answer: Berlin')).toMatchObject({ kind: 'final', answer: 'Berlin' });
    // A label later in the sentence is prose, and so is a quoted line (how fenced data shows protocol lines).
    expect(parseTurn('Thought: I will use Action: runQuery later')).toMatchObject({ kind: 'invalid', thought: 'I will use Action: runQuery later' });
    expect(parseTurn('> Thought: Action:runQuery\nSELECT ?x WHERE { ?x ?p ?o }')).toMatchObject({ kind: 'invalid' });
  });

  it('takes the input from the action line when "Action Input" is missing', () => {
    expect(parseTurn('Thought: search\nAction: wikisearch[Forrest Gump]')).toMatchObject({ tool: 'wikisearch', input: 'Forrest Gump' });
    expect(parseTurn('Thought: search\nAction: read("Robert Zemeckis # Where was he born?")')).toMatchObject({
      tool: 'read',
      input: '"Robert Zemeckis # Where was he born?"',
    });
    expect(parseTurn('Thought: search\nAction: getWikidataID Robert Zemeckis')).toMatchObject({ tool: 'getWikidataID', input: 'Robert Zemeckis' });
  });

  it('takes the input from the next line when the action line holds only the tool', () => {
    expect(parseTurn('Thought: run it\nAction: runQuery\nSELECT ?x WHERE { wd:Q1 wdt:P31 ?x }')).toMatchObject({
      tool: 'runQuery',
      input: 'SELECT ?x WHERE { wd:Q1 wdt:P31 ?x }',
    });
  });

  it('ignores markdown fences, bold labels and prose before the thought', () => {
    const reply = 'Sure! Let me work on this.\n```\n**Thought:** I should look up the film.\n**Action:** wikisearch\n**Action Input:** Forrest Gump\n```';
    expect(parseTurn(reply)).toEqual({
      kind: 'action',
      thought: 'Sure! Let me work on this.\nI should look up the film.',
      tool: 'wikisearch',
      input: 'Forrest Gump',
    });
  });

  it('keeps a multi-line SPARQL input and drops a fenced code block around it', () => {
    const reply = 'Thought: query it\nAction: runQuery\nAction Input:\n```sparql\nSELECT ?p WHERE {\n  wd:Q187364 wdt:P19 ?p .\n}\n```';
    expect(parseTurn(reply)).toMatchObject({ tool: 'runQuery', input: 'SELECT ?p WHERE {\n  wd:Q187364 wdt:P19 ?p .\n}' });
  });

  it('drops a fence opened on the "Action Input:" line, so the query reaches runQuery clean', () => {
    const reply = 'Thought: query it\nAction: runQuery\nAction Input: ```sparql\nSELECT ?p WHERE { wd:Q187364 wdt:P19 ?p . }\n```';
    expect(parseTurn(reply)).toMatchObject({ tool: 'runQuery', input: 'SELECT ?p WHERE { wd:Q187364 wdt:P19 ?p . }' });
    const oneLine = 'Thought: q\nAction: runQuery\nAction Input: ```SELECT ?p WHERE { wd:Q42 wdt:P19 ?p . }```';
    expect(parseTurn(oneLine)).toMatchObject({ input: 'SELECT ?p WHERE { wd:Q42 wdt:P19 ?p . }' });
  });

  it('reads a final answer, with any label case', () => {
    expect(parseTurn('Thought: Both sources say Chicago.\nfinal answer: Chicago')).toEqual({
      kind: 'final',
      thought: 'Both sources say Chicago.',
      answer: 'Chicago',
    });
  });

  it('runs the action when it comes before a final answer (the answer would rest on an imagined observation)', () => {
    const reply = 'Thought: search\nAction: wikisearch\nAction Input: Forrest Gump\nFinal Answer: Chicago';
    expect(parseTurn(reply)).toMatchObject({ kind: 'action', tool: 'wikisearch', input: 'Forrest Gump' });
  });

  it('takes the final answer when it comes before an action', () => {
    const reply = 'Thought: done\nFinal Answer: Chicago\nAction: wikisearch\nAction Input: more';
    expect(parseTurn(reply)).toEqual({ kind: 'final', thought: 'done', answer: 'Chicago' });
  });

  it('drops an observation the model imagined, and what follows it', () => {
    const reply = 'Thought: s\nAction: wikisearch\nAction Input: X\nObservation: made up\nThought: t\nFinal Answer: Y';
    expect(parseTurn(reply)).toMatchObject({ kind: 'action', input: 'X' });
  });

  it('reports a reply with no action and no answer as invalid, keeping the thought', () => {
    expect(parseTurn('I think the answer might be Chicago but I am not sure.')).toEqual({
      kind: 'invalid',
      thought: 'I think the answer might be Chicago but I am not sure.',
      reason: expect.stringContaining('neither'),
    });
    expect(parseTurn('   ')).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('empty') });
  });
});

describe('resolveTool', () => {
  it('accepts case and separator variants and common aliases, and nothing else', () => {
    expect(resolveTool('wikiSearch', TOOLS)).toBe('wikisearch');
    expect(resolveTool('get_wikidata_id', TOOLS)).toBe('getWikidataID');
    expect(resolveTool('RunQuery', TOOLS)).toBe('runQuery');
    expect(resolveTool('Search', TOOLS)).toBe('wikisearch');
    expect(resolveTool('google', TOOLS)).toBeUndefined();
  });
});
