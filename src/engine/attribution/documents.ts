import type { EvidenceRecord } from '../../evidence/recording';
import type { EntityLabel, Page, PropertyUse, SearchHit, SparqlResults } from '../../evidence/types';
import { entityIdOf } from '../../evidence/shared/entities';

/**
 * A record of the run's evidence as the attribution layer reads it: short segments (a sentence, a table cell, a
 * query row, a search hit), each with the span to quote and the link to give when the answer is found there.
 */
export interface Segment {
  text: string;
  /** What to quote when the answer is found in `text` (a table cell quotes its row); default `text`. */
  quote?: string;
  url?: string;
  /** A yes/no fact (a SPARQL ASK result): the only kind of segment a yes/no answer can be verified in. */
  truth?: 'yes' | 'no';
  /** The title of what this segment comes from, where a record holds several (a search hit's page). */
  title?: string;
  /** A table cell: its row (what program mode's reads name). */
  row?: number;
}

export interface EvidenceDocument {
  key: string;
  /** What kind of evidence: wikipedia, search, wikidata, kg, table, passage, web. */
  kind: string;
  url?: string;
  segments: Segment[];
  /** What the record is about, when it is one page: its title (a support grade reads it, ./support.ts). */
  title?: string;
  /** Wikidata ids the request named (a SPARQL query's items, the entity whose statements were listed). */
  queryIds?: string[];
  /** Names the request gave (a CRAG KG call's arguments). */
  queryNames?: string[];
}

/** Bounds for hostile evidence: a 4 MB page is read up to here, and no segment is longer than a paragraph. */
const MAX_DOCUMENT_CHARS = 1_000_000;
const MAX_SEGMENT_CHARS = 600;
const MAX_SEGMENTS = 20_000;

const WIKIDATA = 'https://www.wikidata.org/wiki/';
const wikidataUrl = (id: string) => `${WIKIDATA}${id.startsWith('P') ? `Property:${id}` : id}`;

