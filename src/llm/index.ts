import type { Config } from '../config';
import type { GateNamespace } from '../net/politeness/pass';
import { modelGates } from './model-gate';
import { openAIProvider } from './openai';
import { installedScript } from './scripted';
import type { LLM } from './types';
import { DEFAULT_WORKERS_AI_MODEL, workersAIProvider } from './workers-ai';

export type LLMAvailability = { ok: true; llm: LLM } | { ok: false; reason: string };

export const HOW_TO_CONFIGURE_LLM =
  'No language model is configured. Start with `npm run dev -- --var LLM_BASE_URL:http://127.0.0.1:8000/v1 --var LLM_MODEL:<model>` ' +
  '(any OpenAI-compatible server: vLLM, Ollama, llama.cpp, OpenAI with LLM_API_KEY; LLM_MODEL is the name the server serves, as its GET /v1/models lists it), ' +
  'or deploy with LLM_PROVIDER=workers-ai and the AI binding.';

/** What the providers may use besides the config: the Workers AI binding, and the gates every run shares. */
export interface LLMBindings {
  AI?: Ai;
  /** Any Durable Object namespace of PolitenessGate (the Env's typed one included). */
  POLITENESS_GATE?: { idFromName(name: string): DurableObjectId; get(id: DurableObjectId): unknown };
}

const cache = new WeakMap<Config, LLMAvailability>();

/**
 * Picks the provider named by the config. Never throws: "no model" is a state the API reports, not a crash.
 * The provider is kept per config (configs are parsed once per isolate), so requests do not rebuild SDK clients.
 */
export const createLLM = (config: Config, bindings: LLMBindings): LLMAvailability => {
  // The scripted double changes per test, so it is never cached.
  if (config.LLM_PROVIDER === 'scripted') return build(config, bindings);
  const hit = cache.get(config);
  if (hit) return hit;
  const made = build(config, bindings);
  cache.set(config, made);
  return made;
};

const NO_AI_BINDING = 'LLM_PROVIDER=workers-ai needs the AI binding ([ai] binding = "AI" in wrangler.toml; only in deploys). ' + HOW_TO_CONFIGURE_LLM;
const NO_SCRIPT = 'LLM_PROVIDER=scripted is for tests: no script is installed';

/**
 * Why no model can be had with this config and these bindings, or undefined when one can: what a request is refused
 * for before its run exists, asked without building a provider.
 */
export const whyNoModel = (config: Config, bindings: LLMBindings): string | undefined => {
  switch (config.LLM_PROVIDER) {
    case 'openai':
      return undefined;
    case 'workers-ai':
      return bindings.AI ? undefined : NO_AI_BINDING;
    case 'scripted':
      return installedScript() ? undefined : NO_SCRIPT;
    default:
      return HOW_TO_CONFIGURE_LLM;
  }
};

const build = (config: Config, bindings: LLMBindings): LLMAvailability => {
  const missing = whyNoModel(config, bindings);
  if (missing) return { ok: false, reason: missing };
  switch (config.LLM_PROVIDER) {
    case 'openai':
      return {
        ok: true,
        llm: openAIProvider({
          baseURL: config.LLM_BASE_URL!,
          apiKey: config.LLM_API_KEY,
          model: config.LLM_MODEL,
          timeoutMs: config.LLM_TIMEOUT_MS,
          maxResponseBytes: config.LLM_MAX_RESPONSE_BYTES,
          maxRetries: config.LLM_MAX_RETRIES,
          gateFor: modelGates(config, config.LLM_BASE_URL!, bindings.POLITENESS_GATE as unknown as GateNamespace | undefined),
        }),
      };
    case 'workers-ai':
      return { ok: true, llm: workersAIProvider(bindings.AI!, {
          model: config.LLM_MODEL ?? DEFAULT_WORKERS_AI_MODEL,
          budget: { maxBytes: config.LLM_MAX_RESPONSE_BYTES, timeoutMs: config.LLM_TIMEOUT_MS },
          gateFor: modelGates(config, 'workers-ai', bindings.POLITENESS_GATE as unknown as GateNamespace | undefined),
        }) };
    case 'scripted':
      return { ok: true, llm: installedScript()! };
    default:
      return { ok: false, reason: HOW_TO_CONFIGURE_LLM };
  }
};
