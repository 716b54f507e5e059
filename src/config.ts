import * as z from 'zod';
import { credentialsInClear } from './config-credentials';
import { PURPOSES, type Purpose } from './config-purposes';
import { parsePurposeProtocols, toolProtocolVars, type ToolProtocol } from './config-protocols';
import { withTestVars } from './config-test-vars';
import { upstreamLimitVars } from './config-upstreams';
import { DEFAULT_WORK_UNITS } from './sandbox/types';

/**
 * The only place that reads the environment. Every Worker var and secret of the public contract is
 * parsed here once; a bad value fails with a message naming the variable and how to fix it.
 */

const url = (name: string) =>
  z.string().trim().url({ message: `${name} must be an absolute http(s) URL, e.g. https://example.org/path` });

const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));

const positiveInt = (fallback: number) =>
  z.coerce
    .number({ message: 'must be a positive whole number (e.g. 40)' })
    .int({ message: 'must be a positive whole number (e.g. 40)' })
    .positive({ message: 'must be a positive whole number (e.g. 40)' })
    .default(fallback);

export const configSchema = z
  .object({
    LLM_PROVIDER: z
      .enum(['workers-ai', 'openai', 'scripted', 'none'], {
        message: 'LLM_PROVIDER must be "workers-ai" or "openai" (leave it unset to run without a model)',
      })
      .optional(),
    LLM_BASE_URL: url('LLM_BASE_URL').optional(),
    LLM_API_KEY: optionalString,
    LLM_MODEL: optionalString,
    /** One model reply, headers and whole body, streamed or not; a reply still arriving then fails with llm_timeout. */
    LLM_TIMEOUT_MS: positiveInt(60_000),
    /**
     * Bytes of one model reply body (streamed replies count their event framing too); past it the call fails with
     * llm_response_too_large. 1 MiB holds ~4,000 streamed tokens, several times the longest reply any step asks for.
     */
    LLM_MAX_RESPONSE_BYTES: positiveInt(1_048_576),
    LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(4),
    /** The model's context window in tokens; unset, the known window of the model (or none: prompts go as they are). */
    LLM_CONTEXT_TOKENS: z.coerce
      .number({ message: 'LLM_CONTEXT_TOKENS must be a whole number of tokens (e.g. 8192)' })
      .int({ message: 'LLM_CONTEXT_TOKENS must be a whole number of tokens (e.g. 8192)' })
      .min(1024, { message: 'LLM_CONTEXT_TOKENS must be at least 1024 tokens' })
      .optional(),
    EMBEDDING_PROVIDER: z
      .enum(['local', 'workers-ai', 'openai'], { message: 'EMBEDDING_PROVIDER must be "local", "workers-ai" or "openai"' })
      .default('local'),
    EMBEDDING_MODEL: optionalString,
    EVIDENCE: z.enum(['static', 'live'], { message: 'EVIDENCE must be "static" (bundled snapshot) or "live"' }).default('static'),
    WIKIPEDIA_API_URL: url('WIKIPEDIA_API_URL').default('https://en.wikipedia.org/w/api.php'),
    WIKIDATA_SPARQL_URL: url('WIKIDATA_SPARQL_URL').default('https://query.wikidata.org/sparql'),
    WIKIDATA_API_URL: url('WIKIDATA_API_URL').default('https://www.wikidata.org/w/api.php'),
    CRAG_API_URL: url('CRAG_API_URL').optional(),
    /**
     * The politeness gate in front of every live host (durable-objects/politeness-gate.ts). `off` sends at once and
     * keeps only the shared cache: for a mirror of your own that needs no protection, or to measure what politeness costs.
     */
    POLITENESS: z.enum(['on', 'off'], { message: 'POLITENESS must be "on" (default) or "off"' }).default('on'),
    /** WDQS policy: about 60 s of query time per minute per client; the default keeps a margin for queries in flight. */
    WDQS_QUERY_SECONDS_PER_MINUTE: positiveInt(50),
    /** WDQS policy: 30 erroring queries per minute; the default keeps a margin for queries in flight. */
    WDQS_ERRORS_PER_MINUTE: positiveInt(25),
    WDQS_CONCURRENCY: positiveInt(5),
    /** `maxlag` sent with every MediaWiki request (the documented recommendation is 5 s); 0 sends none. */
    MEDIAWIKI_MAXLAG: z.coerce.number({ message: 'MEDIAWIKI_MAXLAG must be a whole number of seconds (0 sends none)' }).int().min(0).max(60).default(5),
    /** The longest one request waits at a gate; a host that asks for a longer wait fails the request unsent. */
    POLITENESS_MAX_WAIT_MS: positiveInt(60_000),
    ...upstreamLimitVars,
    ...toolProtocolVars,
    /**
     * Model calls in flight at once per model server and model (or Workers AI model), across every run of the
     * deployment (the model's own politeness gate, which also shares a 429's Retry-After with every run). 8 keeps a small self-hosted server
     * (Ollama, one vLLM GPU) from queueing or refusing; raise it for a server that batches more.
     */
    LLM_CONCURRENCY: positiveInt(8),
    /**
     * How Wikimedia can reach whoever runs this deploy (an e-mail address or a URL), sent in the User-Agent of every
     * live evidence request as Wikimedia's User-Agent policy asks; /healthz warns while live evidence goes without it.
     */
    WIKIMEDIA_CONTACT: z
      .string()
      .trim()
      .max(200, { message: 'WIKIMEDIA_CONTACT must be at most 200 characters' })
      .regex(/^(?:https?:\/\/[^\s()<>;]+|[^\s()<>;@]+@[^\s()<>;@]+\.[^\s()<>;@]+)$/, {
        message: 'WIKIMEDIA_CONTACT must be an e-mail address or an http(s) URL where you can be reached, e.g. ops@example.org or https://example.org/contact',
      })
      .optional(),
    /**
     * OpenTelemetry: export each run as one trace over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`; unset = off.
     * Headers as the OpenTelemetry spec writes them: `key=value,key2=value2` (values URL-encoded), e.g. an API key.
     */
    OTEL_EXPORTER_OTLP_ENDPOINT: url('OTEL_EXPORTER_OTLP_ENDPOINT').optional(),
    OTEL_EXPORTER_OTLP_HEADERS: optionalString,
    /** Serve every run's evidence from this uploaded archive (POST /v1/archives) instead of the snapshot or Wikimedia. */
    EVIDENCE_REPLAY: z
      .string()
      .trim()
      .regex(/^(arc_[0-9a-f]{32})?$/, { message: 'EVIDENCE_REPLAY must be an archive id from POST /v1/archives (arc_ and 32 hex digits)' })
      .optional(),
    /** The largest evidence archive POST /v1/archives accepts, in bytes (docs/ARCHIVE.md); default 16 MiB. */
    ARCHIVE_MAX_BYTES: positiveInt(16 * 1024 * 1024),
    API_KEYS: z
      .string()
      .optional()
      .transform((v) => (v ?? '').split(',').map((k) => k.trim()).filter(Boolean)),
    RATE_LIMIT_PER_MINUTE: positiveInt(60),
    /** Web origins whose pages may call the API; unset = none without API_KEYS, any (`*`) with them (src/api/cors.ts). */
    CORS_ORIGINS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return undefined;
        return v.split(',').map((o) => o.trim()).filter(Boolean).map((o) => {
          if (o === '*') return o;
          const u = URL.canParse(o) ? new URL(o) : undefined;
          const origin = u?.origin ?? 'null';
          if (origin === 'null' || u?.pathname !== '/' || u.search || u.hash || u.username) {
            ctx.addIssue({ code: 'custom', message: `"${o}" is not an origin: write scheme://host[:port] with no path, e.g. https://app.example.org` });
          }
          return origin;
        });
      }),
    DEFAULT_VARIANT: z.enum(['mintaka', 'qald9plus', 'compmix', 'hybridqa', 'mmqa', 'crag']).default('mintaka'),
    /** A bundled few-shot library (`fewshot/<name>/`) the agent selects from instead of the variant's own. */
    FEWSHOT_LIBRARY: z
      .string()
      .trim()
      .regex(/^([a-z0-9][a-z0-9_-]{0,63})?$/, { message: 'FEWSHOT_LIBRARY must name a folder under fewshot/ (lowercase letters, digits, - and _), e.g. hqa-mintaka' })
      .optional()
      .transform((v) => (v ? v : undefined)),
    /** Deadline of one POST /v1/tools/{name} call, model calls and their retries included (src/api/tools.ts). */
    TOOL_TIMEOUT_MS: positiveInt(60_000),
    MAX_STEPS: positiveInt(40),
    MAX_LLM_CALLS: positiveInt(40),
    MAX_WALL_MS: positiveInt(300_000),
    MAX_TOKENS: positiveInt(400_000),
    /**
     * Work units one sandbox attempt (a program-mode program, a rag calculator expression) may spend in the metered
     * QuickJS engine, built-ins included; past it the attempt fails with `cpu_budget`. The default, 10 million, costs
     * about 0.1 s of CPU per attempt here, run step included (docs/LIMITS.md); other requests wait at most about that.
     */
    SANDBOX_WORK_UNITS: positiveInt(DEFAULT_WORK_UNITS).pipe(
      z.number().max(2_000_000_000, { message: 'SANDBOX_WORK_UNITS must be at most 2000000000 (e.g. 10000000)' }),
    ),
    /** Idle edge connections are closed; a comment on open SSE streams keeps them up. */
    SSE_HEARTBEAT_MS: positiveInt(15_000),
    TEST_MODE: z
      .string()
      .optional()
      .transform((v) => v === 'true'),
  })
  .superRefine((c, ctx) => {
    if (c.LLM_PROVIDER === 'openai' && !c.LLM_BASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['LLM_BASE_URL'],
        message: 'LLM_BASE_URL is required when LLM_PROVIDER=openai (e.g. http://127.0.0.1:8000/v1 for vLLM, https://api.openai.com/v1)',
      });
    }
    if (c.CORS_ORIGINS?.includes('*') && !c.API_KEYS.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['CORS_ORIGINS'],
        message: 'CORS_ORIGINS=* would let every web page drive a server without API_KEYS; name the origins (https://app.example.org) or set API_KEYS',
      });
    }
    if (c.EMBEDDING_PROVIDER === 'openai' && !c.LLM_BASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['LLM_BASE_URL'],
        message: 'EMBEDDING_PROVIDER=openai uses LLM_BASE_URL and LLM_API_KEY; set LLM_BASE_URL',
      });
    }
  });

