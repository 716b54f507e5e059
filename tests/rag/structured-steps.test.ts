import { describe, expect, it } from 'vitest';
import { localEmbedder } from '../../src/embeddings/local';
import type { EventInput } from '../../src/engine/types';
import type { ChatRequest } from '../../src/llm/types';
import { scriptedLLM, type Script } from '../../src/llm/scripted';
import { ragStrategy } from '../../src/strategies/rag';
import { driveStrategy } from '../helpers/drive';
import { cragKg } from '../support/crag-kg';

/** The CRAG pipeline's structured steps under the native protocol: each asks for its JSON schema and reads the reply. */
const kg = cragKg();
const question = 'what is the share price of microsoft?';
const pages = [{ url: 'https://example.org/msft', html: '<p>Microsoft shares closed at 413.64 dollars.</p>' }];

const drive = (script: Script, options: Record<string, unknown>) => {
  const llm = scriptedLLM(script);
  const run = driveStrategy(ragStrategy, {
    request: { question, variant: 'crag', mode: 'rag', context: { pages, queryTime: '02/28/2024, 10:04:54 PT' }, options: { dynamicPolicy: 'answer', ...options } },
    llm,
    services: { embedder: () => localEmbedder() },
    env: { CRAG_API_URL: kg.url },
  });
  return { llm, run };
};
const of = (llm: { requests: ChatRequest[] }, purpose: string) => llm.requests.filter((r) => r.purpose === purpose);
const observation = (events: EventInput[], tool: string) => events.filter((e) => e.type === 'observation' && e.data.tool === tool).map((e) => (e.data as { output: string }).output);
const base: Script = { calculator: ['NONE', 'NONE', 'NONE'], parametric: ['Answer: 413 dollars\nFalse premise: no'], reasoning: ['<answer>413.64 dollars</answer>'] };

describe('rag structured steps under the native protocol', () => {
  it('the attribute predictor and the entity extractor ask for their schemas and read the JSON replies', async () => {
    const { llm, run } = drive(
      { ...base, attribute: ['{"dynamism": "static", "domain": "finance"}', 'Dynamism: dynamic\nDomain: finance', '{"dynamism": "static"}'], kg: ['{"company": ["Microsoft"], "ticker": ["MSFT"]}'] },
      { toolProtocol: 'native' },
    );
    const { events, usage } = await run;
    expect(of(llm, 'attribute').every((r) => r.responseFormat?.name === 'question_attributes')).toBe(true);
    // Two JSON votes and one plain-text vote (read by the text parser): static 2, dynamic 1; the domain by majority.
    expect(observation(events, 'attribute')[0]).toMatch(/^static \(static 2, dynamic 1 of 3 samples\), domain finance/);
    expect(of(llm, 'kg')[0].responseFormat).toMatchObject({ name: 'question_entities', schema: { type: 'object' } });
    expect(observation(events, 'kg')[0]).toMatch(/^entities \{"company":\["Microsoft"\],"ticker":\["MSFT"\]\}/);
    expect(usage.toolProtocol?.attribute?.structured).toEqual({ calls: 3, textFallbacks: 1 });
  });

  it('the KG calls come as {calls: [...]} and are checked against their endpoints as before', async () => {
    const { llm, run } = drive({ ...base, attribute: ['{"dynamism": "static", "domain": "finance"}'], kg: ['{"calls": [{"endpoint": "finance/get_price_history", "args": {"query": "MSFT"}}, {"endpoint": "admin/drop", "args": {}}]}'] }, { toolProtocol: 'native', kgMode: 'calls', attributeSamples: 1 });
    const { events } = await run;
    expect(of(llm, 'kg')[0].responseFormat?.name).toBe('knowledge_api_calls');
    const [chosen] = observation(events, 'kg');
    expect(chosen).toMatch(/^call finance\/get_price_history \{"query":"MSFT"\}/);
    expect(chosen).toMatch(/rejected \(not sent\): unknown endpoint "admin\/drop"/);
  });

  it('under text no step sends a schema, and the replies are read as before', async () => {
    const { llm, run } = drive({ ...base, attribute: ['Dynamism: static\nDomain: finance'], kg: ['{"company": ["Microsoft"]}'] }, { attributeSamples: 1 });
    const { events } = await run;
    expect(llm.requests.every((r) => r.responseFormat === undefined)).toBe(true);
    expect(observation(events, 'kg')[0]).toMatch(/^entities \{"company":\["Microsoft"\]\}/);
  });
});
