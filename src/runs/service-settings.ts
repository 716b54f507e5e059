import type { Config } from '../config';
import { PURPOSES, type Purpose } from '../config-purposes';
import { contextWindow } from '../engine/context-window';
import { capabilitiesOf, speak } from '../llm/capabilities';
import { PURPOSE_TEMPERATURES } from '../engine/sampling';
import { VARIANTS, type Variant } from '../engine/types';
import { bundle } from '../generated/bundle';
import { BUILD_INFO } from '../generated/build-info';
import { availableModes, defaultMode } from '../strategies';
import { resolvedOptionsFor } from './resolved-options';

/**
 * Everything of the service's own set-up that decides a number an evaluation reports, as one document
 * (GET /v1/config): where evidence comes from, the limits, each purpose's model, window and temperature, the few-shot
 * libraries by content hash, and — for a variant, mode and options — the options as the run resolves them.
 * Endpoints appear as hosts only: a URL may carry credentials, and no secret or token is ever named (only whether
 * one is set).
 */

/** `host[:port]` of a URL, never its user, path or query. */
const hostOf = (url: string | undefined): string | null => {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

let libraries: Promise<Record<string, { sha256: string; processes: number; ids: string[] }>> | undefined;

/** Each bundled few-shot library: the SHA-256 of its files (name and text, in name order) and its process ids. */
const libraryDigests = () =>
  (libraries ??= (async () => {
    const byName = new Map<string, { file: string; text: string }[]>();
    for (const f of bundle.fewshot) {
      const name = /^fewshot\/([^/]+)\//.exec(f.file)?.[1];
      if (name) byName.set(name, [...(byName.get(name) ?? []), f]);
    }
    const out: Record<string, { sha256: string; processes: number; ids: string[] }> = {};
    for (const [name, files] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
      const sorted = [...files].sort((a, b) => a.file.localeCompare(b.file));
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(sorted.map((f) => `${f.file}\0${f.text}\0`).join('')));
      out[name] = { sha256: hex(digest), processes: sorted.length, ids: sorted.map((f) => f.file.replace(/^fewshot\//, '').replace(/\.txt$/, '')) };
    }
    return out;
  })());

/**
 * How a purpose's calls are spoken when the run asks nothing else (recipe "ours", no options.toolProtocol): the
 * protocol configured (LLM_TOOL_PROTOCOL[_<PURPOSE>]) and what it becomes with what is known of the model.
 */
const protocolOf = (config: Config, p: Purpose, served: string | null) => {
  const configured = config.LLM_TOOL_PROTOCOLS?.[p] ?? config.LLM_TOOL_PROTOCOL ?? 'text';
  const spoken = speak(configured, capabilitiesOf(config.LLM_PROVIDER, served ?? '', config.LLM_BASE_URL));
  return { configured, tools: spoken.tools, structured: spoken.structured, why: spoken.why };
};

const purposes = (config: Config, model: string | undefined) =>
  Object.fromEntries(
    PURPOSES.map((p: Purpose) => {
      const served = config.LLM_MODELS[p] ?? model ?? null;
      return [
        p,
        {
          model: served,
          contextTokens: contextWindow(config, p, served ?? '') ?? null,
          temperature: PURPOSE_TEMPERATURES[p] ?? null,
          toolProtocol: protocolOf(config, p, served),
        },
      ];
    }),
  );

const evidence = (config: Config) => ({
  mode: config.EVIDENCE,
  replay: config.EVIDENCE_REPLAY || null,
  endpoints: {
    wikipedia: hostOf(config.WIKIPEDIA_API_URL),
    wikidataSparql: hostOf(config.WIKIDATA_SPARQL_URL),
    wikidataApi: hostOf(config.WIKIDATA_API_URL),
    cragApi: hostOf(config.CRAG_API_URL),
  },
  politeness: config.POLITENESS,
  contactSet: !!config.WIKIMEDIA_CONTACT,
  accessTokenSet: !!config.WIKIMEDIA_ACCESS_TOKEN,
  cacheTtlSeconds: config.EVIDENCE_CACHE_TTL_SECONDS,
  mediawiki: { requestsPerMinute: config.MEDIAWIKI_REQUESTS_PER_MINUTE ?? null, concurrency: config.MEDIAWIKI_CONCURRENCY, maxlag: config.MEDIAWIKI_MAXLAG },
  wdqs: { querySecondsPerMinute: config.WDQS_QUERY_SECONDS_PER_MINUTE, errorsPerMinute: config.WDQS_ERRORS_PER_MINUTE, concurrency: config.WDQS_CONCURRENCY },
});

export interface SettingsQuery {
  variant?: Variant;
  mode?: string;
  options?: Record<string, unknown>;
}

/**
 * The document. `model` is the provider's default model (the configured LLM_MODEL, or the provider's own default).
 * With a variant, a mode or options, `resolved` holds the options a run of them would work with; the options are checked as
 * POST /v1/answer checks them (a 400 naming a wrong key).
 */
export const serviceSettings = async (config: Config, model: string | undefined, query: SettingsQuery = {}) => {
  const resolved =
    query.variant || query.mode || query.options
      ? (() => {
          const variant = query.variant ?? config.DEFAULT_VARIANT;
          const mode = query.mode ?? defaultMode(variant, config);
          return { variant, mode, options: resolvedOptionsFor(variant, mode, query.options, config) };
        })()
      : undefined;
  return {
    version: BUILD_INFO.version,
    commit: BUILD_INFO.commit,
    llm: {
      provider: config.LLM_PROVIDER,
      model: model ?? null,
      host: config.LLM_PROVIDER === 'openai' ? hostOf(config.LLM_BASE_URL) : null,
      timeoutMs: config.LLM_TIMEOUT_MS,
      maxRetries: config.LLM_MAX_RETRIES,
      maxResponseBytes: config.LLM_MAX_RESPONSE_BYTES,
      concurrency: config.LLM_CONCURRENCY,
    },
    embeddings: { provider: config.EMBEDDING_PROVIDER, model: config.EMBEDDING_MODEL ?? null },
    purposes: purposes(config, model),
    evidence: evidence(config),
    limits: {
      maxSteps: config.MAX_STEPS,
      maxLLMCalls: config.MAX_LLM_CALLS,
      maxWallMs: config.MAX_WALL_MS,
      maxTokens: config.MAX_TOKENS,
      sandboxWorkUnits: config.SANDBOX_WORK_UNITS,
      toolTimeoutMs: config.TOOL_TIMEOUT_MS,
    },
    fewshot: { library: config.FEWSHOT_LIBRARY ?? null, libraries: await libraryDigests() },
    variants: [...VARIANTS],
    modes: availableModes(config),
    defaultModes: Object.fromEntries(VARIANTS.map((v) => [v, defaultMode(v, config)])) as Record<Variant, string>,
    ...(resolved ? { resolved } : {}),
  };
};

export type ServiceSettings = Awaited<ReturnType<typeof serviceSettings>>;
