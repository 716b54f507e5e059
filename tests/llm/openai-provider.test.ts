import { describe, expect, it } from 'vitest';
import { openAIProvider } from '../../src/llm/openai';
import { LLMError } from '../../src/llm/types';

interface Seen {
  url: string;
  headers: Headers;
  body: any;
  at: number;
}

/** A fake OpenAI-compatible server behind the SDK's `fetch` option: answers from a list of responses. */
const fakeServer = (responses: Array<(signal?: AbortSignal | null) => Response | Promise<Response>>) => {
  const seen: Seen[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push({ url: req.url, headers: req.headers, body: await req.json(), at: Date.now() });
    const next = responses.shift();
    if (!next) throw new Error('fake server: no response left');
    return next(init?.signal);
  }) as typeof globalThis.fetch;
  return { fetch, seen };
};

const completion = (content: string) =>
  Response.json({
    id: 'x',
    object: 'chat.completion',
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
  });

const provider = (fetch: typeof globalThis.fetch, extra: Partial<Parameters<typeof openAIProvider>[0]> = {}) =>
  openAIProvider({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 5_000, maxResponseBytes: 1_048_576, maxRetries: 3, fetch, ...extra });

describe('openai provider', () => {
  it('sends the purpose header, the stop sequences and the model, and returns text and usage', async () => {
    const server = fakeServer([() => completion('Paris')]);
    const out = await provider(server.fetch, { apiKey: 'sk-test' }).chat({
      purpose: 'parametric',
      messages: [{ role: 'user', content: 'Capital of France?' }],
      stop: ['Observation:'],
    });
    expect(out).toMatchObject({ text: 'Paris', usage: { promptTokens: 11, completionTokens: 3 }, finishReason: 'stop' });
    expect(server.seen[0].url).toBe('http://127.0.0.1:9/v1/chat/completions');
    expect(server.seen[0].headers.get('x-request-purpose')).toBe('parametric');
    expect(server.seen[0].headers.get('authorization')).toBe('Bearer sk-test');
    expect(server.seen[0].body).toMatchObject({ model: 'm', stop: ['Observation:'], messages: [{ role: 'user', content: 'Capital of France?' }] });
  });

  it('retries a 429 after the Retry-After delay, then succeeds', async () => {
    const server = fakeServer([
      () => Response.json({ error: { message: 'slow down' } }, { status: 429, headers: { 'retry-after': '1' } }),
      () => completion('ok'),
    ]);
    const out = await provider(server.fetch).chat({ purpose: 'agent', messages: [{ role: 'user', content: 'q' }] });
    expect(out.text).toBe('ok');
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1].at - server.seen[0].at).toBeGreaterThanOrEqual(900);
    expect(server.seen[1].headers.get('x-request-purpose')).toBe('agent');
  });

  it('retries 5xx and network errors, and gives up after maxRetries with the status', async () => {
    const server = fakeServer([
      () => new Response('bad gateway', { status: 502 }),
      () => {
        throw new TypeError('connection refused');
      },
      () => completion('third time'),
    ]);
    expect((await provider(server.fetch).chat({ purpose: 'final', messages: [{ role: 'user', content: 'q' }] })).text).toBe('third time');

    const always = fakeServer(Array.from({ length: 3 }, () => () => new Response('down', { status: 503 })));
    const err = await provider(always.fetch, { maxRetries: 2 })
      .chat({ purpose: 'final', messages: [{ role: 'user', content: 'q' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(LLMError);
    expect(err.status).toBe(503);
    expect(always.seen).toHaveLength(3);
  });

  it('does not retry a 400 or 401', async () => {
    for (const status of [400, 401]) {
      const server = fakeServer([() => Response.json({ error: { message: 'no' } }, { status }), () => completion('never')]);
      const err = await provider(server.fetch).chat({ purpose: 'read', messages: [{ role: 'user', content: 'q' }] }).catch((e) => e);
      expect(err).toBeInstanceOf(LLMError);
      expect(err.status).toBe(status);
      expect(server.seen).toHaveLength(1);
    }
  });

  it('retries a reply without message content (malformed output)', async () => {
    const server = fakeServer([
      () => Response.json({ id: 'x', object: 'chat.completion', model: 'm', choices: [] }),
      () => completion('fine'),
    ]);
    expect((await provider(server.fetch).chat({ purpose: 'code', messages: [{ role: 'user', content: 'q' }] })).text).toBe('fine');
  });

  it('times out a hung server', async () => {
    // A server that accepts the connection and never answers; like real fetch, the fake honours the abort signal.
    const server = fakeServer([
      (signal) => new Promise<Response>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    ]);
    const err = await provider(server.fetch, { timeoutMs: 200, maxRetries: 0 })
      .chat({ purpose: 'agent', messages: [{ role: 'user', content: 'q' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(LLMError);
    expect(err.message).toMatch(/could not be reached|timed out|timeout/i);
  });

  it('streams deltas and cuts at a stop sequence the server ignored', async () => {
    const chunk = (content: string | null, finish: string | null = null, usage?: object) =>
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
    const body = chunk('Thought: look it up\nAction: wiki') + chunk('search\nObservation: made up') + chunk(null, 'stop', { prompt_tokens: 5, completion_tokens: 9 }) + 'data: [DONE]\n\n';
    const server = fakeServer([() => new Response(body, { headers: { 'content-type': 'text/event-stream' } })]);
    const deltas: string[] = [];
    const out = await provider(server.fetch).chat({
      purpose: 'agent',
      messages: [{ role: 'user', content: 'q' }],
      stop: ['Observation:'],
    }, { onDelta: (d) => deltas.push(d) });
    expect(out.text).toBe('Thought: look it up\nAction: wikisearch\n');
    expect(out.usage).toEqual({ promptTokens: 5, completionTokens: 9 });
    expect(deltas.join('')).toContain('Action: wikisearch');
    expect(server.seen[0].body.stream).toBe(true);
  });

  describe('a reply is capped in bytes and in time, body included', () => {
    const encoder = new TextEncoder();
    /** Headers at once, then `piece` forever (every `everyMs`, or as fast as it is read); stops when the reader cancels. */
    const endless = (head: string, piece: string, everyMs = 0, contentType = 'application/json') => () => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (everyMs) await new Promise((r) => setTimeout(r, everyMs));
          controller.enqueue(encoder.encode(sent++ === 0 ? head : piece));
        },
      });
      return new Response(body, { headers: { 'content-type': contentType } });
    };
    const endlessJson = endless('{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"', 'a'.repeat(64 * 1024));
    const endlessEvents = endless('', `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content: 'token ' }, finish_reason: null }] })}\n\n`, 0, 'text/event-stream');
    const ask = (llm: ReturnType<typeof provider>, stream = false) =>
      llm.chat({ purpose: 'agent', messages: [{ role: 'user', content: 'q' }] }, stream ? { onDelta: () => {} } : {}).catch((e) => e);

    it('an endless JSON body fails with llm_response_too_large, tried twice at most', async () => {
      const server = fakeServer([endlessJson, endlessJson, endlessJson]);
      const err = await ask(provider(server.fetch, { maxResponseBytes: 256 * 1024, maxRetries: 3 }));
      expect(err).toBeInstanceOf(LLMError);
      expect(err.code).toBe('llm_response_too_large');
      expect(err.message).toMatch(/262144 bytes/);
      expect(server.seen).toHaveLength(2);
    });

    it('an endless event stream fails the same way instead of growing the text', async () => {
      const server = fakeServer([endlessEvents, endlessEvents]);
      const err = await ask(provider(server.fetch, { maxResponseBytes: 128 * 1024, maxRetries: 0 }), true);
      expect(err.code).toBe('llm_response_too_large');
      expect(server.seen).toHaveLength(1);
    });

    it('a reply sent one byte per piece is refused by the cap, streamed or not, before its deadline could end it', async () => {
      // The deadline is a minute away, so only the cap can end these replies within the test's time.
      const bytes = (head: string, unit: string, type: string) => () => {
        const text = encoder.encode(head + unit.repeat(1_000_000));
        let at = 0;
        return new Response(new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(text.subarray(at, ++at)) }), { headers: { 'content-type': type } });
      };
      const json = bytes('{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"', 'a', 'application/json');
      const events = bytes('', `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] })}\n\n`, 'text/event-stream');
      for (const [reply, stream] of [[json, false], [events, true]] as const) {
        const server = fakeServer([reply]);
        const err = await ask(provider(server.fetch, { maxResponseBytes: 128 * 1024, timeoutMs: 60_000, maxRetries: 0 }), stream);
        expect(err).toBeInstanceOf(LLMError);
        expect(err.code).toBe('llm_response_too_large');
        expect(err.message).toMatch(/came in 1025 pieces averaging 1\.0 bytes .*a trickle/);
      }
    });

    it('a body that keeps arriving slowly fails with llm_timeout, and a timeout is retried', async () => {
      const drip = endless('{"id":"x","choices":[{"message":{"content":"', 'a', 20);
      const server = fakeServer([drip, drip]);
      const err = await ask(provider(server.fetch, { timeoutMs: 300, maxRetries: 1 }));
      expect(err).toBeInstanceOf(LLMError);
      expect(err.code).toBe('llm_timeout');
      expect(err.message).toMatch(/within 300 ms/);
      expect(server.seen).toHaveLength(2);
    });

    it('a stream that stalls after its first tokens fails with llm_timeout, not with the partial text', async () => {
      const stall = () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(encoder.encode(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content: 'Thought: half' }, finish_reason: null }] })}\n\n`));
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        );
      const server = fakeServer([stall]);
      const err = await ask(provider(server.fetch, { timeoutMs: 300, maxRetries: 0 }), true);
      expect(err).toBeInstanceOf(LLMError);
      expect(err.code).toBe('llm_timeout');
    });

    it('an error page without end is read only up to the cap, and reported by its status', async () => {
      const server = fakeServer([() => new Response(endlessJson().body, { status: 500 })]);
      const err = await ask(provider(server.fetch, { maxResponseBytes: 64 * 1024, maxRetries: 0 }));
      expect(err).toBeInstanceOf(LLMError);
      expect(err).toMatchObject({ code: 'llm_error', status: 500 });
    });
  });
});
