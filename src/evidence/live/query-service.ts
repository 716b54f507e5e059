import { finishResults, prepareQuery } from '../sparql/prepare';
import { EvidenceError, type SparqlResults } from '../types';
import type { LiveHttp } from './http';

/** The shape SPARQL results must have before anything reads them: an ASK's boolean, or vars and a list of rows. */
const isResults = (data: unknown): data is SparqlResults => {
  if (!data || typeof data !== 'object' || !('head' in data)) return false;
  if ('boolean' in data) return typeof data.boolean === 'boolean';
  const { head, results } = data as { head?: { vars?: unknown }; results?: { bindings?: unknown } };
  return Array.isArray(head?.vars) && Array.isArray(results?.bindings);
};

/** A query past this length goes as a POST form: it would be too long for a URL. */
const MAX_GET_QUERY_CHARS = 6_000;

/**
 * A SPARQL query through the query service at `endpoint` (WDQS or a mirror), checked by the same safety rules as the
 * static store first; the results are cut to `maxRows` rows and `maxBytes` before anything reads them.
 */
export const queryService = (http: LiveHttp, o: { endpoint: string; maxRows: number; maxBytes: number }) => async (query: string): Promise<SparqlResults> => {
  const prepared = prepareQuery(query, { emulateWdqs: false, maxRows: o.maxRows });
  const url = new URL(o.endpoint);
  const accept = 'application/sparql-results+json';
  let data: unknown;
  if (prepared.text.length < MAX_GET_QUERY_CHARS) {
    url.searchParams.set('query', prepared.text);
    url.searchParams.set('format', 'json');
    data = await http.getJson(url, accept, 'sparql');
  } else data = await http.postFormJson(url, { query: prepared.text, format: 'json' }, accept, 'sparql');
  if (!isResults(data)) throw new EvidenceError('The query service sent no SPARQL results.', 'upstream');
  return finishResults(data, o.maxBytes, prepared.rows);
};
