import { afterEach, describe, expect, it, vi } from 'vitest';
import { localEmbedder } from '../../src/embeddings/local';
import type { EventInput, Variant } from '../../src/engine/types';
import type { ChatRequest } from '../../src/llm/types';
import { scriptedLLM, type Script } from '../../src/llm/scripted';
import { ragStrategy } from '../../src/strategies/rag';
import { planKgCalls, runPlan } from '../../src/strategies/rag/kg/rules';
import { createKnowledgeApi } from '../../src/evidence';
import { loadConfig } from '../../src/config';
import { driveStrategy } from '../helpers/drive';
import { cragKg } from '../support/crag-kg';

const text = (r: ChatRequest) => r.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
const system = (r: ChatRequest) => String(r.messages.find((m) => m.role === 'system')?.content ?? '');
const answerOf = (events: EventInput[]) => (events.find((e) => e.type === 'answer') as Extract<EventInput, { type: 'answer' }>).data;
const observation = (events: EventInput[], tool: string) =>
  events.filter((e) => e.type === 'observation' && e.data.tool === tool).map((e) => (e.data as { output: string }).output).join('\n');

const page = { url: 'https://example.org/lakes', html: '<p>Lake Baikal is the deepest lake in the world. It lies in Siberia.</p>' };
const vote = (dyn: 'static' | 'dynamic', domain = 'open') => `Dynamism: ${dyn}\nDomain: ${domain}`;
const rest: Script = { calculator: ['NONE', 'NONE', 'NONE'], parametric: ['Reasoning: I recall it.\nAnswer: 1,642 m\nFalse premise: no'], reasoning: ['<reasoning>r</reasoning><answer>1,642 m</answer><false_premise>no</false_premise>'] };

const drive = (question: string, script: Script, extra: { variant?: Variant; options?: Record<string, unknown>; env?: Record<string, string>; pages?: unknown[] } = {}) => {
  const llm = scriptedLLM(script);
  const run = driveStrategy(ragStrategy, {
    request: { question, variant: extra.variant ?? 'crag', mode: 'rag', context: { pages: extra.pages ?? [page], queryTime: '03/05/2024, 09:00:00 PT' }, options: extra.options },
    llm,
    services: { embedder: () => localEmbedder() },
    env: extra.env,
  });
  return { llm, run };
};

afterEach(() => vi.restoreAllMocks());

