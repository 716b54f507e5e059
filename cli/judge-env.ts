import { loadConfig } from '../src/config';
import { openAIJudge, type CountingJudge, type JudgeKind } from '../src/eval/judge';

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
