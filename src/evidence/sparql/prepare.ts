import { EvidenceError, type SparqlResults, type SparqlTerm } from '../types';
import { emulateLabelService, HELPER_PREFIX } from './label-service';
import { WDQS_PREFIXES } from './prefixes';
import { checkLimits } from './limits';
import { checkQuery, declaredPrefixes, type QueryForm } from './safety';
import { isWord, significant, tokenize, type Token } from './tokenize';

export interface PrepareOptions {
  /** Rewrite WDQS-only features (predefined prefixes, label service, query hints) for a plain SPARQL engine. */
  emulateWdqs: boolean;
  /** Row cap: added as LIMIT when missing, and lowers a larger LIMIT. */
  maxRows: number;
}

export interface PreparedQuery {
  form: QueryForm;
  text: string;
  /** Rows the query asks for at most (its outer LIMIT after capping); an endpoint that sends more is cut to it. */
  rows?: number;
}

const lex = (query: string): Token[] => {
  try {
    return tokenize(query);
  } catch (err) {
    throw new EvidenceError(`SPARQL syntax error: ${(err as Error).message}`, 'syntax');
  }
};

/** Blazegraph query hints (`hint:Query hint:optimizer "None" .`) mean nothing elsewhere and would match no triple. */
const stripHints = (query: string): string => {
  const sig = significant(lex(query));
  const cuts: [number, number][] = [];
  for (let i = 0; i < sig.length; i++) {
    const prev = sig[i - 1]?.text;
    if (sig[i].type !== 'pname' || !sig[i].text.startsWith('hint:') || !(prev === '{' || prev === '.' || prev === '}')) continue;
    let j = i;
    while (j < sig.length && sig[j].text !== '.' && sig[j].text !== '}') j++;
    cuts.push([sig[i].start, sig[j]?.text === '.' ? sig[j].end : (sig[j]?.start ?? query.length)]);
    i = j;
  }
  let out = query;
  for (const [a, b] of cuts.reverse()) out = out.slice(0, a) + out.slice(b);
  return out;
};

/** Adds `LIMIT maxRows` to the outermost query when it has none, and lowers a larger one. Subquery limits are left alone. */
export const capLimit = (query: string, maxRows: number): string => cappedLimit(query, maxRows).text;

/** `capLimit`, with the outer LIMIT the query then has: at most that many rows are wanted. */
const cappedLimit = (query: string, maxRows: number): { text: string; limit: number } => {
  const sig = significant(lex(query));
  let depth = 0;
  let valuesAt = -1;
  let seenGroup = false;
  for (let i = 0; i < sig.length; i++) {
    const t = sig[i];
    if (t.text === '{') depth++;
    else if (t.text === '}') {
      depth--;
      if (depth === 0) seenGroup = true;
    } else if (depth === 0 && seenGroup && isWord(t, 'LIMIT')) {
      const n = sig[i + 1];
      if (n?.type !== 'number') throw new EvidenceError('LIMIT must be followed by a number.', 'syntax');
      if (Number(n.text) <= maxRows) return { text: query, limit: Number(n.text) };
      return { text: `${query.slice(0, n.start)}${maxRows}${query.slice(n.end)}`, limit: maxRows };
    } else if (depth === 0 && seenGroup && isWord(t, 'VALUES') && valuesAt < 0) valuesAt = t.start;
  }
  if (valuesAt >= 0) return { text: `${query.slice(0, valuesAt)}LIMIT ${maxRows}\n${query.slice(valuesAt)}`, limit: maxRows };
  // A newline first, so a trailing `# comment` cannot swallow the LIMIT.
  return { text: `${query}\nLIMIT ${maxRows}`, limit: maxRows };
};

/** Declares the WDQS prefixes that the query uses without declaring them. */
export const addPrefixes = (query: string): string => {
  const sig = significant(lex(query));
  const declared = declaredPrefixes(sig);
  const used = new Set(sig.filter((t) => t.type === 'pname').map((t) => t.text.slice(0, t.text.indexOf(':'))));
  const lines = [...used].filter((p) => !declared.has(p) && WDQS_PREFIXES[p]).map((p) => `PREFIX ${p}: <${WDQS_PREFIXES[p]}>`);
  return lines.length ? `${lines.join('\n')}\n${query}` : query;
};

/**
 * Turns untrusted model-written SPARQL into a query that is safe to run: size and nesting limits, read-only forms
 * only, SERVICE only for the label service, a row cap, and (for the static store) the WDQS conveniences. Throws EvidenceError with a message the
 * agent can act on.
 */
export const prepareQuery = (query: string, options: PrepareOptions): PreparedQuery => {
  const tokens = lex(query);
  checkLimits(query, significant(tokens));
  const form = checkQuery(tokens);
  let text = query;
  if (options.emulateWdqs) text = addPrefixes(emulateLabelService(stripHints(text)));
  if (form !== 'SELECT') return { form, text };
  const capped = cappedLimit(text, options.maxRows);
  return { form, text: capped.text, rows: capped.limit };
};

const isTerm = (t: unknown): t is SparqlTerm => !!t && typeof t === 'object' && typeof (t as SparqlTerm).type === 'string' && typeof (t as SparqlTerm).value === 'string';

/**
 * Drops emulation helper variables, keeps at most `maxRows` rows (the query's LIMIT: an endpoint that ignores it must
 * not fill an observation) and trims rows until the JSON fits the byte cap. Only the kept rows are looked at; a value
 * that is not a SPARQL term (`{type, value}`) is left out of its row.
 */
export const finishResults = (results: SparqlResults, maxBytes: number, maxRows = Infinity): SparqlResults => {
  if (!('results' in results)) return results;
  const vars = results.head.vars.filter((v) => typeof v === 'string' && !v.startsWith(HELPER_PREFIX));
  const rows = results.results.bindings;
  const kept: Record<string, SparqlTerm>[] = [];
  let size = 0;
  let overBytes = false;
  for (let i = 0; i < rows.length && kept.length < maxRows; i++) {
    const row = rows[i] ?? {};
    const out: Record<string, SparqlTerm> = {};
    for (const v of vars) if (isTerm(row[v])) out[v] = row[v];
    size += JSON.stringify(out).length + 1;
    if ((overBytes = size > maxBytes)) break;
    kept.push(out);
  }
  const finished: SparqlResults = { head: { vars }, results: { bindings: kept } };
  // Rows past the LIMIT were never asked for; only rows dropped for size are a cut the reader must hear of.
  if (overBytes) finished.truncated = true;
  return finished;
};
