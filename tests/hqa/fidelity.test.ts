import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/engine/types';
import { localEmbedder } from '../../src/embeddings';
import { loadLibrary, selectExamples } from '../../src/fewshot';
import type { ChatRequest } from '../../src/llm/types';
import { scriptedLLM, type Script } from '../../src/llm/scripted';
import { parametricStrategy } from '../../src/strategies/baselines/parametric';
import { createAgentStrategy, createLateFusionStrategy } from '../../src/strategies/hqa';
import { parseTurn } from '../../src/strategies/hqa/parse-step';
import { hqaTools } from '../../src/tools';
import { driveStrategy } from '../helpers/drive';
import { fixtureLibrary, ofType, snapshotServices } from './fixtures';

/**
 * The HQA paper recipe behind options.recipe, the per-source declarations of the final turn, the single-source
 * modes and LLM late fusion, all on the bundled snapshot with a scripted model.
 */
const QUESTION = 'In which city was the director of Forrest Gump born?';
/** A question that names the entity the late-fusion agents look up, so their records are about it (issue 40). */
const ZEMECKIS = 'Where was Robert Zemeckis born?';
const QUERY = 'SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }';
const library = () => fixtureLibrary;
const agent = createAgentStrategy({ mode: 'agent', description: 'test', library });
const structured = createAgentStrategy({ mode: 'structured-only', description: 'test', library, scope: 'graph' });
const unstructured = createAgentStrategy({ mode: 'unstructured-only', description: 'test', library, scope: 'text' });
const lateFusion = createLateFusionStrategy({ library });

const drive = (strategy: Parameters<typeof driveStrategy>[0], script: Script, options: Record<string, unknown> = {}, question = QUESTION) => {
  const llm = scriptedLLM(script);
  const result = driveStrategy(strategy, { request: { question, options }, llm, services: snapshotServices(), tools: hqaTools() });
  return { llm, result };
};

const text = (r: ChatRequest, i: number) => String(r.messages[i]?.content ?? '');
const all = (r: ChatRequest) => r.messages.map((m) => String(m.content)).join('\n');
const answerOf = (events: EventInput[]) => ofType(events, 'answer')[0];

describe('a fenced query in the Action Input', () => {
  it('reaches runQuery without its fence and runs', async () => {
    const { result } = drive(agent, {
      agent: [' Run it.\nAction: runQuery\nAction Input: ```sparql\n' + QUERY + '\n```', ' Chicago.\nFinal Answer: Chicago'],
      parametric: ['Chicago'],
      final: ['Chicago'],
    });
    const { events } = await result;
    const obs = ofType(events, 'observation')[0];
    expect(obs.error).toBe(false);
    expect(obs.output).toBe('?place\nQ1297 (Chicago)\n(1 row)');
    expect(ofType(events, 'action')[0].input).toBe(QUERY);
  });
});

