import { exports } from 'cloudflare:workers';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { installModel, installScript } from '../../src/llm/scripted';
import { workersAIProvider } from '../../src/llm/workers-ai';
import { sourcesText } from '../../src/api/chat-sources';
import { liveDraft } from '../../src/api/live-draft';
import { breaksOnce } from '../engine/helpers';
import { readChat } from '../support/chat-stream';
import { CHICAGO_QUESTION, chicagoAgentScript } from '../hqa/fixtures';

const client = () =>
  new OpenAI({
    baseURL: 'http://localhost/v1',
    apiKey: 'k',
    maxRetries: 0,
    fetch: (url: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(url, init),
  });

type Delta = { content?: string | null; reasoning_content?: string; role?: string };

describe('POST /v1/chat/completions with the official openai client', () => {
  it('streams the answer as content deltas, ends with usage, for model "mintaka:parametric"', async () => {
    const llm = installScript({ rewrite: ['What is the capital of France?'], parametric: ['Paris'] });
    const stream = await client().chat.completions.create({
      model: 'mintaka:parametric',
      stream: true,
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'What is the capital of Italy?' },
        { role: 'assistant', content: 'Rome.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
    });
    let content = '';
    let last: any;
    for await (const chunk of stream) {
      content += (chunk.choices[0]?.delta as Delta | undefined)?.content ?? '';
      last = chunk;
    }
    expect(content).toBe('Paris');
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.usage.total_tokens).toBeGreaterThan(0);
    // The earlier turns reach the rewrite only (fenced as data); the answering call sees the standalone question.
    expect(llm.requests.map((r) => r.purpose)).toEqual(['rewrite', 'parametric']);
    expect(String(llm.requests[0].messages[1].content)).toContain('<<<USER_TURN\nWhat is the capital of Italy?\nUSER_TURN>>>');
    expect(String(llm.requests[0].messages[1].content)).not.toContain('You are helpful.');
    expect(JSON.stringify(llm.requests[1].messages)).toContain('capital of France');
    expect(JSON.stringify(llm.requests[1].messages)).not.toContain('capital of Italy');
  });

  it('streams reasoning steps as reasoning_content before the answer', async () => {
    installScript({ final: ['three ticks'] });
    const stream = await client().chat.completions.create({ model: 'crag:test-tool-loop', stream: true, messages: [{ role: 'user', content: 'tick please' }] });
    const { order, reasoning, content } = await readChat(stream);
    expect(content).toBe('three ticks');
    expect(reasoning).toContain('I need tick 1.');
    expect(reasoning).toContain('Action: tick(');
    expect(reasoning).toContain('Observation: tick 3 done');
    expect(order.indexOf('content')).toBe(order.length - 1);
  });

  it("streams the model's text as it is written as reasoning_content, and the run's answer alone as content", async () => {
    installScript({ final: [{ pieces: ['The answer ', 'is ', '42.'], gapMs: 60 }] });
    const { data: stream, response } = await client()
      .chat.completions.create({ model: 'crag:test-tool-loop', stream: true, messages: [{ role: 'user', content: 'six times seven?' }], options: { calls: 1, delayMs: 50 } } as never)
      .withResponse();
    const { order, pieces, reasoning, content } = await readChat(stream as unknown as AsyncIterable<any>);
    // Three pieces 60 ms apart: the model's text comes in more than one reasoning frame, all before the answer.
    expect(reasoning).toContain('Model (final): The answer is 42.');
    expect(pieces.filter((p) => /The answer|is |42/.test(p)).length).toBeGreaterThan(1);
    expect(order.filter((o) => o === 'content')).toEqual(['content']);
    expect(order.at(-1)).toBe('content');
    const run = (await (await exports.default.fetch(`http://localhost/v1/runs/${response.headers.get('x-run-id')}`)).json()) as any;
    expect(content).toBe(run.answer);
  });

  it('marks a retried model call in reasoning_content; content is only the answer of the attempt that counted', async () => {
    // A Workers AI binding whose first stream breaks after "Lyon and ": the provider retries, the second says "Paris".
    const ai = breaksOnce('Lyon and ', 'Paris');
    installModel(workersAIProvider(ai, { budget: { maxBytes: 64 * 1024, timeoutMs: 5_000 }, maxRetries: 1 }));
    const stream = await client().chat.completions.create({ model: 'mintaka:parametric', stream: true, messages: [{ role: 'user', content: 'Capital of France?' }] });
    const { reasoning, content } = await readChat(stream);
    expect(content).toBe('Paris');
    expect(reasoning).toBe('Model (parametric): Lyon and \n(the parametric call was retried: its text above does not count)\nModel (parametric): Paris');
  });

  it('answers without streaming with a chat.completion and the run id', async () => {
    installScript({ parametric: ['Oslo'] });
    const { data, response } = await client()
      .chat.completions.create({ model: 'compmix:parametric', messages: [{ role: 'user', content: [{ type: 'text', text: 'Capital of Norway?' }] }] })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0].message.content).toBe('Oslo');
    expect(data.usage?.total_tokens).toBeGreaterThan(0);
    const runId = response.headers.get('x-run-id');
    const run = await (await exports.default.fetch(`http://localhost/v1/runs/${runId}`)).json<any>();
    expect(run).toMatchObject({ variant: 'compmix', mode: 'parametric', answer: 'Oslo', question: 'Capital of Norway?' });
  });

  /** The agent finds the director's birthplace in Wikidata's snapshot: a verified citation quoting the query row. */
  const chicagoScript = () => installScript(chicagoAgentScript());
  const CHICAGO = CHICAGO_QUESTION;

  it('carries the citations as the run extension field, and with cite_sources writes them into the message', async () => {
    chicagoScript();
    const params = { model: 'mintaka:agent', messages: [{ role: 'user' as const, content: CHICAGO }], options: { fewshot: 'zero-shot' }, cite_sources: true };
    const { data, response } = await client().chat.completions.create(params).withResponse();
    const run = (await (await exports.default.fetch(`http://localhost/v1/runs/${response.headers.get('x-run-id')}`)).json()) as any;
    const ext = (data as unknown as { run: { confidence: string; agreementSources: string[]; citations: unknown[] } }).run;
    // The extension field is the run's own verdict, as /v1/runs/{id} gives it.
    expect(ext).toMatchObject({ confidence: 'one_source', agreementSources: ['wikidata'], citations: run.citations });
    expect(run.citations).toContainEqual(expect.objectContaining({ source: 'wikidata', verified: true, quote: 'place: Q1297 (Chicago)', support: 'supports' }));
    // A chat UI shows only the text: the answer, then what it rests on.
    const text = data.choices[0].message.content!;
    expect(text.startsWith('Chicago\n\nSources (confidence: one_source):\n[1] Wikidata: “place: Q1297 (Chicago)” https://www.wikidata.org/wiki/Q1297')).toBe(true);
  });

  it('streams the citations on the answer chunk; the text stays the bare answer unless cite_sources asks', async () => {
    chicagoScript();
    const stream = await client().chat.completions.create({ model: 'mintaka:agent', stream: true, messages: [{ role: 'user', content: CHICAGO }], options: { fewshot: 'zero-shot' } } as never);
    let content = '';
    let reasoning = '';
    const runs: any[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<any>) {
      content += chunk.choices[0]?.delta?.content ?? '';
      reasoning += chunk.choices[0]?.delta?.reasoning_content ?? '';
      if (chunk.run) runs.push(chunk.run);
    }
    expect(content).toBe('Chicago');
    // The agent's turns stream as they are written; a thought already shown that way is not repeated as a step line.
    expect(reasoning).toContain('Model (agent):  I need the director of Forrest Gump.\nAction: wikisearch');
    expect(reasoning.split('I need the director of Forrest Gump.')).toHaveLength(2);
    expect(reasoning).toContain('Action: wikisearch(');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ confidence: 'one_source', agreementSources: ['wikidata'] });
    expect(runs[0].citations.filter((c: { verified: boolean }) => c.verified).map((c: { quote: string }) => c.quote)).toContain('place: Q1297 (Chicago)');

    // The model's own knowledge cites nothing: asked for sources, the text says plainly that nothing verified it.
    installScript({ parametric: ['Paris'] });
    const closed = await client().chat.completions.create({ model: 'mintaka:parametric', stream: true, cite_sources: true, messages: [{ role: 'user', content: 'What is the capital of France?' }] } as never);
    let said = '';
    for await (const chunk of closed as unknown as AsyncIterable<any>) said += chunk.choices[0]?.delta?.content ?? '';
    expect(said).toBe('Paris\n\nSources: not verified — no evidence this run read contains this answer (confidence: none).');
  });

  it('cite_sources lists only the sources that back the answer given, at most five, each on one line', () => {
    const chicago = { source: 'wikidata', key: 'evidence sparql […]', kind: 'wikidata', url: 'https://www.wikidata.org/wiki/Q1297', quote: 'place: Q1297 (Chicago)', verified: true };
    // Wikidata verified "Chicago", but the run answered something else: nothing backs what the user reads.
    expect(sourcesText({ confidence: 'none', agreementSources: [], citations: [chicago] })).toBe(
      '\n\nSources: not verified — no evidence this run read contains this answer (confidence: none).',
    );
    const many = Array.from({ length: 7 }, (_, i) => ({ ...chicago, key: `k${i}`, quote: `row ${i}\nwith a break` }));
    const text = sourcesText({ confidence: 'one_source', agreementSources: ['wikidata'], citations: many });
    expect(text.split('\n').filter((l) => l.startsWith('['))).toHaveLength(5);
    expect(text).toContain('[1] Wikidata: “row 0 with a break” https://www.wikidata.org/wiki/Q1297');
    expect(text).toContain("(2 more in the run's citations)");
    // Issue 40: a source whose record only mentions the answer is shown as such, and is no support.
    const mention = { ...chicago, key: 'evidence search […]', kind: 'search', url: 'https://en.wikipedia.org/wiki/Michael_Jordan', quote: 'Michael Jordan — …returned to the Bulls in March 1995…', support: 'mentions' as const };
    expect(sourcesText({ confidence: 'none', agreementSources: [], citations: [mention] })).toBe(
      '\n\nSources: not supported — the evidence this run read mentions this answer but does not say it of what was asked (confidence: none):\n' +
        '[1] Wikidata: “Michael Jordan — …returned to the Bulls in March 1995…” https://en.wikipedia.org/wiki/Michael_Jordan (mentions the answer only)',
    );
    expect(sourcesText({ confidence: 'one_source', agreementSources: ['wikidata'], citations: [{ ...chicago, support: 'supports' as const }, mention] })).toBe(
      '\n\nSources (confidence: one_source):\n[1] Wikidata: “place: Q1297 (Chicago)” https://www.wikidata.org/wiki/Q1297',
    );
  });

  it('raises an API error for an unknown model, a missing user message and a failed run', async () => {
    installScript({ parametric: [{ error: 'the model server answered HTTP 500', status: 500 }] });
    await expect(client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 404 });
    await expect(client().chat.completions.create({ model: 'mintaka', messages: [{ role: 'system', content: 'hi' }] })).rejects.toMatchObject({ status: 400 });
    await expect(client().chat.completions.create({ model: 'mintaka:parametric', messages: [{ role: 'user', content: 'Who wrote Dune?' }] })).rejects.toMatchObject({ status: 502 });
  });

  it('a run that fails mid-stream surfaces as an error the client raises', async () => {
    installScript({ parametric: [{ error: 'the model server answered HTTP 503', status: 503 }] });
    const stream = await client().chat.completions.create({ model: 'mintaka:parametric', stream: true, messages: [{ role: 'user', content: 'Who wrote Dune?' }] });
    const consume = async () => {
      for await (const _ of stream) void _;
    };
    await expect(consume()).rejects.toThrow(/no answer/);
  });
});

