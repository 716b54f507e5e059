import { describeError, type AnswerRequest } from './client';
import { fetchFailure } from './fetch-error';

/** What the service said about itself before the first question: recorded in the manifest. */
export interface ServiceInfo {
  url: string;
  version: string;
  commit: string;
  /** The model(s) the service is configured with (`/healthz`); the manifest also names those that answered. */
  llm: { provider?: string; model?: string; byPurpose?: Record<string, string> };
  variant?: string;
  /** The mode the questions will run: the one asked for, else the variant's default. */
  mode?: string;
}

/** The service cannot take the evaluation: the message says why in words, and no question was asked. */
export class PreflightError extends Error {}

interface Health {
  llm?: { ready?: boolean; provider?: string; model?: string; byPurpose?: Record<string, string>; message?: string };
  variants?: string[];
  modes?: string[];
  defaultModes?: Record<string, string>;
  version?: string;
  commit?: string;
}

const call = async (doFetch: typeof fetch, url: string, init: RequestInit, what: string) => {
  let res: Response;
  try {
    res = await doFetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    throw new PreflightError(`cannot reach the service: ${what} failed: ${fetchFailure(e)}`);
  }
  const text = await res.text();
  return { res, text };
};

const parse = <T>(text: string, what: string): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new PreflightError(`${what} did not answer JSON (is this humaniq-answers?): ${text.slice(0, 120)}`);
  }
};

/**
 * Before the first question: `/healthz` must show a ready model and know the variant and mode, `/v1/models` must
 * list them (and accept the API key), and `POST /v1/answer/check` must accept each request shape the evaluation
 * will send (its options above all), so a dead URL, a service without a model or a misspelt option ends the
 * evaluation with the service's own words before anything is paid for or written.
 */
export const preflight = async (
  baseUrl: string,
  o: { apiKey?: string; variant?: string; mode?: string; bodies: AnswerRequest[]; fetch?: typeof fetch },
): Promise<ServiceInfo> => {
  const doFetch = o.fetch ?? fetch;
  const base = baseUrl.replace(/\/+$/, '');
  const auth: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
  const h = await call(doFetch, `${base}/healthz`, {}, `GET ${base}/healthz`);
  if (!h.res.ok) throw new PreflightError(`GET /healthz: ${describeError(h.res.status, h.text)}`);
  const health = parse<Health>(h.text, 'GET /healthz');
  if (!health.llm?.ready) throw new PreflightError(`the service has no model ready (GET /healthz llm.ready is false): ${health.llm?.message ?? 'no reason given'}`);
  if (o.variant && !health.variants?.includes(o.variant)) throw new PreflightError(`the service has no variant "${o.variant}" (it has: ${(health.variants ?? []).join(', ')})`);
  const mode = o.mode ?? (o.variant ? health.defaultModes?.[o.variant] : undefined);
  if (mode && !health.modes?.includes(mode)) throw new PreflightError(`the service has no mode "${mode}" (it has: ${(health.modes ?? []).join(', ')})`);

  const m = await call(doFetch, `${base}/v1/models`, { headers: auth }, 'GET /v1/models');
  if (!m.res.ok) throw new PreflightError(`GET /v1/models: ${describeError(m.res.status, m.text)}`);
  const ids = new Set((parse<{ data?: { id: string }[] }>(m.text, 'GET /v1/models').data ?? []).map((d) => d.id));
  const model = o.variant && mode ? `${o.variant}:${mode}` : o.variant;
  if (model && !ids.has(model)) throw new PreflightError(`GET /v1/models does not list "${model}"`);

  for (const body of o.bodies) {
    const c = await call(doFetch, `${base}/v1/answer/check`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) }, 'POST /v1/answer/check');
    // A service older than the check has no such route: the first question's answer will say the same.
    if (c.res.status === 404 && c.text.includes('no route for')) break;
    if (!c.res.ok) throw new PreflightError(`the service refuses these requests: ${describeError(c.res.status, c.text)}`);
  }
  return { url: base, version: health.version ?? 'unknown', commit: health.commit ?? 'unknown', llm: { provider: health.llm.provider, model: health.llm.model, ...(health.llm.byPurpose ? { byPurpose: health.llm.byPurpose } : {}) }, variant: o.variant, mode };
};
