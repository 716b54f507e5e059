/// <reference types="node" />
import { readFileSync } from 'node:fs';
import OpenAI, { APIError } from 'openai';
import * as z from 'zod';
import { wireExtras, wireMessage } from '../llm/openai-wire';
import { askStructured } from '../llm/structured';
import { LLMError, type LLM } from '../llm/types';
import { parseJudgeReply, type CragJudge } from './metrics/crag';

/**
 * The judges' instructions, each in its own file under judges/ (our own wording):
 * `crag` grades against CRAG's reference answer as its local evaluation does; `answer-check` stands in
 * for the manual check of the HQA paper (its column "M").
 */
export type JudgeKind = 'crag' | 'answer-check';

const truthLine: Record<JudgeKind, string> = { crag: 'Reference answer', 'answer-check': 'Accepted answers' };

export const judgeInstructions = (kind: JudgeKind): string => readFileSync(new URL(`./judges/${kind}.txt`, import.meta.url), 'utf8').trim();

export interface JudgeSettings {
  baseURL: string;
  apiKey?: string;
  model: string;
  /** Which instructions the judge follows (default crag). */
  kind?: JudgeKind;
  /** For tests: the fetch the SDK uses. */
  fetch?: typeof fetch;
  /** Ask for the verdict as a JSON schema (`response_format`), the text parser still reading a reply that is not it. */
  structured?: boolean;
}

/** The judge's verdict: its score as a JSON schema, or read from its text as before. */
const VERDICT = {
  name: 'verdict',
  schema: z.object({ score: z.union([z.literal(0), z.literal(1)]), explanation: z.string().optional() }),
  fromText: (text: string) => {
    const verdict = parseJudgeReply(text);
    return verdict === undefined ? undefined : { score: verdict ? 1 : 0 };
  },
};

/** The judge's one call through the SDK, as the model seam's `chat`; a 400 is the LLMError the structured call falls back on. */
const judgeModel = (client: OpenAI, model: string): LLM => ({
  provider: 'openai',
  model,
  acceptsImages: false,
  async chat(request) {
    try {
      const res = await client.chat.completions.create({ model, temperature: request.temperature, messages: request.messages.map(wireMessage), ...wireExtras(request) });
      const message = res.choices[0]?.message;
      const text = message?.content ?? '';
      const usage = { promptTokens: res.usage?.prompt_tokens ?? 0, completionTokens: res.usage?.completion_tokens ?? 0 };
      return { text, usage, finishReason: 'stop', model, ...(message?.refusal ? { refusal: message.refusal } : {}) };
    } catch (err) {
      if (err instanceof APIError && err.status === 400) throw new LLMError(err.message, 400);
      throw err;
    }
  },
});

/** A judge that also counts its model calls (metrics.json reports them). */
export type CountingJudge = CragJudge & { calls(): number };

/**
 * A judge over any OpenAI-compatible server. Every request carries `x-request-purpose: judge`
 * so gateways can attribute the cost. A reply that cannot be read counts as "not correct".
 */
export const openAIJudge = (s: JudgeSettings): CountingJudge => {
  const client = new OpenAI({
    baseURL: s.baseURL,
    apiKey: s.apiKey || 'none',
    defaultHeaders: { 'x-request-purpose': 'judge' },
    maxRetries: 3,
    ...(s.fetch ? { fetch: s.fetch } : {}),
  });
  const instructions = judgeInstructions(s.kind ?? 'crag');
  let calls = 0;
  const model = judgeModel(client, s.model);
  const judge = async (question: string, truth: string, prediction: string) => {
    calls++;
    const messages = [
      { role: 'system' as const, content: instructions },
      { role: 'user' as const, content: `Question: ${question}\n${truthLine[s.kind ?? 'crag']}: ${truth}\nCandidate answer: ${prediction}` },
    ];
    const reply = await askStructured(model, { purpose: 'judge', messages, temperature: 0 }, VERDICT, s.structured ?? false);
    return reply.value ? reply.value.score === 1 : false;
  };
  return Object.assign(judge, { calls: () => calls });
};