describe('CRAG final system: attribute predictor and dynamic questions', () => {
  it('shows five demonstrations and decides by the majority of the samples (self-consistency)', async () => {
    const { llm, run } = drive('what is the share price of tesla today?', { attribute: [vote('dynamic', 'finance'), vote('static', 'finance'), vote('dynamic', 'finance')] });
    const { events, steps } = await run;
    const samples = llm.requests.filter((r) => r.purpose === 'attribute');
    expect(samples).toHaveLength(3);
    expect(samples.every((r) => r.temperature! > 0)).toBe(true);
    expect(system(samples[0]).match(/^Question: /gm)).toHaveLength(5);
    expect(observation(events, 'attribute')).toMatch(/^dynamic \(static 1, dynamic 2 of 3 samples\), domain finance/);
    // The crag variant answers "I don't know" to a dynamic question by default, before any retrieval.
    expect(steps).toBe(1);
    expect(answerOf(events).answer).toBe("I don't know");
  });

  it('a minority of dynamic votes does not make the question dynamic', async () => {
    const { run } = drive('how deep is lake baikal?', { attribute: [vote('static'), vote('dynamic'), vote('static')], ...rest });
    const { events } = await run;
    expect(observation(events, 'attribute')).toMatch(/^static \(static 2, dynamic 1/);
    expect(answerOf(events).answer).toBe('1,642 m');
  });

  it('answers dynamic questions on other variants, or on crag with dynamicPolicy "answer"', async () => {
    const dynamic = [vote('dynamic'), vote('dynamic'), vote('static')];
    const other = await drive('how deep is lake baikal this year?', { attribute: dynamic, ...rest }, { variant: 'mintaka' }).run;
    expect(answerOf(other.events).answer).toBe('1,642 m');
    const optedOut = await drive('how deep is lake baikal this year?', { attribute: dynamic, ...rest }, { options: { dynamicPolicy: 'answer' } }).run;
    expect(answerOf(optedOut.events).answer).toBe('1,642 m');
  });

  it('under recipe "paper": five samples and "I don\'t know" for dynamic questions on every variant', async () => {
    const { llm, run } = drive(
      'how deep is lake baikal this year?',
      { attribute: [vote('dynamic'), vote('static'), vote('dynamic'), vote('static'), vote('dynamic')] },
      { variant: 'mintaka', options: { recipe: 'paper' } },
    );
    const { events } = await run;
    expect(llm.requests.filter((r) => r.purpose === 'attribute')).toHaveLength(5);
    expect(answerOf(events).answer).toBe("I don't know");
  });
});

describe('CRAG final system: references', () => {
  it('gives all tables together one budget of 4,000 characters', async () => {
    const table = (n: number) =>
      `<table><tr><th>Lake ${n}</th><th>Depth</th></tr>${Array.from({ length: 60 }, (_, i) => `<tr><td>Lake ${n}-${i} in the region of Baikal</td><td>${100 + i} m</td></tr>`).join('')}</table>`;
    const big = { url: 'https://example.org/tables', html: `<p>Lake Baikal depth tables.</p>${table(1)}${table(2)}${table(3)}` };
    let tableChars = 0;
    const { run } = drive('how deep is lake baikal?', {
      ...rest,
      attribute: [vote('static'), vote('static'), vote('static')],
      reasoning: [(r) => {
        const refs = [...text(r).matchAll(/<ref id="\d+" kind="table"[^>]*>\n([\s\S]*?)\n<\/ref>/g)].map((m) => m[1]);
        expect(refs.length).toBeGreaterThanOrEqual(1);
        tableChars = refs.reduce((n, t) => n + t.length, 0);
        return '<answer>1,642 m</answer>';
      }],
    }, { pages: [big] });
    const { events } = await run;
    expect(tableChars).toBeGreaterThan(3_000);
    expect(tableChars).toBeLessThanOrEqual(4_000);
    expect(observation(events, 'retrieve')).toMatch(/of 4000 table characters/);
  });

  it('runs the knowledge extractor with a chain of thought and keeps its false-premise flag', async () => {
    const { llm, run } = drive('when did lake baikal win the world cup?', {
      attribute: [vote('static'), vote('static'), vote('static')],
      calculator: ['NONE', 'NONE', 'NONE'],
      parametric: ['Reasoning: Lake Baikal is a lake; lakes do not play football, so it never won a World Cup.\nAnswer: never\nFalse premise: yes'],
      reasoning: [(r) => (text(r).includes('(it suspects a false premise)') ? '<answer>never</answer><false_premise>yes</false_premise>' : '<answer>?</answer>')],
    });
    const { events } = await run;
    const extractor = llm.requests.find((r) => r.purpose === 'parametric')!;
    expect(system(extractor)).toMatch(/First think it through/);
    expect(text(extractor)).toContain('<<<QUESTION\nwhen did lake baikal win the world cup?\nQUESTION>>>');
    expect(observation(events, 'parametric')).toMatch(/lakes do not play football[\s\S]*Answer: never \(false premise suspected\)/);
    expect(answerOf(events).answer).toBe('invalid question');
  });

  it('walks the reasoning through guiding questions: the paper\'s prompt under recipe "paper", ours otherwise', async () => {
    const ours = drive('how deep is lake baikal?', { ...rest, attribute: [vote('static'), vote('static'), vote('static')] });
    await ours.run;
    const oursPrompt = system(ours.llm.requests.find((r) => r.purpose === 'reasoning')!);
    expect(oursPrompt).toMatch(/go through these questions/);
    expect(oursPrompt).toMatch(/prefer the most recent information/);
    const paper = drive('how deep is lake baikal?', { ...rest, attribute: Array(5).fill(vote('static')) }, { options: { recipe: 'paper' } });
    await paper.run;
    const paperPrompt = system(paper.llm.requests.find((r) => r.purpose === 'reasoning')!);
    expect(paperPrompt).toMatch(/Is the question valid, or does it rest on a false premise\?/);
    expect(paperPrompt).not.toMatch(/prefer the most recent information/);
  });
});

/** The CRAG mock-KG stand-in (served by Node on 127.0.0.1): the calls it saw, as endpoint and parsed body. */
const kgStandIn = cragKg();
const seenBy = async (pattern: RegExp) =>
  (await kgStandIn.requests('')).filter((r) => pattern.test(r.body)).map((r) => ({ endpoint: r.path, body: JSON.parse(r.body) }));
/**
 * What the stand-in sees from here on, of requests whose body matches (earlier tests of this file may have sent some;
 * other files use other names).
 */
const watch = async (pattern: RegExp) => {
  const before = (await seenBy(pattern)).length;
  return async () => (await seenBy(pattern)).slice(before);
};
const kgApi = () => createKnowledgeApi(loadConfig({ CRAG_API_URL: kgStandIn.url }), {});

describe('CRAG final system: KG by entity extraction and rule-based calls', () => {
  const env = { CRAG_API_URL: kgStandIn.url };

  it('plans endpoint calls from entities by rules, without the network', () => {
    expect(planKgCalls('finance', { ticker: ['msft'] }, 'What is the EPS of Microsoft?')).toEqual([{ endpoint: 'finance/get_eps', args: { query: 'MSFT' } }]);
    expect(planKgCalls('movie', { person: ['Greta Gerwig'], year: '2019' }, 'which films did greta gerwig direct?')).toEqual([{ endpoint: 'movie/get_person_info', args: { query: 'Greta Gerwig' } }]);
    expect(planKgCalls('sports', { team: ['Los Angeles Lakers'], date: '2024-03-04' }, 'did the lakers win yesterday?')).toEqual([
      { endpoint: 'sports/nba/get_games_on_date', args: { date: '2024-03-04', team_name: 'Los Angeles Lakers' } },
    ]);
    expect(planKgCalls('music', {}, 'who sang it?')).toEqual([]);
  });

  it('finance: the model names the company; rules resolve its ticker, then ask for the market capitalization', async () => {
    const seen = await watch(/Apple Inc\.|AAPL/);
    const { llm, run } = drive('what is the market cap of apple?', {
      attribute: [vote('static', 'finance'), vote('static', 'finance'), vote('static', 'finance')],
      calculator: ['NONE', 'NONE', 'NONE'],
      parametric: ['Reasoning: about three trillion.\nAnswer: about $3 trillion\nFalse premise: no'],
      kg: ['{"company": ["Apple Inc."]}'],
      reasoning: [(r) => (text(r).includes('3010000000000') ? '<answer>$3.01 trillion</answer>' : '<answer>?</answer>')],
    }, { env });
    const { events } = await run;
    expect(await seen()).toEqual([
      { endpoint: 'finance/get_ticker_by_name', body: { query: 'Apple Inc.' } },
      { endpoint: 'finance/get_market_capitalization', body: { query: 'AAPL' } },
    ]);
    const kg = llm.requests.find((r) => r.purpose === 'kg')!;
    expect(system(kg)).toMatch(/pull out the names/);
    expect(text(kg)).toContain('Domain: finance');
    expect(answerOf(events).answer).toBe('$3.01 trillion');
    expect(answerOf(events).answers.kg).toContain('finance/get_market_capitalization');
  });

  it('open domain: search the entity, then read the first match', async () => {
    const seen = await watch(/Baikal/);
    const { run } = drive('how deep is lake baikal?', {
      attribute: [vote('static'), vote('static'), vote('static')],
      calculator: ['NONE', 'NONE', 'NONE'],
      parametric: ['Answer: 1,642 m\nFalse premise: no'],
      kg: ['```json\n{"entity": ["Baikal"]}\n```'],
      reasoning: [(r) => (text(r).includes('"max_depth":"1,642 m"') ? '<answer>1,642 m</answer>' : '<answer>?</answer>')],
    }, { env });
    const { events } = await run;
    const calls = await seen();
    expect(calls.map((s) => s.endpoint)).toEqual(['open/search_entity_by_name', 'open/get_entity']);
    expect(calls[1].body).toEqual({ query: 'Lake Baikal' });
    expect(answerOf(events).answer).toBe('1,642 m');
    // The page says nothing of the depth; the KG response does, and its citation quotes it.
    const found = answerOf(events);
    expect(found).toMatchObject({ confidence: 'one_source', agreementSources: ['kg'] });
    expect(found.citations.filter((c) => c.verified)).toEqual([expect.objectContaining({ source: 'kg', kind: 'kg', quote: expect.stringContaining('1,642 m') })]);

    // An answer neither the page nor the KG response holds: nothing verified, confidence none.
    const wrong = drive('how deep is lake baikal?', {
      attribute: [vote('static'), vote('static'), vote('static')],
      calculator: ['NONE', 'NONE', 'NONE'],
      parametric: ['Answer: 1,642 m\nFalse premise: no'],
      kg: ['```json\n{"entity": ["Baikal"]}\n```'],
      reasoning: ['<answer>2,100 m</answer>'],
    }, { env });
    const unbacked = answerOf((await wrong.run).events);
    expect(unbacked).toMatchObject({ answer: '2,100 m', confidence: 'none', agreementSources: [] });
    expect(unbacked.citations.length).toBeGreaterThan(0);
    expect(unbacked.citations.every((c) => !c.verified && !c.quote)).toBe(true);
  });

  it('keeps a plan within its request cap, refuses invalid arguments unsent, and sends nothing for a cancelled run', async () => {
    const seen = await watch(/Zyx Artist/);
    const plan = planKgCalls('music', { artist: ['Zyx Artist A', 'Zyx Artist B', 'Zyx Artist C'] }, 'where was the artist born and when did they die?');
    const results = await runPlan(kgApi(), plan, { maxRequests: 2 });
    expect(await seen()).toHaveLength(2);
    // Artists the KG does not know: the API answers {"result": null}, which is no error.
    expect(results.map((r) => [r.error, r.result])).toEqual([[undefined, 'null'], [undefined, 'null']]);
    const bad = await runPlan(kgApi(), [{ endpoint: 'music/get_billboard_rank_date', args: { rank: 500, date: 'Zyx Artist' } }]);
    expect(bad[0].error).toMatch(/^not sent: .*rank/);
    await runPlan(kgApi(), [{ resolve: 'entity', name: 'Zyx Artist D' }], { signal: AbortSignal.abort() });
    expect(await seen()).toHaveLength(2);
  });

  it('sends nothing when the extractor finds no entity', async () => {
    const seen = await watch(/Baikal/i);
    const { run } = drive('how deep is lake baikal?', { ...rest, attribute: [vote('static'), vote('static'), vote('static')], kg: ['no entities here'] }, { env });
    const { events } = await run;
    expect(await seen()).toEqual([]);
    expect(observation(events, 'kg')).toMatch(/no rule matches/);
  });
});
