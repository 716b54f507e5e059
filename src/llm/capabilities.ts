import type { ToolProtocol } from '../config-protocols';
import { PROBES, type ProbeSummary } from '../generated/probes';

/** What a model is known to do natively, and who says so. */
export interface Capabilities {
  tools: boolean;
  /** Asks for several calls in one turn when told it may. */
  parallel: boolean;
  responseFormat: boolean;
  /** `probe <file> (<date>)` or `Workers AI catalogue`. */
  source: string;
}

/**
 * Workers AI's catalogue: the text models its model pages mark for function calling, and those whose input schema
 * takes `response_format` (JSON mode), as the generated binding types list them (src/worker-configuration.d.ts).
 * Parallel calls are not marked anywhere; only a probe says so.
 */
const WORKERS_AI_TOOLS = new Set([
  '@cf/meta/llama-3.3-70b-instruct-fp8-fast', '@cf/meta/llama-4-scout-17b-16e-instruct', '@cf/openai/gpt-oss-120b', '@cf/openai/gpt-oss-20b',
  '@cf/mistralai/mistral-small-3.1-24b-instruct', '@cf/qwen/qwen3-30b-a3b-fp8', '@cf/qwen/qwen2.5-coder-32b-instruct', '@cf/qwen/qwq-32b',
  '@cf/google/gemma-3-12b-it', '@hf/nousresearch/hermes-2-pro-mistral-7b', '@cf/aisingapore/gemma-sea-lion-v4-27b-it',
]);
const WORKERS_AI_JSON_MODE = new Set([
  '@cf/meta/llama-3.3-70b-instruct-fp8-fast', '@cf/meta/llama-4-scout-17b-16e-instruct', '@cf/openai/gpt-oss-120b', '@cf/openai/gpt-oss-20b',
  '@cf/qwen/qwen3-30b-a3b-fp8', '@cf/qwen/qwen2.5-coder-32b-instruct', '@cf/aisingapore/gemma-sea-lion-v4-27b-it',
]);

/** The server a probe record names: an OpenAI-compatible server's origin, or `workers-ai`. */
export const serverOf = (provider: string, baseURL: string | undefined): string => {
  if (provider === 'workers-ai') return 'workers-ai';
  try {
    return new URL(baseURL ?? '').origin;
  } catch {
    return baseURL ?? provider;
  }
};

/**
 * What is known of `model` on this server: the newest bundled probe record of that model and server (probes/*.json,
 * bundled at build time: the Worker reads no files), else for Workers AI its catalogue; undefined when nothing is.
 */
export const capabilitiesOf = (provider: string, model: string, baseURL?: string, records: readonly ProbeSummary[] = PROBES): Capabilities | undefined => {
  const server = serverOf(provider, baseURL);
  const probe = records.filter((r) => r.model === model && r.server === server).sort((a, b) => b.probedAt.localeCompare(a.probedAt))[0];
  if (probe) return { tools: probe.tools, parallel: probe.parallel, responseFormat: probe.responseFormat, source: `probe ${probe.file} (${probe.probedAt})` };
  if (provider === 'workers-ai' && (WORKERS_AI_TOOLS.has(model) || WORKERS_AI_JSON_MODE.has(model))) {
    return { tools: WORKERS_AI_TOOLS.has(model), parallel: false, responseFormat: WORKERS_AI_JSON_MODE.has(model), source: 'Workers AI catalogue' };
  }
  return undefined;
};

/** How one purpose's calls go: functions or text, and whether structured steps send a reply schema. */
export interface SpokenProtocol {
  tools: 'native' | 'text';
  structured: boolean;
  /** Why, in a sentence (the trace and docs say it). */
  why: string;
}

/**
 * The protocol asked for, made concrete with what is known of the model: `native` sends functions, and a reply schema
 * unless a probe found the model cannot keep one; `auto` speaks native only where the model is known to, text elsewhere.
 */
export const speak = (asked: ToolProtocol, known: Capabilities | undefined): SpokenProtocol => {
  if (asked === 'text') return { tools: 'text', structured: false, why: 'text protocol' };
  if (asked === 'native') {
    const structured = known?.responseFormat !== false || !known.source.startsWith('probe');
    return { tools: 'native', structured, why: structured ? 'native protocol' : `native protocol; no reply schema (${known!.source})` };
  }
  if (!known) return { tools: 'text', structured: false, why: 'auto: nothing known of this model, so text' };
  return { tools: known.tools ? 'native' : 'text', structured: known.responseFormat, why: `auto: ${known.source}` };
};
