import { parseRetryAfter, retrying } from '../../net/retry';
import { fetchFailure } from './fetch-error';

/** The run JSON of ARCHITECTURE.md §2, as far as the harness reads it. */
export interface RunJson {
  runId?: string;
  answer?: string | null;
  answers?: Record<string, unknown> | null;
  /** The Wikidata entities behind the answer. */
  entities?: { id: string; label?: string }[];
  sources?: unknown[];
  confidence?: string;
  agreementSources?: string[];
  citations?: { source: string; key: string; kind: string; url?: string; quote?: string; verified: boolean; support?: 'supports' | 'mentions'; supportBy?: 'model' }[];
  steps?: unknown[];
  usage?: Record<string, unknown>;
  timings?: Record<string, unknown>;
  status?: string;
  /** The mode the service ran (its variant's default when the request named none). */
  mode?: string;
  error?: unknown;
}

export interface AnswerRequest {
  question: string;
  variant?: string;
  mode?: string;
  context?: unknown;
  options?: Record<string, unknown>;
}

export type CallOutcome =
  | { ok: true; run: RunJson; attempts: number; ms: number }
  | { ok: false; error: string; status?: number; attempts: number; ms: number };

export interface ClientOptions {
  apiKey?: string;
  /** Attempts after the first on 429, 5xx and network errors. */
  retries?: number;
  /** Base backoff; doubled per attempt, Retry-After honoured up to 30 s. */
  backoffMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * Sent as `Idempotency-Key`: a retry, or the same question asked again by `--resume`, attaches to the run the first
   * request started instead of starting (and paying for) another (docs/API.md, "Retrying safely").
   */
  idempotencyKey?: string;
}

const retryable = (status: number) => status === 429 || status >= 500;

/** Reads the service's `{error: {code, message}}`, or the first bytes of anything else. */
export const describeError = (status: number, body: string): string => {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: string; message?: string } };
    if (parsed.error) return `HTTP ${status} ${parsed.error.code ?? ''}: ${parsed.error.message ?? ''}`.trim();
  } catch {
    // not JSON
  }
  return `HTTP ${status}: ${body.slice(0, 200)}`;
};

/** POSTs one question to `<url>/v1/answer` and waits for the finished run as JSON. */
export const postAnswer = async (baseUrl: string, body: AnswerRequest, opts: ClientOptions = {}): Promise<CallOutcome> => {
  const doFetch = opts.fetch ?? fetch;
  const retries = opts.retries ?? 2;
  const backoff = opts.backoffMs ?? 1000;
  const url = `${baseUrl.replace(/\/+$/, '')}/v1/answer`;
  const started = Date.now();
  let attempts = 0;
  const attempt = async () => {
    attempts++;
    const res = await doFetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
        ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 600_000),
    });
    return { res, text: await res.text() };
  };
  try {
    const { res, text } = await retrying(attempt, {
      retries,
      retryIn: (outcome, n) => {
        if (outcome.ok && (outcome.value.res.ok || !retryable(outcome.value.res.status))) return undefined;
        const after = outcome.ok ? parseRetryAfter(outcome.value.res.headers.get('retry-after')) : undefined;
        return after ? Math.min(after, 30_000) : backoff * 2 ** n;
      },
    });
    const ms = Date.now() - started;
    if (!res.ok) return { ok: false, error: describeError(res.status, text), status: res.status, attempts, ms };
    try {
      return { ok: true, run: JSON.parse(text) as RunJson, attempts, ms };
    } catch {
      return { ok: false, error: `response is not JSON: ${text.slice(0, 200)}`, status: res.status, attempts, ms };
    }
  } catch (e) {
    return { ok: false, error: `request failed: ${fetchFailure(e)}`, attempts, ms: Date.now() - started };
  }
};
