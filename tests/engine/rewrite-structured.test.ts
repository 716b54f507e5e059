import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createRunContext } from '../../src/engine/context';
import { COMMON_OPTIONS } from '../../src/engine/options';
import * as z from 'zod';

const runOptions = (options: Record<string, unknown>) => z.strictObject(COMMON_OPTIONS).parse(options);
import { rewriteQuestion } from '../../src/engine/conversation/rewrite';
import { emptyUsage } from '../../src/engine/usage';
import { scriptedLLM } from '../../src/llm/scripted';
import { toolRegistry } from '../../src/tools/types';

const unused = () => {
  throw new Error('not used');
};

/** A chat's rewrite step under each protocol, with the model's reply as given. */
const rewrite = async (reply: string, options: Record<string, unknown>) => {
  const llm = scriptedLLM({ rewrite: [reply] });
  const usage = emptyUsage();
  const ctx = createRunContext({
    runId: 'r',
    request: {
      question: 'When was he born?',
      variant: 'mintaka',
      mode: 'agent',
      conversation: [
        { role: 'user', content: 'Who directed Forrest Gump?' },
        { role: 'assistant', content: 'Robert Zemeckis' },
      ],
    },
    options: runOptions(options),
    config: loadConfig({}),
    llm,
    services: { evidence: unused, embedder: unused, vectors: unused, kg: unused },
    tools: toolRegistry([]),
    scope: { usage },
  });
  const out = await rewriteQuestion(ctx);
  return { out, request: llm.requests[0], usage };
};

describe('the chat rewrite as a structured step', () => {
  it('asks for {question} under native and takes it, on one line', async () => {
    const { out, request } = await rewrite('{"question": "When was Robert\\nZemeckis born?"}', { toolProtocol: 'native' });
    expect(request.responseFormat).toMatchObject({ name: 'standalone_question', schema: { required: ['question'] } });
    expect(out.standalone).toBe('When was Robert Zemeckis born?');
  });

  it('reads a plain reply with the text parser, under native too, and says so in usage', async () => {
    const { out, usage } = await rewrite('Standalone question: "When was Robert Zemeckis born?"', { toolProtocol: 'native' });
    expect(out.standalone).toBe('When was Robert Zemeckis born?');
    expect(usage.toolProtocol?.rewrite?.structured).toEqual({ calls: 1, textFallbacks: 1 });
  });

  it('sends no schema under text, and keeps the question as asked when the reply has none', async () => {
    const { out, request } = await rewrite('', {});
    expect(request.responseFormat).toBeUndefined();
    expect(out.standalone).toBe('When was he born?');
    expect(out.events[1]).toMatchObject({ type: 'observation', data: { error: true } });
  });
});
