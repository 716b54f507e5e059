/** The run JSON of ARCHITECTURE.md §2, as far as the harness reads it. */
export interface RunJson {
  runId?: string;
  answer?: string | null;
  answers?: Record<string, unknown> | null;
  /** The Wikidata entities behind the answer. */
  entities?: { id: string; label?: string }[];
  sources?: unknown[];
  confidence?: string;
  steps?: unknown[];
  usage?: Record<string, unknown>;
  timings?: Record<string, unknown>;
  status?: string;
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
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const retryable = (status: number) => status === 429 || status >= 500;

/** Reads the service's `{error: {code, message}}`, or the first bytes of anything else. */
const describeError = (status: number, body: string): string => {
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
  let last: { error: string; status?: number } = { error: 'not attempted' };
  for (let attempt = 0; attempt <= retries; attempt++) {
    let wait = backoff * 2 ** attempt;
    try {
      const res = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 600_000),
      });
      const text = await res.text();
      if (res.ok) {
        try {
          return { ok: true, run: JSON.parse(text) as RunJson, attempts: attempt + 1, ms: Date.now() - started };
        } catch {
          return { ok: false, error: `response is not JSON: ${text.slice(0, 200)}`, status: res.status, attempts: attempt + 1, ms: Date.now() - started };
        }
      }
      last = { error: describeError(res.status, text), status: res.status };
      if (!retryable(res.status)) break;
      const after = Number(res.headers.get('retry-after'));
      if (Number.isFinite(after) && after > 0) wait = Math.min(after * 1000, 30_000);
    } catch (e) {
      last = { error: `request failed: ${(e as Error).message}` };
    }
    if (attempt < retries) await sleep(wait);
  }
  return { ok: false, ...last, attempts: retries + 1, ms: Date.now() - started };
};
