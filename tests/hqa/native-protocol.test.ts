import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/engine/types';
import type { ChatRequest } from '../../src/llm/types';
import { scriptedLLM, type Script } from '../../src/llm/scripted';
import { createAgentStrategy } from '../../src/strategies/hqa';
import { hqaTools } from '../../src/tools';
import { driveStrategy } from '../helpers/drive';
import { fixtureLibrary, ofType, snapshotServices } from './fixtures';

const agent = createAgentStrategy({ mode: 'agent', description: 'test agent', library: () => fixtureLibrary });
const QUESTION = 'Which city has more inhabitants, Berlin or Madrid?'; // demo question d02, both pages in the snapshot

const run = (script: Script, options: Record<string, unknown> = { toolProtocol: 'native' }, question = QUESTION) => {
  const llm = scriptedLLM(script);
  return { llm, result: driveStrategy(agent, { request: { question, options }, llm, services: snapshotServices(), tools: hqaTools() }) };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const kinds = (events: EventInput[]) => events.map((e) => e.type);
const agentCalls = (requests: ChatRequest[]) => requests.filter((r) => r.purpose === 'agent');
const readsOf = (cities: string[]) => ({ toolCalls: cities.map((c, i) => ({ name: 'read', arguments: { title: c, question: `What is the population of ${c}?` }, id: `rd${i}abcdef` })), text: 'I need both populations.' });
const FINAL = 'Thought: Berlin has about 3.7 million, Madrid about 3.3 million.\nFinal Answer: Berlin';

describe('the agent under the native tool protocol', () => {
  it('sends the six tools as functions and answers from tool calls, the trace still thought, actions, observations', async () => {
    const { llm, result } = run({
      agent: [{ toolCalls: [{ name: 'wikisearch', arguments: { query: 'Berlin population' } }], text: 'Thought: Look up Berlin.' }, FINAL],
      parametric: ['Berlin'],
      final: ['Berlin'],
    });
    const { events } = await result;
    const first = agentCalls(llm.requests)[0];
    expect(first.tools?.map((t) => t.name)).toEqual(['wikisearch', 'read', 'getWikidataID', 'generateQuery', 'runQuery', 'getLabel']);
    // The functions' parameters are the tools' own input schemas.
    expect(first.tools?.find((t) => t.name === 'read')?.parameters).toMatchObject({ type: 'object', required: ['title'] });
    expect(first.stop).toBeUndefined();
    expect(kinds(events).slice(0, 3)).toEqual(['thought', 'action', 'observation']);
    expect(ofType(events, 'thought')[0].text).toBe('Look up Berlin.');
    expect(ofType(events, 'action')[0]).toMatchObject({ tool: 'wikisearch', input: 'Berlin population', callId: 'call_1' });
    expect(ofType(events, 'observation')[0].output).toMatch(/Berlin/);
    // The second call carries the first as an assistant turn with its call and a tool message answering it.
    const second = agentCalls(llm.requests)[1].messages;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_1', name: 'wikisearch' }] });
    expect(second.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_1' });
    expect(String(second.at(-1)!.content)).toMatch(/^<<<OBSERVATION\n/);
    expect(ofType(events, 'answer')[0].answer).toBe('Berlin');
  });

  it('runs two calls of one turn together: two reads held 1 s each end in about 1 s, in order, as one step', async () => {
    const held: Record<string, [number, number]> = {};
    const slowRead = async (request: ChatRequest) => {
      const page = /Berlin|Madrid/.exec(JSON.stringify(request.messages))![0];
      const start = Date.now();
      await sleep(1_000);
      held[page] = [start, Date.now()];
      return `${page} has about ${page === 'Berlin' ? '3.7' : '3.3'} million inhabitants.`;
    };
    const { result } = run({ agent: [readsOf(['Berlin', 'Madrid']), FINAL], read: [slowRead, slowRead], parametric: ['Berlin'], final: ['Berlin'] });
    const { events, steps } = await result;
    const [berlin, madrid] = [held.Berlin, held.Madrid];
    const overlap = Math.min(berlin[1], madrid[1]) - Math.max(berlin[0], madrid[0]);
    console.log(`two reads held 1 s each: ${Math.max(berlin[1], madrid[1]) - Math.min(berlin[0], madrid[0])} ms from first start to last end, overlap ${overlap} ms`);
    // Each call's interval overlaps the other's by most of its second: they ran at the same time, not one after the other.
    expect(overlap).toBeGreaterThan(500);
    expect(kinds(events).slice(0, 5)).toEqual(['thought', 'action', 'action', 'observation', 'observation']);
    expect(ofType(events, 'action').map((a) => a.input)).toEqual(['Berlin # What is the population of Berlin?', 'Madrid # What is the population of Madrid?']);
    expect(ofType(events, 'observation').map((o) => o.callId)).toEqual(['rd0abcdef', 'rd1abcdef']);
    expect(ofType(events, 'observation')[1].output).toMatch(/^Madrid has about 3.3 million/);
    // think, act (both reads in one step), think, merge.
    expect(steps).toBe(4);
  });

  it('answers the model in the order it asked, whichever call ends first', async () => {
    const read = async (request: ChatRequest) => {
      const page = /Berlin|Madrid/.exec(JSON.stringify(request.messages))![0];
      await sleep(page === 'Berlin' ? 300 : 10);
      return `${page} read.`;
    };
    const { llm, result } = run({ agent: [readsOf(['Berlin', 'Madrid']), FINAL], read: [read, read], parametric: ['Berlin'], final: ['Berlin'] });
    await result;
    const replies = agentCalls(llm.requests)[1].messages.filter((m) => m.role === 'tool');
    expect(replies.map((m) => m.toolCallId)).toEqual(['rd0abcdef', 'rd1abcdef']);
    expect(String(replies[0].content)).toMatch(/Berlin read/);
  });

  it('repairs a malformed call from its observation, and counts the repair', async () => {
    const { llm, result } = run({
      agent: [
        { toolCalls: [{ name: 'wikisearch', arguments: '{"query": "Berlin' }, { name: 'lookup', arguments: '{}' }], text: '' },
        { toolCalls: [{ name: 'wikisearch', arguments: { query: 'Berlin' } }] },
        FINAL,
      ],
      parametric: ['Berlin'],
      final: ['Berlin'],
    });
    const { events, usage } = await result;
    const [bad, unknown] = ofType(events, 'observation');
    expect(bad).toMatchObject({ tool: 'wikisearch', error: true });
    expect(bad.output).toMatch(/not valid JSON/);
    expect(unknown.output).toMatch(/no function called "lookup"/);
    // The model is told in the tool message answering each bad call, and its next call runs.
    const retry = agentCalls(llm.requests)[1].messages.filter((m) => m.role === 'tool');
    expect(retry.map((m) => String(m.content))).toEqual([expect.stringMatching(/not valid JSON/), expect.stringMatching(/no function called/)]);
    expect(ofType(events, 'observation')[2]).toMatchObject({ tool: 'wikisearch', error: false });
    expect(usage.toolProtocol?.agent).toMatchObject({ repairs: 2, native: { calls: 3, toolCalls: 3 } });
    expect(ofType(events, 'answer')[0].answer).toBe('Berlin');
  });

  it('runs at most eight calls of one turn; the rest are answered unrun', async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ name: 'wikisearch', arguments: { query: `Berlin ${i}` } }));
    const { result } = run({ agent: [{ toolCalls: many }, FINAL], parametric: ['Berlin'], final: ['Berlin'] });
    const { events, usage } = await result;
    const observations = ofType(events, 'observation');
    expect(observations).toHaveLength(12);
    expect(usage.byTool.wikisearch).toBe(8);
    expect(observations.slice(8).every((o) => o.error && /at most 8 calls run in one turn/.test(o.output))).toBe(true);
  });

  it('goes back to text for the rest of the run when the server refuses functions (400), saying so', async () => {
    const { llm, result } = run({
      agent: [{ error: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', status: 400 }, 'Look it up.\nAction: wikisearch\nAction Input: Berlin', FINAL],
      parametric: ['Berlin'],
      final: ['Berlin'],
    });
    const { events, usage, notes } = await result;
    const calls = agentCalls(llm.requests);
    expect(calls[0].tools).toHaveLength(6);
    expect(calls.slice(1).every((r) => r.tools === undefined)).toBe(true);
    expect(calls[1].stop).toContain('Observation:');
    const note = ofType(events, 'thought')[0];
    expect(note.text).toMatch(/refused the tools as functions; this run goes on in the text protocol/);
    // The engine joins this note to the step's thought in the stored trace (src/engine/step-notes.ts).
    expect(notes.join(' ')).toMatch(/agent: back to the text protocol for the rest of the run/);
    expect(usage.toolProtocol?.agent?.fallback).toMatch(/refused function calls.*enable-auto-tool-choice/);
    expect(ofType(events, 'answer')[0].answer).toBe('Berlin');
  });

  it('goes back to text after three turns with a call written as text', async () => {
    const written = '<tool_call>{"name": "wikisearch", "arguments": {"query": "Berlin"}}</tool_call>';
    const { llm, result } = run({
      agent: [written, written, written, 'Look it up.\nAction: wikisearch\nAction Input: Berlin', FINAL],
      parametric: ['Berlin'],
      final: ['Berlin'],
    });
    const { events, usage } = await result;
    const calls = agentCalls(llm.requests);
    expect(calls.slice(0, 3).every((r) => r.tools?.length === 6)).toBe(true);
    expect(calls[3].tools).toBeUndefined();
    expect(ofType(events, 'observation')[0].output).toMatch(/wrote a tool call as text/);
    expect(usage.toolProtocol?.agent).toMatchObject({ repairs: 3, fallback: '3 turns with a malformed function call' });
    expect(ofType(events, 'action').at(-1)).toMatchObject({ tool: 'wikisearch', input: 'Berlin' });
  });

  it('never sends tools under the paper recipe, whatever is asked', async () => {
    const { llm, result } = run(
      { agent: ['Thought: I know.\nFinal Answer: Berlin'], parametric: ['Berlin'], final: ['Berlin'] },
      { toolProtocol: 'native', recipe: 'paper' },
    );
    await result;
    expect(llm.requests.length).toBeGreaterThan(0);
    expect(llm.requests.every((r) => r.tools === undefined && r.responseFormat === undefined)).toBe(true);
  });

  it('speaks text when asked for auto and nothing is known of the model', async () => {
    const { llm, result } = run({ agent: ['Thought: I know.\nFinal Answer: Berlin'], parametric: ['Berlin'], final: ['Berlin'] }, { toolProtocol: 'auto' });
    await result;
    expect(agentCalls(llm.requests)[0].tools).toBeUndefined();
  });
});