describe("the model's draft in a chat's reasoning_content", () => {
  it('labels each call where it resumes, so interleaved calls stay readable, and puts each step on its own line', () => {
    const draft = liveDraft();
    const shown = [
      draft.delta({ call: 1, purpose: 'agent', text: 'Thought: I need the ' }),
      draft.delta({ call: 2, purpose: 'parametric', answer: true, text: 'Chicago' }),
      draft.delta({ call: 1, purpose: 'agent', text: 'director.' }),
      draft.step('action', 'Action: wikisearch(Forrest Gump)\n', { tool: 'wikisearch', input: 'Forrest Gump' }),
    ].join('');
    expect(shown).toBe('Model (agent): Thought: I need the \nModel (parametric): Chicago\nModel (agent): director.\nAction: wikisearch(Forrest Gump)\n');
  });

  it('leaves out a thought the streamed text already showed, and keeps one it did not', () => {
    const draft = liveDraft();
    draft.delta({ call: 1, purpose: 'agent', text: ' I need his id.\nAction: getWikidataID' });
    expect(draft.step('thought', 'I need his id.\n', { text: 'I need his id.' })).toBe('');
    expect(draft.step('thought', 'Composed without a model call.\n', { text: 'Composed without a model call.' })).toBe('\nComposed without a model call.\n');
  });

  it('says so when the stream was reopened in the middle of a call, and not otherwise', () => {
    const draft = liveDraft();
    expect(draft.reopened()).toBe('');
    draft.delta({ call: 3, purpose: 'final', answer: true, text: 'The answer' });
    expect(draft.reopened()).toBe("\n(stream reopened: some of the model's text in between may be missing)\n");
    expect(draft.delta({ call: 3, purpose: 'final', answer: true, text: ' is 42.' })).toBe('Model (final):  is 42.');
  });
});

