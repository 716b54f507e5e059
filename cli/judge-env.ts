import { loadConfig } from '../src/config';
import { openAIJudge, type CountingJudge, type JudgeKind } from '../src/eval/judge';
import type { Benchmark } from '../src/eval/types';
import { InputRefusal } from '../src/eval/node/input-files';

export interface JudgeFlags {
  url?: string;
  model?: string;
  apiKey?: string;
}

/**
 * A judge model: `--judge-url/--judge-model/--judge-key` when given, else LLM_BASE_URL / LLM_API_KEY / LLM_MODEL;
 * none when no OpenAI-compatible model is set.
 */
export const judgeFromEnv = (kind: JudgeKind = 'crag', flags: JudgeFlags = {}): { judge?: CountingJudge; name: string } => {
  if (flags.url && flags.model) {
    return { judge: openAIJudge({ baseURL: flags.url, apiKey: flags.apiKey, model: flags.model, kind }), name: flags.model };
  }
  let config;
  try {
    config = loadConfig({ ...process.env });
  } catch (e) {
    process.stderr.write(`warning: LLM settings ignored (${(e as Error).message})\n`);
    return { name: 'none' };
  }
  if (config.LLM_PROVIDER !== 'openai' || !config.LLM_BASE_URL || !config.LLM_MODEL) return { name: 'none' };
  const model = flags.model ?? config.LLM_MODEL;
  return {
    judge: openAIJudge({ baseURL: flags.url ?? config.LLM_BASE_URL, apiKey: flags.apiKey ?? config.LLM_API_KEY, model, kind }),
    name: model,
  };
};

/**
 * The judges an evaluation uses: CRAG's own judge for CRAG (whenever a model is configured, as its local evaluation
 * does), and for the others with `--judge` a model-judged accuracy beside the exact metrics (HQA's manual column "M").
 */
export const judgesFor = (b: Benchmark, a: { judge: boolean; 'judge-url'?: string; 'judge-model'?: string; 'judge-key'?: string }) => {
  const flags = { url: a['judge-url'], model: a['judge-model'], apiKey: a['judge-key'] };
  const { judge, name } = b === 'crag' ? judgeFromEnv('crag', flags) : a.judge ? judgeFromEnv('answer-check', flags) : { judge: undefined, name: 'none' };
  if (a.judge && !judge) throw new InputRefusal('--judge needs a model: --judge-url <OpenAI-compatible /v1 URL> --judge-model <name>, or LLM_BASE_URL and LLM_MODEL');
  return { judge: b === 'crag' ? judge : undefined, answerJudge: b === 'crag' ? undefined : judge, judgeName: name };
};