type Parsed = z.infer<typeof configSchema>;

/** `generateQuery` → `LLM_MODEL_GENERATE_QUERY`, `extract_info` → `LLM_MODEL_EXTRACT_INFO`, `vision` → `LLM_MODEL_VISION`. */
export const purposeModelVar = (purpose: Purpose): string =>
  `LLM_MODEL_${purpose.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;

const PURPOSE_BY_VAR = new Map(PURPOSES.map((p) => [purposeModelVar(p), p]));
const WINDOW_PREFIX = 'LLM_CONTEXT_TOKENS_';
const PURPOSE_BY_WINDOW_VAR = new Map(PURPOSES.map((p) => [purposeModelVar(p).replace('LLM_MODEL_', WINDOW_PREFIX), p]));

/** Reads every `LLM_CONTEXT_TOKENS_<PURPOSE>`: the window of the model a purpose is routed to (`LLM_MODEL_<PURPOSE>`). */
const parsePurposeWindows = (raw: Record<string, unknown>, issues: string[]): Partial<Record<Purpose, number>> => {
  const windows: Partial<Record<Purpose, number>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!key.startsWith(WINDOW_PREFIX) || typeof value !== 'string') continue;
    const purpose = PURPOSE_BY_WINDOW_VAR.get(key);
    const n = Number(value);
    if (!purpose) issues.push(`${key}: no such purpose; per-purpose windows are ${[...PURPOSE_BY_WINDOW_VAR.keys()].join(', ')}`);
    else if (!Number.isInteger(n) || n < 1024) issues.push(`${key}: a whole number of tokens, at least 1024 (e.g. 8192)`);
    else windows[purpose] = n;
  }
  return windows;
};

/** Reads every `LLM_MODEL_<PURPOSE>`; an unknown purpose is a typo worth failing on, not a silently ignored var. */
const parsePurposeModels = (raw: Record<string, unknown>, issues: string[]): Partial<Record<Purpose, string>> => {
  const models: Partial<Record<Purpose, string>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!key.startsWith('LLM_MODEL_') || typeof value !== 'string') continue;
    const purpose = PURPOSE_BY_VAR.get(key);
    if (!purpose) {
      issues.push(`${key}: no such purpose; per-purpose models are ${[...PURPOSE_BY_VAR.keys()].join(', ')}`);
      continue;
    }
    const name = value.trim();
    if (name.length > 200) issues.push(`${key}: a model name of at most 200 characters`);
    else if (name) models[purpose] = name;
  }
  return models;
};

export type Config = Omit<Parsed, 'LLM_PROVIDER' | 'CORS_ORIGINS'> & {
  LLM_PROVIDER: 'workers-ai' | 'openai' | 'scripted' | 'none';
  /** Origins other than its own whose pages may call the server (`*` = any); never `*` without API_KEYS. */
  CORS_ORIGINS: string[];
  /** Per-purpose model overrides (`LLM_MODEL_CHECK`, `LLM_MODEL_VISION`, …); purposes without one use LLM_MODEL. */
  LLM_MODELS: Partial<Record<Purpose, string>>;
  /** Per-purpose context windows (`LLM_CONTEXT_TOKENS_CODE`, …); purposes without one use LLM_CONTEXT_TOKENS. */
  LLM_CONTEXT_WINDOWS: Partial<Record<Purpose, number>>;
  /** Per-purpose tool protocols (`LLM_TOOL_PROTOCOL_AGENT`, …); purposes without one use LLM_TOOL_PROTOCOL. */
  LLM_TOOL_PROTOCOLS: Partial<Record<Purpose, ToolProtocol>>;
  /** Names of secret values, so traces and errors can scrub them. */
  secrets: string[];
};

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration: ${issues.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** OTEL_EXPORTER_OTLP_HEADERS (`k=v,k2=v2`, values URL-encoded) as a header map; pairs without `=` are skipped. */
export const otlpHeaders = (raw: string | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.trim());
      } catch {
        return s.trim();
      }
    };
    out[decode(pair.slice(0, at))] = decode(pair.slice(at + 1));
  }
  return out;
};

/** Collector credentials are secrets too: scrubbed from traces and errors like the model key. */
const otlpHeaderValues = (raw: string | undefined) => Object.values(otlpHeaders(raw));

const cache = new WeakMap<object, Config>();

/** Parses the Worker's vars and secrets (cached per env object). Throws ConfigError with every problem named. */
export const loadConfig = (own: Record<string, unknown>): Config => {
  const env = withTestVars(own);
  const hit = cache.get(env);
  if (hit) return hit;
  const raw: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') raw[k] = v === '' ? undefined : v;
  const parsed = configSchema.safeParse(raw);
  const issues = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`);
  const models = parsePurposeModels(raw, issues);
  const windows = parsePurposeWindows(raw, issues);
  const protocols = parsePurposeProtocols(raw, issues);
  // A credential never travels in clear, whatever else the configuration says (src/config-credentials.ts).
  if (parsed.success) issues.push(...credentialsInClear(parsed.data).map((p) => `${p.variable}: ${p.message}`));
  if (!parsed.success || issues.length) throw new ConfigError(issues);
  const c = parsed.data;
  const provider = c.LLM_PROVIDER ?? (c.LLM_BASE_URL ? 'openai' : 'none');
  const config: Config = {
    ...c,
    LLM_PROVIDER: provider,
    LLM_MODELS: models,
    LLM_CONTEXT_WINDOWS: windows,
    LLM_TOOL_PROTOCOLS: protocols,
    // A bearer key is not something a browser sends on its own, so with keys any page may call (it needs a key);
    // without keys the server is open, and only its own pages (and non-browser clients) may use it.
    CORS_ORIGINS: c.CORS_ORIGINS ?? (c.API_KEYS.length ? ['*'] : []),
    secrets: [c.LLM_API_KEY, c.WIKIMEDIA_ACCESS_TOKEN, ...c.API_KEYS, ...otlpHeaderValues(c.OTEL_EXPORTER_OTLP_HEADERS)].filter((s): s is string => !!s && s.length >= 4),
  };
  cache.set(env, config);
  return config;
};
