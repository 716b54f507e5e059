import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { windowedLLM } from '../../src/engine/windowed-llm';
import { openAIProvider } from '../../src/llm/openai';
import { startStub, type Stub } from '../support/openai-stub.mjs';

/** The windowed model against the OpenAI-compatible stub with an 8k window, through the real openai SDK. */
let stub: Stub;
beforeAll(async () => {
  stub = await startStub({ contextTokens: 8192 });
});
afterAll(() => stub.close());

const provider = () => openAIProvider({ baseURL: stub.url, model: 'stub', timeoutMs: 10_000, maxResponseBytes: 1 << 20, maxRetries: 0 });
const page = `<<<PAGE\n${'A long page about rivers and cities. '.repeat(1_200)}\nPAGE>>>`;
const windowState = async () => (await (await fetch(stub.url.replace('/v1', '/__window'))).json()) as { tokens: number; refused: number };
const request = { purpose: 'read' as const, messages: [{ role: 'user' as const, content: `${page}\n\n<<<QUESTION\nWhich river?\nQUESTION>>>` }], maxTokens: 256 };

describe('a server that refuses prompts over its context window', () => {
  it('answers after one smaller retry when no window was configured', async () => {
    const trims: string[] = [];
    const llm = windowedLLM(provider(), { windowOf: () => undefined, onTrim: (note) => trims.push(note) });
    const reply = await llm.chat(request);
    expect(reply.text).toContain('42');
    expect(await windowState()).toEqual({ tokens: 8192, refused: 1 });
    expect(trims).toEqual([expect.stringMatching(/context window of 8192 tokens .*data blocks shortened.*refused the longer one/)]);
    expect(stub.requests.at(-1)!.body.messages[0].content).toContain('Which river?');
    expect(stub.requests.at(-1)!.body.messages[0].content).toContain('characters hidden');
  });

  it('is never refused when the window is configured', async () => {
    const before = (await windowState()).refused;
    const llm = windowedLLM(provider(), { windowOf: () => 8192 });
    await llm.chat(request);
    expect((await windowState()).refused).toBe(before);
  });
});