describe('options.recipe switches the HQA prompts', () => {
  const script = (): Script => ({
    agent: [' Run it.\nAction: runQuery\nAction Input: ' + QUERY, 'Thought: done\nFinal Answer: Wikipedia_Answer: None, Wikidata_Answer: [Chicago]\nAssistant Response: Wikidata gives Chicago as his birthplace.'],
    parametric: ['Chicago'],
    final: ['Chicago'],
  });

  it('"paper": the published agent, closed-book and merge prompts; declared answers only', async () => {
    const { llm, result } = drive(agent, script(), { recipe: 'paper' });
    const { events } = await result;
    const first = llm.requests.find((r) => r.purpose === 'agent')!;
    expect(text(first, 0)).toMatch(/Wikipedia_Answer: <the answer Wikipedia gave, or None>, Wikidata_Answer:/);
    expect(text(first, 0)).toMatch(/Assistant Response:/);
    expect(text(first, 0)).toMatch(/one of \[wikisearch, read, getWikidataID, generateQuery, runQuery, getLabel\]/);
    expect(text(first, 1)).toMatch(/^Here are examples of how to use the tools:\n\nExample 1:\nQuestion: /);
    const parametric = llm.requests.find((r) => r.purpose === 'parametric')!;
    expect(parametric.messages).toHaveLength(1);
    expect(all(parametric)).toMatch(/Give the answer and nothing else\.\nQuestion: .*\nAnswer:$/);
    expect(all(parametric)).not.toMatch(/don't know/i);
    const merge = llm.requests.find((r) => r.purpose === 'final')!;
    expect(text(merge, 0)).toMatch(/only when neither Wikipedia nor Wikidata gave an answer/);
    expect(text(merge, 1)).toMatch(/Wikipedia Answer: None\nWikidata Answer: Chicago\nInternal Knowledge: Chicago\nContext:\n<<<EVIDENCE\nWikidata gives Chicago/);
    // The paper reads only what the agent declared: the query's result is not inferred into a second answer.
    expect(answerOf(events).answers).toEqual({ wikidata: 'Chicago', parametric: 'Chicago' });
  });

  it('"ours" (the default): our prompts, declarations asked for, and the trace as fallback', async () => {
    const { llm, result } = drive(agent, {
      agent: [' Run it.\nAction: runQuery\nAction Input: ' + QUERY, 'Thought: done\nFinal Answer: Chicago'],
      parametric: ['Chicago'],
      final: ['Chicago'],
    });
    const { events } = await result;
    const first = llm.requests.find((r) => r.purpose === 'agent')!;
    expect(text(first, 0)).toMatch(/Wikipedia Answer: what the Wikipedia pages you read say, or None\nWikidata Answer: /);
    expect(text(first, 0)).not.toMatch(/Wikipedia_Answer/);
    expect(text(first, 1)).toMatch(/^Worked examples of the format:/);
    const parametric = llm.requests.find((r) => r.purpose === 'parametric')!;
    expect(text(parametric, 0)).toMatch(/I don't know/);
    expect(text(llm.requests.find((r) => r.purpose === 'final')!, 1)).toMatch(/Agreement between sources/);
    // Nothing declared: the query's result is read from the trace.
    expect(answerOf(events).answers).toMatchObject({ wikidata: 'Chicago', agent: 'Chicago' });
  });

  it('the closed-book baseline follows the switch too', async () => {
    for (const recipe of ['paper', 'ours']) {
      const { llm, result } = drive(parametricStrategy, { parametric: ['Chicago'] }, { recipe });
      await result;
      expect(/don't know/i.test(all(llm.requests[0]))).toBe(recipe === 'ours');
    }
  });

  it('the paper stops at its iteration limit with no extraction call', async () => {
    const loop = Array(3).fill(' Search.\nAction: wikisearch\nAction Input: Forrest Gump');
    const { llm, result } = drive(agent, { agent: loop, parametric: ['Chicago'], final: ['Chicago'] }, { recipe: 'paper', maxIterations: 3 });
    await result;
    expect(llm.requests.filter((r) => r.purpose === 'agent')).toHaveLength(3);
  });
});

describe('the agent declares its per-source answers in its final turn', () => {
  it('parses our lines and the paper\'s one-line form', () => {
    expect(parseTurn('Thought: both agree\nFinal Answer: Chicago\nWikipedia Answer: Chicago, Illinois\nWikidata Answer: None')).toEqual({
      kind: 'final',
      thought: 'both agree',
      answer: 'Chicago',
      declared: { wikipedia: 'Chicago, Illinois', wikidata: '' },
    });
    expect(parseTurn('Final Answer: Wikipedia_Answer:Christian Lindner, Wikidata_Answer: [Christian Lindner]\n\nAssistant Response: Both say so.')).toMatchObject({
      kind: 'final',
      answer: '',
      declared: { wikipedia: 'Christian Lindner', wikidata: 'Christian Lindner' },
      response: 'Both say so.',
    });
    // Without "Final Answer:", both declarations still end the loop (as in the authors' parser).
    expect(parseTurn('I have both.\nWikipedia_Answer: 8, Wikidata_Answer: 8')).toMatchObject({ kind: 'final', declared: { wikipedia: '8', wikidata: '8' } });
  });

  it('a declaration wins over the trace, and a source declared None has no answer', async () => {
    const { result } = drive(agent, {
      agent: [
        ' Run it.\nAction: runQuery\nAction Input: ' + QUERY,
        ' The query answers it.\nFinal Answer: Chicago\nWikipedia Answer: None\nWikidata Answer: Chicago, Illinois',
      ],
      parametric: ['Chicago'],
      final: ['Chicago'],
    });
    const { events } = await result;
    expect(answerOf(events).answers).toEqual({ wikidata: 'Chicago, Illinois', agent: 'Chicago', parametric: 'Chicago' });
  });
});

describe('single-source modes (the paper\'s structured-only and unstructured-only)', () => {
  it('structured-only sees only the Wikidata tools and examples, refuses text tools, answers without a merge call', async () => {
    const { llm, result } = drive(structured, {
      agent: [
        ' Read the page.\nAction: read\nAction Input: Robert Zemeckis',
        ' Query instead.\nAction: runQuery\nAction Input: ' + QUERY,
        ' Wikidata says Chicago.\nFinal Answer: Chicago\nWikidata Answer: Chicago',
      ],
    });
    const { events } = await result;
    const first = llm.requests[0];
    expect(text(first, 0)).toMatch(/- runQuery: /);
    expect(text(first, 0)).not.toMatch(/- read: |- wikisearch: /);
    expect(text(first, 0)).not.toMatch(/Wikipedia Answer:/);
    // The examples are cut to their graph steps.
    expect(text(first, 1)).not.toMatch(/^Action: (read|wikisearch)$/m);
    expect(ofType(events, 'observation')[0]).toMatchObject({ tool: 'read', error: true, output: expect.stringMatching(/no tool called "read"/) });
    expect(llm.requests.map((r) => r.purpose)).toEqual(['agent', 'agent', 'agent']);
    expect(answerOf(events)).toMatchObject({ answer: 'Chicago', answers: { wikidata: 'Chicago', agent: 'Chicago' } });
    expect(answerOf(events).answers.parametric).toBeUndefined();
  });

  it('unstructured-only sees only the Wikipedia tools', async () => {
    const { llm, result } = drive(unstructured, {
      agent: [' Read.\nAction: read\nAction Input: Robert Zemeckis # Where was he born?', ' Chicago.\nFinal Answer: Chicago'],
      read: ['He was born in Chicago.'],
    });
    const { events } = await result;
    expect(text(llm.requests[0], 0)).toMatch(/- wikisearch: [\s\S]*- read: /);
    expect(text(llm.requests[0], 0)).not.toMatch(/- runQuery: |- getWikidataID: /);
    expect(answerOf(events)).toMatchObject({ answer: 'Chicago', answers: { wikipedia: 'He was born in Chicago.', agent: 'Chicago' } });
  });

  it('under the paper recipe a single-source mode reports the declared answer', async () => {
    const { llm, result } = drive(structured, { agent: ['Final Answer: Wikidata_Answer: [Chicago]\nAssistant Response: The query says Chicago.'] }, { recipe: 'paper' });
    const { events } = await result;
    expect(text(llm.requests[0], 0)).toMatch(/Find the answer to the question in Wikidata/);
    expect(answerOf(events).answer).toBe('Chicago');
  });
});

/**
 * Agent replies for late fusion, by which agent asks (its system prompt lists its tools): ours runs the two agents side
 * by side, so their calls interleave; each agent still gets its own turns in order.
 */
const perAgent = (turns: { text: string[]; graph: string[] }) => {
  const next = { text: 0, graph: 0 };
  const reply = (r: ChatRequest) => {
    const agent = /- runQuery: /.test(text(r, 0)) ? 'graph' : 'text';
    return turns[agent][next[agent]++];
  };
  return Array.from({ length: turns.text.length + turns.graph.length }, () => reply);
};

describe('LLM late fusion', () => {
  it('runs a Wikipedia-only agent beside a Wikidata-only agent, and answers from both without a merge call when they agree', async () => {
    const { llm, result } = drive(
      lateFusion,
      {
        agent: perAgent({
          text: [' Read.\nAction: read\nAction Input: Robert Zemeckis # Where was he born?', ' The page says Chicago.\nFinal Answer: Chicago'],
          graph: [' His id.\nAction: getWikidataID\nAction Input: Robert Zemeckis', ' Query.\nAction: runQuery\nAction Input: ' + QUERY, ' Wikidata says Chicago.\nFinal Answer: Chicago'],
        }),
        read: ['Born in Chicago, Illinois.'],
        parametric: ['Los Angeles'],
      },
      {},
      ZEMECKIS,
    );
    const { events, steps } = await result;
    const agentCalls = llm.requests.filter((r) => r.purpose === 'agent');
    const textCalls = agentCalls.filter((r) => !/- runQuery: /.test(text(r, 0)));
    const graphCalls = agentCalls.filter((r) => /- runQuery: /.test(text(r, 0)));
    expect(textCalls).toHaveLength(2);
    expect(graphCalls).toHaveLength(3);
    expect(text(graphCalls[0], 0)).not.toMatch(/- read: /);
    // Neither agent sees the other's trajectory.
    expect(graphCalls.map(all).join('\n')).not.toMatch(/Born in Chicago/);
    expect(textCalls.map(all).join('\n')).not.toMatch(/Q1297/);
    // Side by side: each model turn and tool call advance both agents at once while both have one to take (the
    // Wikidata agent's query and last turn then go alone), then the answer: six steps, not nine.
    expect(steps).toBe(6);
    expect(ofType(events, 'thought').map((t) => t.text).filter((t) => /-only agent starts/.test(t))).toHaveLength(2);
    expect(ofType(events, 'action').map((a) => a.tool)).toEqual(['read', 'getWikidataID', 'runQuery']);
    expect(llm.requests.filter((r) => r.purpose === 'final')).toHaveLength(0);
    expect(answerOf(events)).toMatchObject({
      answer: 'Chicago',
      answers: { wikipedia: 'Born in Chicago, Illinois.', wikidata: 'Chicago', parametric: 'Los Angeles' },
      // The closed-book answer does not vote: the two evidence sources agree.
      confidence: 'all_agree',
      agreementSources: ['wikipedia', 'wikidata'],
    });
  });
});

describe('diversity-only selection', () => {
  it('depends on the question (the first example is the most relevant one)', async () => {
    const lib = loadLibrary('mintaka');
    const pick = (question: string) => selectExamples({ question, library: lib, k: 3, mode: 'diversity', embedder: localEmbedder() });
    const a = await pick(lib[0].question);
    const b = await pick(lib[lib.length - 1].question);
    expect(a[0].id).toBe(lib[0].id);
    expect(b[0].id).toBe(lib[lib.length - 1].id);
    expect(a.map((p) => p.id)).not.toEqual(b.map((p) => p.id));
  });

  it('never names wikidata when the Wikidata-only agent made no call, however sure its answer', async () => {
    const { result } = drive(
      lateFusion,
      {
        agent: perAgent({
          text: [' Read.\nAction: read\nAction Input: Robert Zemeckis # Where was he born?', ' The page says Chicago.\nFinal Answer: Chicago'],
          // The graph agent answers from memory without a single tool call.
          graph: [' I know this one.\nFinal Answer: Chicago'],
        }),
        read: ['Born in Chicago, Illinois.'],
        parametric: ['Chicago'],
        final: ['Chicago'],
      },
      {},
      ZEMECKIS,
    );
    const answer = answerOf((await result).events);
    expect(answer.answers).toMatchObject({ wikipedia: 'Born in Chicago, Illinois.', wikidata: 'Chicago' });
    expect(answer).toMatchObject({ confidence: 'one_source', agreementSources: ['wikipedia'] });
    expect(answer.citations.map((c: { source: string }) => c.source)).not.toContain('wikidata');
  });
});