describe('GET /v1/models', () => {
  it('lists one model per variant and variant:mode combinations', async () => {
    const models = await client().models.list();
    const ids = models.data.map((m) => m.id);
    for (const v of ['mintaka', 'qald9plus', 'compmix', 'hybridqa', 'mmqa', 'crag']) expect(ids).toContain(v);
    expect(ids).toContain('mintaka:parametric');
    expect((await client().models.retrieve('hybridqa:program')).id).toBe('hybridqa:program');
  });
});

describe('one verdict for a run cut short by a limit (issue 41, item 6)', () => {
  type Limited = { content: string; finish: string | null; run: any; status: number };
  /** The same request answered whole and streamed, as a client reads each: status, content, finish_reason, `run`. */
  const bothForms = async (body: Record<string, unknown>): Promise<[Limited, Limited]> => {
    const { data, response } = await client().chat.completions.create({ ...body, stream: false } as any).withResponse();
    const whole = { content: data.choices[0].message.content ?? '', finish: data.choices[0].finish_reason, run: (data as any).run, status: response.status };
    const { data: stream, response: streamed } = await client().chat.completions.create({ ...body, stream: true } as any).withResponse();
    let content = '';
    let last: any;
    for await (const chunk of stream as unknown as AsyncIterable<any>) {
      content += chunk.choices[0]?.delta?.content ?? '';
      last = chunk;
    }
    return [whole, { content, finish: last.choices[0].finish_reason, run: last.run, status: streamed.status }];
  };

  it('with a partial answer: 200, finish_reason "length", the partial answer and the limit in run.error, whole or streamed', async () => {
    installScript({ final: ['never asked'] });
    const forms = await bothForms({ model: 'crag:test-tool-loop', messages: [{ role: 'user', content: 'tick until the limit' }], options: { calls: 5, limits: { maxSteps: 2 } } });
    for (const form of forms) {
      expect(form).toMatchObject({ status: 200, finish: 'length', content: 'partial after 2 ticks' });
      expect(form.run).toMatchObject({ status: 'limited', error: { code: 'limit_steps', message: expect.stringMatching(/step/) } });
    }
    expect(forms[0].run.error).toEqual(forms[1].run.error);
  });

  it('without one: the same 200 and "length" with empty content (was 502 run_failed as JSON, 200 when streamed)', async () => {
    const slow = () => new Promise<string>((r) => setTimeout(() => r('too late'), 3_000));
    installScript({ parametric: [slow, slow] });
    const forms = await bothForms({ model: 'mintaka:parametric', messages: [{ role: 'user', content: 'What is slow?' }], options: { limits: { maxWallMs: 300 } } });
    for (const form of forms) {
      expect(form).toMatchObject({ status: 200, finish: 'length', content: '' });
      expect(form.run).toMatchObject({ status: 'limited', error: { code: 'limit_wallTime', message: expect.stringContaining('wall-time limit of 300 ms') } });
    }
  });

  it('a run that fails without an answer is an error in both forms, with the same code and message', async () => {
    const down = () => Promise.reject(new Error('the model is down'));
    installScript({ parametric: [down, down] });
    const body = { model: 'mintaka:parametric', messages: [{ role: 'user' as const, content: 'What fails?' }] };
    const whole = await client().chat.completions.create(body).catch((e: unknown) => e as any);
    expect(whole).toMatchObject({ status: 502, error: { code: 'run_failed', message: expect.stringMatching(/ended with status "failed" and no answer: .*the model is down/) } });
    const streamed = await (async () => {
      for await (const _ of await client().chat.completions.create({ ...body, stream: true })) void _;
    })().catch((e: unknown) => e as any);
    expect(streamed).toBeInstanceOf(OpenAI.APIError);
    expect(streamed.error.code).toBe('run_failed');
    expect(streamed.error.message.replace(/run \S+/, 'run X')).toBe(whole.error.message.replace(/run \S+/, 'run X'));
  });
});

describe('no machine paths in an error a client receives (issue 41, item 7)', () => {
  it("a model call that fails with workerd's \"Network connection lost.\" and its stack: the run, the chat error and the stream say the message only", async () => {
    const lost = () => {
      const err = new Error('Network connection lost.\n    at async Object.fetch (file:///work/main/node_modules/miniflare/dist/src/workers/core/entry.worker.js:5495:22)');
      return Promise.reject(err);
    };
    installScript({ parametric: [lost, lost] });
    const body = { model: 'mintaka:parametric', messages: [{ role: 'user' as const, content: 'What breaks?' }] };
    const whole = await client().chat.completions.create(body).catch((e: unknown) => e as any);
    const streamed = await (async () => {
      for await (const _ of await client().chat.completions.create({ ...body, stream: true })) void _;
    })().catch((e: unknown) => e as any);
    const run = await (await exports.default.fetch(`http://localhost/v1/runs/${whole.headers.get('x-run-id')}`)).json<any>();
    for (const message of [whole.error.message, streamed.error.message, run.error.message]) {
      expect(message).toContain('Network connection lost.');
      expect(message).not.toMatch(/file:|\/work\/|entry\.worker\.js|\n\s+at /);
    }
  });
});
