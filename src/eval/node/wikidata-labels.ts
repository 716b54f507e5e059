/// <reference types="node" />
import { CAPS, readJsonFile } from './input-files';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { missingFromTable, type QaldLabelTable } from '../metrics/qald-labels';

export const DEFAULT_WIKIDATA_API = 'https://www.wikidata.org/w/api.php';
/** The file beside predictions.jsonl that holds the names of the gold entities. */
export const LABELS_FILE = 'qald-labels.json';

const BATCH = 50; // wbgetentities accepts at most 50 ids per request
const MAX_IDS = 20_000;
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
const TIMEOUT_MS = 15_000;
const USER_AGENT = 'humaniq-answers-eval/0.1 (QALD scorer; label table of gold entities)';

interface EntityDoc {
  id?: string;
  missing?: string;
  labels?: Record<string, { value: string }>;
  aliases?: Record<string, { value: string }[]>;
  redirects?: { from?: string; to?: string };
}

export const readLabelTable = (path: string): QaldLabelTable | undefined => {
  if (!existsSync(path)) return undefined;
  const doc = readJsonFile(path, CAPS.json, 'label table') as QaldLabelTable;
  if (!doc || typeof doc.entities !== 'object' || doc.entities === null) throw new Error(`${path} is not a label table (no "entities" object)`);
  return doc;
};

const getJson = async (url: URL, doFetch: typeof fetch): Promise<unknown> => {
  // Offline, fetch says only "fetch failed": name the endpoint and the cause, and the way to go on without it.
  const res = await doFetch(url, { headers: { 'user-agent': USER_AGENT, accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) }).catch((err: unknown) => {
    const cause = err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
    throw new Error(`could not reach ${url.origin}${url.pathname} for the QALD label table: ${cause}; pass --wikidata-api <a reachable api.php>, or --wikidata-api none to use only the cached table`);
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url.origin}${url.pathname} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
  if (text.length > MAX_RESPONSE_BYTES) throw new Error(`${url.origin}${url.pathname} sent more than ${MAX_RESPONSE_BYTES} bytes`);
  return JSON.parse(text);
};

/**
 * Fills `table` with the label and aliases of every id in `language` from a Wikibase API
 * (`action=wbgetentities`), 50 ids per request. Ids already in the table are not fetched again; an id
 * the API does not know, or that has no name in that language, is stored with an empty list.
 * A redirected id gets the names of its target.
 */
export const fetchLabels = async (
  table: QaldLabelTable,
  ids: readonly string[],
  language: string,
  opts: { api?: string; fetch?: typeof fetch } = {},
): Promise<{ fetched: number; requests: number }> => {
  const api = opts.api ?? DEFAULT_WIKIDATA_API;
  const todo = missingFromTable(table, ids, language).slice(0, MAX_IDS);
  let requests = 0;
  for (let i = 0; i < todo.length; i += BATCH) {
    const batch = todo.slice(i, i + BATCH);
    const url = new URL(api);
    const params = { action: 'wbgetentities', ids: batch.join('|'), props: 'labels|aliases', languages: language, redirects: 'yes', format: 'json' };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const data = (await getJson(url, opts.fetch ?? fetch)) as { entities?: Record<string, EntityDoc>; error?: { info?: string } };
    requests++;
    if (data.error) throw new Error(`wbgetentities refused: ${data.error.info ?? 'unknown error'}`);
    const byId = new Map<string, EntityDoc>();
    // A redirected id comes back as its target, with the requested id under `redirects.from`.
    for (const [key, e] of Object.entries(data.entities ?? {})) byId.set(e.redirects?.from ?? key, e);
    for (const id of batch) {
      const e = byId.get(id);
      const names: string[] = [];
      if (e && e.missing === undefined) {
        const label = e.labels?.[language]?.value;
        if (label) names.push(label);
        for (const a of e.aliases?.[language] ?? []) if (a.value && !names.includes(a.value)) names.push(a.value);
      }
      (table.entities[id] ??= {})[language] = names;
    }
  }
  if (todo.length) {
    table.api = api;
    table.fetchedAt = new Date().toISOString();
  }
  return { fetched: todo.length, requests };
};

export const writeLabelTable = (path: string, table: QaldLabelTable) => writeFileSync(path, `${JSON.stringify(table, null, 1)}\n`);
