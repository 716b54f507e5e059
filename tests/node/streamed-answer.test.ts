// @module-tag slow
import { describe, expect, it } from 'vitest';
import { devOnStub } from '../support/dev-on-stub';
import { createParser } from 'eventsource-parser';
import OpenAI from 'openai';
import { readChat } from '../support/chat-stream';

/**
 * A model server that streams its reply in chunks, through the real `openai` SDK in `npm run dev`: a client that
 * follows the run sees the answer as it is written (delta events), before the run's `done`.
 */
const live = devOnStub({ chunkMs: 40 });

/** The stream's events in arrival order, deltas included. */
const events = async (res: Response) => {
  const seen: Array<{ event: string; id?: string; data: any }> = [];
  const parser = createParser({ onEvent: ({ event, id, data }) => event && seen.push({ event, id, data: JSON.parse(data) }) });
  parser.feed(await res.text());
  return seen;
};

describe('a streaming model server', () => {
  it('sends the answer as delta events before done, and the run JSON keeps the whole answer', async () => {
    const reply = 'The Nile is the longest river in Africa, at about 6,650 km.';
    live.stub.setScript({ parametric: [reply] });
    const res = await fetch(`${live.dev.url}/v1/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ question: 'What is the longest river in Africa?', mode: 'parametric' }),
    });
    const seen = await events(res);
    const names = seen.map((e) => e.event);
    const deltas = seen.filter((e) => e.event === 'delta');
    // 60 characters in 16-character chunks 40 ms apart: more than one frame even after coalescing.
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((d) => d.id === undefined && d.data.answer === true && d.data.purpose === 'parametric')).toBe(true);
    expect(deltas.map((d) => d.data.text).join('')).toBe(reply);
    expect(names.lastIndexOf('delta')).toBeLessThan(names.indexOf('answer'));
    expect(names.at(-1)).toBe('done');
    expect(live.stub.requests.at(-1)!.body.stream).toBe(true);

    const run = (await (await fetch(`${live.dev.url}/v1/runs/${res.headers.get('x-run-id')}`)).json()) as any;
    expect(run.answer).toBe(reply);
    expect(run.timings.firstAnswerTokenMs).toEqual(expect.any(Number));
  });

  it('reaches an OpenAI chat client as reasoning_content while it is written; content is the run\'s answer, once', async () => {
    const reply = 'The Nile is the longest river in Africa, at about 6,650 km.';
    live.stub.setScript({ parametric: [reply] });
    const client = new OpenAI({ baseURL: `${live.dev.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'mintaka:parametric', stream: true, messages: [{ role: 'user', content: 'What is the longest river in Africa?' }] })
      .withResponse();
    const { order, reasoning, content } = await readChat(stream);
    // The reply comes in 16-character chunks 40 ms apart: several reasoning frames, then the answer alone.
    expect(reasoning).toBe(`Model (parametric): ${reply}`);
    expect(order.filter((o) => o === 'reasoning').length).toBeGreaterThan(1);
    expect(order).toEqual([...order.filter((o) => o === 'reasoning'), 'content']);
    const run = (await (await fetch(`${live.dev.url}/v1/runs/${response.headers.get('x-run-id')}`)).json()) as any;
    expect(content).toBe(run.answer);
  });

  it('is not asked to stream when nobody follows the run', async () => {
    live.stub.setScript({ parametric: ['Paris'] });
    const res = await fetch(`${live.dev.url}/v1/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Capital of France?', mode: 'parametric' }),
    });
    expect(((await res.json()) as any).answer).toBe('Paris');
    expect(live.stub.requests.at(-1)!.body.stream).toBeFalsy();
  });
});
