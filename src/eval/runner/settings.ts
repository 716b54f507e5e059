import type { AnswerRequest } from './client';
import { describeError } from './client';
import { fetchFailure } from './fetch-error';

/** What GET /v1/config answered for one evaluation: the service's settings and the options its runs resolve to. */
export interface SettingsRecord {
  settings: Record<string, unknown> | null;
  resolvedOptions: Record<string, unknown> | null;
  /** Why there is no record (a service older than the route), for a note. */
  note?: string;
}

/**
 * Asks the service how it is set up and what options the evaluation's requests resolve to. A service without the
 * route (404) or that cannot say yields an empty record and a note (the note goes into metrics.json), never a failed
 * evaluation: the questions are what was asked for.
 */
export const fetchSettings = async (
  baseUrl: string,
  body: Pick<AnswerRequest, 'variant' | 'mode' | 'options'>,
  o: { apiKey?: string; fetch?: typeof fetch } = {},
): Promise<SettingsRecord> => {
  const query = new URLSearchParams();
  if (body.variant) query.set('variant', body.variant);
  if (body.mode) query.set('mode', body.mode);
  // Always options (`{}` when none), so the document resolves them even for the service's default variant and mode.
  query.set('options', JSON.stringify(body.options ?? {}));
  const url = `${baseUrl.replace(/\/+$/, '')}/v1/config?${query}`;
  const none = (why: string): SettingsRecord => ({ settings: null, resolvedOptions: null, note: `the manifest does not record the service's settings: ${why}` });
  let res: Response;
  try {
    res = await (o.fetch ?? fetch)(url, { headers: o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}, signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    return none(`GET /v1/config failed: ${fetchFailure(e)}`);
  }
  const text = await res.text();
  if (res.status === 404) return none('the service has no GET /v1/config (it is older than the settings document)');
  if (!res.ok) return none(`GET /v1/config: ${describeError(res.status, text)}`);
  let doc: Record<string, unknown> & { resolved?: { options?: Record<string, unknown> } };
  try {
    doc = JSON.parse(text);
  } catch {
    return none('GET /v1/config did not answer JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return none('GET /v1/config did not answer a JSON object');
  const { resolved, ...settings } = doc;
  return { settings, resolvedOptions: resolved?.options ?? null };
};