/** Sentences and lines of prose, long ones cut, so a quote stays short. */
export const proseSegments = (text: string, url?: string): Segment[] => {
  const out: Segment[] = [];
  const body = text.length > MAX_DOCUMENT_CHARS ? text.slice(0, MAX_DOCUMENT_CHARS) : text;
  for (const line of body.split(/\n+/)) {
    for (const sentence of line.split(/(?<=[.!?])\s+(?=[A-Z0-9"“(])/)) {
      const s = sentence.trim();
      for (let i = 0; i < s.length && out.length < MAX_SEGMENTS; i += MAX_SEGMENT_CHARS) out.push({ text: s.slice(i, i + MAX_SEGMENT_CHARS), url });
    }
  }
  return out;
};

/** A markdown table: one segment per cell, each quoting its row. */
export const markdownTableSegments = (table: string, url?: string): Segment[] =>
  table
    .split('\n')
    .filter((l) => l.includes('|') && !/^\s*\|?\s*:?-{2,}/.test(l))
    .flatMap((row) => {
      const quote = row.trim().slice(0, MAX_SEGMENT_CHARS);
      return row.split('|').map((c) => c.trim()).filter(Boolean).map((cell) => ({ text: cell, quote, url }));
    });

const sparqlSegments = (body: SparqlResults, labels: ReadonlyMap<string, string>): Segment[] => {
  if (!('results' in body)) return [{ text: `ASK result: ${body.boolean ? 'yes' : 'no'}`, truth: body.boolean ? 'yes' : 'no' }];
  return body.results.bindings.slice(0, MAX_SEGMENTS).map((row) => {
    let url: string | undefined;
    const cells = Object.entries(row).map(([v, term]) => {
      const id = entityIdOf(term);
      if (!id) return `${v}: ${term.value.replace(/T00:00:00Z$/, '')}`;
      url ??= wikidataUrl(id);
      return labels.has(id) ? `${v}: ${id} (${labels.get(id)})` : `${v}: ${id}`;
    });
    return { text: cells.join(' | ').slice(0, MAX_SEGMENT_CHARS), url };
  });
};

const MAX_QUERY_NAMES = 20;

/** The Q-ids a SPARQL query names (`wd:Q42`, `<http://www.wikidata.org/entity/Q42>`). */
const idsIn = (text: string): string[] => [...new Set(text.match(/(?<![A-Za-z0-9])Q\d{1,12}(?!\d)/g) ?? [])].slice(0, MAX_QUERY_NAMES);

/** The text arguments of a KG call (`{movie_name: "Inception"}`, lists of names too). */
const namesIn = (args: Record<string, unknown>): string[] =>
  Object.values(args)
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    .slice(0, MAX_QUERY_NAMES);

const KINDS: Record<string, string> = { search: 'search', page: 'wikipedia', wikidataId: 'wikidata', sparql: 'wikidata', labels: 'wikidata', properties: 'wikidata' };

/** A recorded request → response as segments; a recorded error holds no evidence. */
export const recordDocument = (record: EvidenceRecord, labels: ReadonlyMap<string, string>): EvidenceDocument | undefined => {
  const { request, response } = record;
  if (!('body' in response) || response.body === null) return undefined;
  const body = response.body;
  if (request.source === 'kg') {
    return { key: record.key, kind: 'kg', segments: proseSegments(typeof body === 'string' ? body : JSON.stringify(body)), queryNames: namesIn(request.args) };
  }
  // A support verdict (./support-check.ts) is no evidence: it is read as such by the book, never cited.
  if (request.source !== 'evidence') return undefined;
  const doc = (segments: Segment[], url?: string, about: Partial<EvidenceDocument> = {}): EvidenceDocument => ({ key: record.key, kind: KINDS[request.method] ?? 'evidence', url, segments, ...about });
  switch (request.method) {
    case 'search':
      return doc((body as SearchHit[]).map((h) => ({ text: `${h.title} — ${h.snippet}`.slice(0, MAX_SEGMENT_CHARS), url: h.url, title: h.title })));
    case 'page': {
      const page = body as Page;
      const prose = page.sections.map((s) => `${s.heading}\n${s.text}`).join('\n');
      return doc([...proseSegments(`${page.title}\n${prose}`, page.url), ...page.tables.flatMap((t) => markdownTableSegments(t, page.url))], page.url, { title: page.title });
    }
    case 'wikidataId': {
      const id = String(body);
      return doc([{ text: `${String(request.args[0])}: ${id}`, url: wikidataUrl(id) }], wikidataUrl(id));
    }
    case 'sparql':
      return doc(sparqlSegments(body as SparqlResults, labels), undefined, { queryIds: idsIn(String(request.args[0] ?? '')) });
    case 'labels':
      return doc((body as EntityLabel[]).filter((l) => l.label).map((l) => ({ text: `${l.id}: ${l.label}${l.description ? ` — ${l.description}` : ''}`, url: wikidataUrl(l.id) })));
    case 'properties': {
      // The statements of one entity: they link to that entity.
      const url = wikidataUrl(String(request.args[0]));
      return doc((body as PropertyUse[]).map((p) => ({ text: `${p.property} (${p.label ?? ''}): ${p.examples.join(', ')}`.slice(0, MAX_SEGMENT_CHARS), url })), url, {
        queryIds: [String(request.args[0])],
      });
    }
  }
};

/** Labels the run learnt for Wikidata ids: from labels responses, and the item a page title led to. */
export const labelsOf = (records: Iterable<EvidenceRecord>): Map<string, string> => {
  const labels = new Map<string, string>();
  for (const r of records) {
    if (r.request.source !== 'evidence' || !('body' in r.response)) continue;
    if (r.request.method === 'labels' && Array.isArray(r.response.body)) {
      for (const l of r.response.body as EntityLabel[]) if (l.label) labels.set(l.id, l.label);
    } else if (r.request.method === 'wikidataId' && typeof r.response.body === 'string' && !labels.has(r.response.body)) {
      labels.set(r.response.body, String(r.request.args[0]));
    }
  }
  return labels;
};
