import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { windowedLLM } from '../../src/engine/windowed-llm';
import { scriptedLLM } from '../../src/llm/scripted';
import { LLMError, type ChatRequest, type LLM } from '../../src/llm/types';
import { createAgentStrategy } from '../../src/strategies/hqa';
import type { Tool } from '../../src/tools/types';
import { driveStrategy } from '../helpers/drive';
import { parseProcess } from '../../src/fewshot';
import { ofType } from '../hqa/fixtures';

/** Worked examples as long as real ones that quote whole pages in their observations. */
const longProcess = (n: number) =>
  parseProcess(
    `Question: Example question ${n}?
Thought: Look it up.
Action: wikisearch
Action Input: topic ${n}
Observation: ${'A page about the topic, quoted at length. '.repeat(90)}
Thought: The page answers it.
Final Answer: answer ${n}
`,
    `long/${n}`,
  );
const agent = createAgentStrategy({ mode: 'agent', description: 'test agent', library: () => [1, 2, 3].map(longProcess) });
const QUESTION = 'Which river flows through the capital of the country that won the 1998 World Cup?';

/** Every search returns a long page: three of them overflow an 8k window together with the worked examples. */
const longSearch: Tool<{ query: string }> = {
  name: 'wikisearch',
  description: 'Search Wikipedia.',
  input: z.object({ query: z.string() }),
  fromText: (text) => ({ query: text.trim() }),
  execute: async (_ctx, { query }) => `Results for ${query}: ${`${query} is discussed at length here. `.repeat(400)}`.slice(0, 7_900) + ` END-OF-${query.replace(/\s+/g, '-')}`,
};

/** A model server with an 8,192-token window whose tokenizer makes a token of 3.2 characters (dense text), and refuses longer prompts as vLLM does. */
const serverWithWindow = (replies: string[]) => {
  const seen: { purpose: string; tokens: number; refused: boolean; text: string }[] = [];
  const refuseOver = (request: ChatRequest) => {
    const text = request.messages.map((m) => String(m.content)).join('\n');
    const tokens = Math.ceil(text.length / 3.2) + (request.maxTokens ?? 0);
    const refused = tokens > 8_192;
    seen.push({ purpose: request.purpose, tokens, refused, text });
    if (refused) {
      throw new LLMError(
        `the model server answered HTTP 400: This model's maximum context length is 8192 tokens. However, you requested ${tokens} tokens. Please reduce the length of the messages or completion.`,
        400,
      );
    }
  };
  const agentReplies = [...replies];
  const reply = (request: ChatRequest) => {
    refuseOver(request);
    return request.purpose === 'agent' ? agentReplies.shift()! : 'Seine';
  };
  return { llm: scriptedLLM({ default: Array.from({ length: 30 }, () => reply) }), seen };
};

const SEARCHES = [
  ' First the 1998 winner.\nAction: wikisearch\nAction Input: 1998 World Cup final',
  ' France won; its capital is Paris.\nAction: wikisearch\nAction Input: Paris',
  ' Now the river.\nAction: wikisearch\nAction Input: Seine river Paris',
  ' The Seine flows through Paris.\nFinal Answer: Seine',
];

const drive = (llm: LLM, env: Record<string, string>) =>
  driveStrategy(agent, { request: { question: QUESTION, options: { fewshot: 'random' } }, llm, tools: [longSearch], env });

