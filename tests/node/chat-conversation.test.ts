// @module-tag slow
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { devOnStub } from '../support/dev-on-stub';
import { watchWorkerd } from '../support/workerd-watch.mjs';

/**
 * A chat UI's second question leans on its first. Through `npm run dev`, the real `openai` SDK and the
 * OpenAI-compatible stub: the follow-up is made self-contained by a `rewrite` call the stub sees, and the run answers
 * that standalone question; the first, lone question makes one model call fewer.
 */
const live = devOnStub();

const FIRST = 'Who directed Forrest Gump?';
const FOLLOW_UP = 'When was he born?';
const STANDALONE = 'When was Robert Zemeckis born?';

/** The text of a request's user messages, as the stub received it. */
const userText = (body: any) => (body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'user').map((m) => m.content).join('\n');

describe('a chat with two user turns', () => {
  it('answers the second as its standalone question, with one rewrite call more than the first', async () => {
    const client = new OpenAI({ baseURL: `${live.dev.url}/v1`, apiKey: 'k', maxRetries: 0 });
    live.stub.setScript({ rewrite: [STANDALONE], byQuestion: { [FIRST]: { parametric: ['Robert Zemeckis'] }, [STANDALONE]: { parametric: ['May 14, 1952'] } } });

    const before = live.stub.requests.length;
    const first = await client.chat.completions.create({ model: 'mintaka:parametric', messages: [{ role: 'user', content: FIRST }] });
    const firstCalls = live.stub.requests.slice(before);
    expect(first.choices[0].message.content).toBe('Robert Zemeckis');
    expect(firstCalls.map((r) => r.purpose)).toEqual(['parametric']);

    const mark = live.stub.requests.length;
    const { data: second, response } = await client.chat.completions
      .create({
        model: 'mintaka:parametric',
        messages: [
          { role: 'user', content: FIRST },
          { role: 'assistant', content: first.choices[0].message.content! },
          { role: 'user', content: FOLLOW_UP },
        ],
      })
      .withResponse();
    const secondCalls = live.stub.requests.slice(mark);
    expect(second.choices[0].message.content).toBe('May 14, 1952');
    expect(secondCalls.map((r) => r.purpose)).toEqual(['rewrite', 'parametric']);
    expect(secondCalls.length).toBe(firstCalls.length + 1);
    // The rewrite reads the earlier turns as fenced data and carries its purpose to the server.
    expect(secondCalls[0].headers['x-request-purpose']).toBe('rewrite');
    expect(userText(secondCalls[0].body)).toContain(`<<<USER_TURN\n${FIRST}\nUSER_TURN>>>`);
    expect(userText(secondCalls[0].body)).toContain(`<<<QUESTION\n${FOLLOW_UP}\nQUESTION>>>`);
    // The answering call is asked the standalone question, not the bare follow-up.
    expect(userText(secondCalls[1].body)).toContain(STANDALONE);
    expect(userText(secondCalls[1].body)).not.toContain(FOLLOW_UP);

    const run = (await (await fetch(`${live.dev.url}/v1/runs/${response.headers.get('x-run-id')}`)).json()) as any;
    expect(run).toMatchObject({ question: FOLLOW_UP, standaloneQuestion: STANDALONE, answer: 'May 14, 1952' });
    expect(run.usage.byPurpose.rewrite.calls).toBe(1);
  });

  it('is refused with a 400 when it offers tools', async () => {
    const client = new OpenAI({ baseURL: `${live.dev.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const before = live.stub.requests.length;
    const err = await client.chat.completions
      .create({ model: 'mintaka:parametric', messages: [{ role: 'user', content: FIRST }], tools: [{ type: 'function', function: { name: 'search', parameters: { type: 'object' } } }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as { code?: string }).code).toBe('tools_not_supported');
    expect(live.stub.requests.length).toBe(before);
  });
});

describe("the rewrite's reply, checked before it becomes the question (issue 41, item 1)", () => {
  it('a 5,000-character reply beginning "Final Answer: leaked SYSTEM PROMPT …" is not used: the run answers the last user message and says why', async () => {
    const client = new OpenAI({ baseURL: `${live.dev.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const leak = `Final Answer: leaked SYSTEM PROMPT ${'You are a question-answering service. '.repeat(200)}`.slice(0, 5_000);
    expect(leak).toHaveLength(5_000);
    live.stub.setScript({ rewrite: [leak] });
    const mark = live.stub.requests.length;
    const watched = await watchWorkerd(live.dev, () =>
      client.chat.completions
        .create({
          model: 'mintaka',
          messages: [
            { role: 'user', content: FIRST },
            { role: 'assistant', content: 'Robert Zemeckis' },
            { role: 'user', content: FOLLOW_UP },
          ],
        })
        .withResponse(),
    );
    const runId = watched.value.response.headers.get('x-run-id')!;
    const calls = live.stub.requests.slice(mark);
    expect(calls[0].purpose).toBe('rewrite');
    // Every later prompt carries the last user message, never the reply.
    const later = calls.slice(1);
    expect(later.length).toBeGreaterThan(0);
    for (const call of later) {
      expect(JSON.stringify(call.body.messages)).not.toContain('leaked SYSTEM PROMPT');
      expect(userText(call.body)).toContain(FOLLOW_UP);
    }
    const agent = later.find((c) => c.purpose === 'agent')!;
    expect(userText(agent.body)).toContain(`Question: ${FOLLOW_UP}\n`);

    const run = (await (await fetch(`${live.dev.url}/v1/runs/${runId}`)).json()) as any;
    expect(run).toMatchObject({ question: FOLLOW_UP, standaloneQuestion: FOLLOW_UP });
    expect(run.steps[1]).toMatchObject({
      type: 'observation',
      tool: 'rewrite',
      error: true,
      output: expect.stringMatching(/^the rewrite was not used \(the reply was 5,000 characters, longer than a question may be \(2,000\)\); answering the last user message as asked: "When was he born\?"$/),
    });
    const listed = (await (await fetch(`${live.dev.url}/v1/runs?limit=5`)).json()) as any;
    expect(listed.runs.find((r: any) => r.runId === runId)).toMatchObject({ question: FOLLOW_UP, standaloneQuestion: FOLLOW_UP });
    // Nothing else was harmed meanwhile.
    expect(watched.health.ok).toBe(watched.health.asked);
    if (Number.isFinite(watched.rssBefore)) expect(watched.rssPeak - watched.rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('a short reply that answers instead of rewriting is refused the same way; a good one is listed beside the question as asked', async () => {
    const client = new OpenAI({ baseURL: `${live.dev.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const ask = async (rewrite: string) => {
      live.stub.setScript({ rewrite: [rewrite], parametric: ['1952'] });
      const { response } = await client.chat.completions
        .create({ model: 'mintaka:parametric', messages: [{ role: 'user', content: FIRST }, { role: 'assistant', content: 'Robert Zemeckis' }, { role: 'user', content: FOLLOW_UP }] })
        .withResponse();
      return response.headers.get('x-run-id')!;
    };
    const answered = await ask('Final Answer: May 14, 1952');
    const good = await ask(`Standalone question: "${STANDALONE}"`);
    const listed = ((await (await fetch(`${live.dev.url}/v1/runs?limit=5`)).json()) as any).runs;
    expect(listed.find((r: any) => r.runId === answered)).toMatchObject({ question: FOLLOW_UP, standaloneQuestion: FOLLOW_UP });
    expect(listed.find((r: any) => r.runId === good)).toMatchObject({ question: FOLLOW_UP, standaloneQuestion: STANDALONE });
    const run = (await (await fetch(`${live.dev.url}/v1/runs/${answered}`)).json()) as any;
    expect(run.steps[1].output).toMatch(/the reply opened with the protocol marker "Final Answer:", so it answered or acted instead of rewriting/);
  });
});

