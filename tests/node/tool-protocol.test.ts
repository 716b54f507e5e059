// @module-tag slow
import { beforeEach, describe, expect, it } from 'vitest';
import { devOnStub } from '../support/dev-on-stub';
import type { StubRequest } from '../support/openai-stub.mjs';

/**
 * The native tool protocol end to end: `npm run dev` speaking to the model stub through the real `openai` SDK, the
 * agent's tools going out as functions and the stub answering with scripted `tool_calls`.
 */
const live = devOnStub();
beforeEach(() => {
  live.stub.setScript({});
  live.stub.refuse({});
  live.stub.requests.length = 0;
});

const QUESTION = 'Which city has more inhabitants, Berlin or Madrid?';
const FINAL = 'Thought: Berlin has more.\nFinal Answer: Berlin';

const answer = async (body: Record<string, unknown>) => {
  const res = await fetch(`${live.dev.url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
};
const ofPurpose = (purpose: string) => live.stub.requests.filter((r) => r.purpose === purpose);
const steps = (run: any, type: string) => run.steps.filter((s: any) => s.type === type);
const read = (city: string, id: string) => ({ name: 'read', id, arguments: { title: city, question: `What is the population of ${city}?` } });

describe('the native tool protocol through the openai SDK', () => {
  it('sends the six tools as functions and answers from scripted tool_calls', async () => {
    live.stub.setScript({ agent: [{ tool_calls: [{ name: 'wikisearch', arguments: { query: 'Berlin' } }], content: 'Search first.' }, FINAL], parametric: ['Berlin'], final: ['Berlin'] });
    const run = await answer({ question: QUESTION, options: { toolProtocol: 'native' } });
    const first = ofPurpose('agent')[0].body;
    expect(first.tools.map((t: any) => t.function.name)).toEqual(['wikisearch', 'read', 'getWikidataID', 'generateQuery', 'runQuery', 'getLabel']);
    expect(first.tools[0]).toMatchObject({ type: 'function', function: { parameters: { type: 'object', required: ['query'] } } });
    expect(steps(run, 'action')[0]).toMatchObject({ tool: 'wikisearch', input: 'Berlin' });
    expect(steps(run, 'observation')[0].output).toMatch(/Berlin/);
    expect(ofPurpose('agent')[1].body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: expect.any(String) });
    expect(run.answer).toBe('Berlin');
    expect(run.usage.toolProtocol.agent.native).toEqual({ calls: 2, toolCalls: 1, parallelTurns: 0 });
  });

  it('runs two calls of one turn together: two reads held 1 s each by the stub take about 1 s, in order in the trace', async () => {
    const held = (text: string) => [{ content: text, delayMs: 1_000 }];
    live.stub.setScript({
      agent: [{ tool_calls: [read('Berlin', 'a1B2c3D4e'), read('Madrid', 'F5g6H7i8j')], content: 'Both populations at once.' }, FINAL],
      byQuestion: {
        'population of Berlin?': { read: held('Berlin has about 3.7 million inhabitants.') },
        'population of Madrid?': { read: held('Madrid has about 3.3 million inhabitants.') },
      },
      parametric: ['Berlin'],
      final: ['Berlin'],
    });
    const run = await answer({ question: QUESTION, options: { toolProtocol: 'native' } });
    const [a, b] = ofPurpose('read') as Array<StubRequest & { repliedAt: number }>;
    const overlap = Math.min(a.repliedAt, b.repliedAt) - Math.max(a.receivedAt, b.receivedAt);
    const span = Math.max(a.repliedAt, b.repliedAt) - Math.min(a.receivedAt, b.receivedAt);
    console.log(`two reads held 1 s each: ${span} ms from the first request to the last reply; the two overlapped ${overlap} ms`);
    // Run one after the other they would not overlap at all.
    expect(overlap).toBeGreaterThan(500);
    const kinds = run.steps.map((s: any) => s.type);
    expect(kinds.slice(0, 5)).toEqual(['thought', 'action', 'action', 'observation', 'observation']);
    expect(steps(run, 'observation').map((o: any) => [o.callId, o.output.slice(0, 6)])).toEqual([
      ['a1B2c3D4e', 'Berlin'],
      ['F5g6H7i8j', 'Madrid'],
    ]);
    expect(run.usage.toolProtocol.agent.native.parallelTurns).toBe(1);
    expect(run.answer).toBe('Berlin');
  });

  it('repairs a malformed call from its observation', async () => {
    live.stub.setScript({
      agent: [{ tool_calls: [{ name: 'wikisearch', arguments: '{"query": "Berl' }] }, { tool_calls: [{ name: 'wikisearch', arguments: { query: 'Berlin' } }] }, FINAL],
      parametric: ['Berlin'],
      final: ['Berlin'],
    });
    const run = await answer({ question: QUESTION, options: { toolProtocol: 'native' } });
    const [bad, good] = steps(run, 'observation');
    expect(bad).toMatchObject({ tool: 'wikisearch', error: true, output: expect.stringMatching(/not valid JSON/) });
    expect(ofPurpose('agent')[1].body.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringMatching(/not valid JSON/) });
    expect(good).toMatchObject({ tool: 'wikisearch', error: false });
    expect(run.usage.toolProtocol.agent.repairs).toBe(1);
    expect(run.answer).toBe('Berlin');
  });

  it('a server answering 400 to tools leaves the run on text, named in the trace and the run JSON', async () => {
    live.stub.refuse({ tools: true });
    live.stub.setScript({ agent: ['Look it up.\nAction: wikisearch\nAction Input: Berlin', FINAL], parametric: ['Berlin'], final: ['Berlin'] });
    const run = await answer({ question: QUESTION, options: { toolProtocol: 'native' } });
    const agent = ofPurpose('agent');
    expect(agent[0].body.tools).toHaveLength(6);
    expect(agent.slice(1).every((r) => r.body.tools === undefined)).toBe(true);
    const [note] = steps(run, 'thought');
    expect(note.text).toMatch(/refused the tools as functions; this run goes on in the text protocol/);
    expect(note.notes.join(' ')).toMatch(/agent: back to the text protocol for the rest of the run/);
    expect(run.usage.toolProtocol.agent.fallback).toMatch(/refused function calls.*enable-auto-tool-choice/);
    expect(steps(run, 'action')[0]).toMatchObject({ tool: 'wikisearch', input: 'Berlin' });
    expect(run.status).toBe('succeeded');
  });

  it('a merge with response_format parses the JSON reply; a reply that is not JSON falls back to the text parser', async () => {
    live.stub.setScript({ agent: ['Thought: I know this.\nFinal Answer: Paris'], parametric: ['Lyon'], final: ['{"answer": "Paris"}'] });
    const json = await answer({ question: 'What is the capital of France?', options: { toolProtocol: 'native' } });
    const merge = ofPurpose('final')[0].body;
    expect(merge.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'final_answer' } });
    expect(json.answer).toBe('Paris');
    expect(json.usage.toolProtocol.final.structured).toEqual({ calls: 1, textFallbacks: 0 });

    live.stub.setScript({ agent: ['Thought: I know this.\nFinal Answer: Paris'], parametric: ['Lyon'], final: ['Answer: Paris, on the Seine'] });
    const text = await answer({ question: 'What is the capital of France?', options: { toolProtocol: 'native' } });
    expect(text.answer).toBe('Paris, on the Seine');
    expect(text.usage.toolProtocol.final.structured).toEqual({ calls: 1, textFallbacks: 1 });
  });

  it('recipe "paper" never sends tools or a reply schema', async () => {
    live.stub.setScript({ agent: ['Thought: I know this.\nFinal Answer: Paris'], parametric: ['Lyon'], final: ['Paris'] });
    await answer({ question: 'What is the capital of France?', options: { toolProtocol: 'native', recipe: 'paper' } });
    expect(live.stub.requests.length).toBeGreaterThan(1);
    expect(live.stub.requests.every((r) => r.body.tools === undefined && r.body.response_format === undefined)).toBe(true);
  });

  it('a recorded native run replays from its evidence archive with the same answer', async () => {
    const script = {
      agent: [{ tool_calls: [{ name: 'wikisearch', arguments: { query: 'Berlin' } }, read('Berlin', 'a1B2c3D4e')], content: 'Search and read.' }, FINAL],
      read: ['Berlin has about 3.7 million inhabitants.'],
      parametric: ['Berlin'],
      final: ['Berlin'],
    };
    // The stub's queues are the arrays it is given, and it shifts them: each run gets its own copy.
    live.stub.setScript(structuredClone(script));
    const first = await answer({ question: QUESTION, options: { toolProtocol: 'native' } });
    const archive = await (await fetch(`${live.dev.url}/v1/runs/${first.runId}/evidence`)).text();
    const uploaded = (await (await fetch(`${live.dev.url}/v1/archives`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: archive })).json()) as any;
    live.stub.setScript(structuredClone(script));
    const again = await answer({ question: QUESTION, options: { toolProtocol: 'native', evidence: { replay: uploaded.archiveId } } });
    expect(again.replay).toEqual({ archiveId: uploaded.archiveId, misses: 0 });
    expect(again.answer).toBe(first.answer);
    expect(steps(again, 'observation').map((o: any) => o.output)).toEqual(steps(first, 'observation').map((o: any) => o.output));
  });
});
