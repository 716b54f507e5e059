/// <reference types="node" />
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
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
}

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
  const judge = async (question: string, truth: string, prediction: string) => {
    calls++;
    const res = await client.chat.completions.create({
      model: s.model,
      temperature: 0,
      messages: [
        { role: 'system', content: instructions },
        { role: 'user', content: `Question: ${question}\n${truthLine[s.kind ?? 'crag']}: ${truth}\nCandidate answer: ${prediction}` },
      ],
    });
    return parseJudgeReply(res.choices[0]?.message?.content ?? '') ?? false;
  };
  return Object.assign(judge, { calls: () => calls });
};