describe('prompts fit the model context window', () => {
  it('a prompt that would overflow an 8k window is trimmed (old observations first) and the run answers', async () => {
    const server = serverWithWindow(SEARCHES);
    const { events, usage, notes } = await drive(server.llm, { LLM_CONTEXT_TOKENS: '8192' });

    expect(ofType(events, 'answer')[0].answer).toBe('Seine');
    expect(server.seen.filter((s) => s.refused)).toEqual([]);
    expect(usage.context?.trimmed).toBeGreaterThan(0);
    expect(usage.context?.retried).toBe(0);
    expect(notes.join('\n')).toMatch(/prompt for agent shortened to fit a context window of 8192 tokens .*old observations? shortened/);
    // The last agent call still carries the question and the whole last observation; an older one was shortened.
    const last = server.seen.filter((s) => s.purpose === 'agent').at(-1)!.text;
    expect(last).toContain(QUESTION);
    expect(last).toContain('END-OF-Seine-river-Paris');
    expect(last).not.toContain('END-OF-1998-World-Cup-final');
  });

  it("a 400 naming the context length leads to one smaller retry when the configured window was too large", async () => {
    const server = serverWithWindow(SEARCHES);
    const { events, usage, notes } = await drive(server.llm, { LLM_CONTEXT_TOKENS: '32768' });

    expect(ofType(events, 'answer')[0].answer).toBe('Seine');
    const refused = server.seen.filter((s) => s.refused);
    expect(refused.length).toBeGreaterThan(0);
    expect(usage.context?.retried).toBe(refused.length);
    // Each refused prompt was followed by exactly one smaller one, which the server took.
    for (const r of refused) {
      const next = server.seen[server.seen.indexOf(r) + 1];
      expect(next.refused).toBe(false);
      expect(next.tokens).toBeLessThan(r.tokens);
    }
    expect(notes.join('\n')).toMatch(/after the model server refused the longer one/);
  });

  it('counts the function definitions and reply schema a native call sends, so the prompt fits the first time', async () => {
    // A server whose template renders the offered functions and the reply schema into the prompt, as vLLM's do.
    const sent: number[] = [];
    const inner: LLM = {
      provider: 'test',
      model: 'small',
      acceptsImages: false,
      chat: async (request) => {
        const text = request.messages.map((m) => `${String(m.content)}${(m.toolCalls ?? []).map((c) => c.arguments).join('')}`).join('\n');
        const tokens = Math.ceil((text.length + JSON.stringify(request.tools ?? []).length + JSON.stringify(request.responseFormat?.schema ?? {}).length) / 3.2) + (request.maxTokens ?? 0);
        sent.push(tokens);
        if (tokens > 4_096) throw new LLMError(`the model server answered HTTP 400: This model's maximum context length is 4096 tokens. However, you requested ${tokens} tokens.`, 400);
        return { text: 'ok', usage: { promptTokens: tokens, completionTokens: 1 } } as never;
      },
    };
    const notes: string[] = [];
    const llm = windowedLLM(inner, { windowOf: () => 4_096, onTrim: (note) => notes.push(note) });
    // Six functions with long descriptions and schemas: about 1,900 tokens that cannot be shortened.
    const tools = Array.from({ length: 6 }, (_, i) => ({
      name: `tool_${i}`,
      description: `What tool ${i} does, described at length for the model. `.repeat(15),
      parameters: { type: 'object', properties: { query: { type: 'string', description: 'The text to look up, as a short phrase. '.repeat(6) } }, required: ['query'] },
    }));
    const page = 'A page about the topic, quoted at length. '.repeat(200);
    const messages = [
      { role: 'user' as const, content: `<<<PAGE\n${page}\nPAGE>>>\n\nQuestion: what?` },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'call_1', name: 'tool_0', arguments: JSON.stringify({ query: 'x'.repeat(900) }) }] },
      { role: 'tool' as const, content: 'done', toolCallId: 'call_1' },
    ];
    await llm.chat({ purpose: 'agent', messages, tools, maxTokens: 512 });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeLessThanOrEqual(4_096);
    expect(notes.join('\n')).toMatch(/for the function definitions and reply schema sent with it/);
    expect(notes.join('\n')).not.toMatch(/refused/);
  });

  it('a second context-length refusal is not retried again: the call fails with the server’s words', async () => {
    let calls = 0;
    const inner: LLM = {
      provider: 'test',
      model: 'tiny',
      acceptsImages: false,
      chat: async () => {
        calls++;
        throw new LLMError("the model server answered HTTP 400: This model's maximum context length is 2048 tokens.", 400);
      },
    };
    const llm = windowedLLM(inner, { windowOf: () => undefined });
    const long = 'A long page. '.repeat(2_000);
    const err = await llm
      .chat({ purpose: 'read', messages: [{ role: 'user', content: `<<<PAGE\n${long}\nPAGE>>>\n\nQuestion: what?` }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LLMError);
    expect((err as LLMError).message).toMatch(/maximum context length is 2048/);
    expect(calls).toBe(2);
  });
});
