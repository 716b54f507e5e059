import { loadConfig, type Config } from '../src/config';
import { capabilitiesOf, speak } from '../src/llm/capabilities';
import { openAIJudge, type CountingJudge, type JudgeKind } from '../src/eval/judge';
import type { Benchmark } from '../src/eval/types';
import { InputRefusal } from '../src/eval/node/input-files';

export interface JudgeFlags {
  url?: string;
  model?: string;
  apiKey?: string;
}

/** Whether the judge asks for a JSON verdict: LLM_TOOL_PROTOCOL_JUDGE, else LLM_TOOL_PROTOCOL, with what is known of its model. */
const structuredJudge = (config: Config | undefined, model: string, baseURL: string): boolean => {
  const asked = config?.LLM_TOOL_PROTOCOLS.judge ?? config?.LLM_TOOL_PROTOCOL ?? 'text';
  return speak(asked, capabilitiesOf('openai', model, baseURL)).structured;
};

/** The environment's config; a bad one is said once, and only where the judge would have used its model settings. */
const configFromEnv = (warn: boolean): Config | undefined => {
  try {
    return loadConfig({ ...process.env });
  } catch (e) {
    if (warn) process.stderr.write(`warning: LLM settings ignored (${(e as Error).message})\n`);
    return undefined;
  }
};

/**
 * A judge model: `--judge-url/--judge-model/--judge-key` when given, else LLM_BASE_URL / LLM_API_KEY / LLM_MODEL;
 * none when no OpenAI-compatible model is set.
 */
export const judgeFromEnv = (kind: JudgeKind = 'crag', flags: JudgeFlags = {}): { judge?: CountingJudge; name: string } => {
  if (flags.url && flags.model) {
    const structured = structuredJudge(configFromEnv(false), flags.model, flags.url);
    return { judge: openAIJudge({ baseURL: flags.url, apiKey: flags.apiKey, model: flags.model, kind, structured }), name: flags.model };
  }
  const config = configFromEnv(true);
  if (!config) return { name: 'none' };
  if (config.LLM_PROVIDER !== 'openai' || !config.LLM_BASE_URL || !config.LLM_MODEL) return { name: 'none' };
  const model = flags.model ?? config.LLM_MODEL;
  return {
    judge: openAIJudge({ baseURL: flags.url ?? config.LLM_BASE_URL, apiKey: flags.apiKey ?? config.LLM_API_KEY, model, kind, structured: structuredJudge(config, model, flags.url ?? config.LLM_BASE_URL) }),
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
