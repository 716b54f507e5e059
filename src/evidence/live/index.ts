import type { Config } from '../../config';
import { propertiesOf, toEntityId } from '../shared/entities';
import { finishResults, prepareQuery } from '../sparql/prepare';
import { EvidenceError, type EntityLabel, type Evidence, type Page, type PageSection, type SparqlResults } from '../types';
import { processPage } from '../../web';
import { liveHttp, type Expect, type HttpOptions } from './http';
import { isWikimediaHost } from './wikimedia';

export const USER_AGENT = 'humaniq-answers/0.1 (factual question answering over Wikipedia and Wikidata; Cloudflare Worker)';

/**
 * Wikimedia's User-Agent policy asks for a name, a version and a way to reach the operator; WIKIMEDIA_CONTACT (an
 * e-mail address or URL, checked in src/config.ts) is that way. Without it the agent still names itself.
 * @example wikimediaUserAgent('ops@example.org') // 'humaniq-answers/0.1 (ops@example.org; factual question answering …)'
 */
export const wikimediaUserAgent = (contact?: string) => (contact ? USER_AGENT.replace('(', `(${contact}; `) : USER_AGENT);

type Endpoints = Pick<Config, 'WIKIPEDIA_API_URL' | 'WIKIDATA_SPARQL_URL' | 'WIKIDATA_API_URL'>;

/** The configured live endpoints that are Wikimedia's own services (not a mirror), by host. */
export const wikimediaHosts = (config: Endpoints): string[] =>
  [config.WIKIPEDIA_API_URL, config.WIKIDATA_SPARQL_URL, config.WIKIDATA_API_URL].map((u) => new URL(u).host).filter(isWikimediaHost);

export type LiveOptions = Partial<Omit<HttpOptions, 'endpoints'>> & {
  maxRows?: number;
  maxResultBytes?: number;
  maxTables?: number;
  /** Seconds of replication lag past which MediaWiki should refuse (and say how long to wait) instead of answering; 0 or absent sends none. */
  maxlag?: number;
};

/** Tables kept per page (a long list article has dozens; the read tool ranks what it gets against the question). */
const MAX_TABLES = 20;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };
const stripHtml = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#?\w+);/g, (m, e: string) => ENTITIES[e] ?? (e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1)) || 32) : m))
    .replace(/\s+/g, ' ')
    .trim();

/** Wikidata keeps labels and descriptions to 250 characters; a mirror's longer ones are cut there. */
const LABEL_CHARS = 250;
const shortText = (value: unknown) => (typeof value === 'string' ? value.slice(0, LABEL_CHARS) : undefined);

/** MediaWiki's titles are at most 255 bytes, its snippets a few hundred characters of HTML; longer ones are cut. */
const TITLE_CHARS = 255;
const SNIPPET_HTML_CHARS = 2_000;

/**
 * The first `asked` well-formed hits of a search answer. The list is cut here, before anything reads it: a mirror
 * answered 10,000 hits (2.5 MB) to `srlimit=5`, and all of them went into one observation.
 */
const searchHits = (list: unknown, asked: number): { title: string; snippet: string }[] => {
  const hits: { title: string; snippet: string }[] = [];
  if (!Array.isArray(list)) return hits;
  for (const h of list) {
    if (hits.length >= asked) break;
    const { title, snippet } = (h ?? {}) as { title?: unknown; snippet?: unknown };
    if (typeof title !== 'string' || !title.trim()) continue;
    hits.push({ title: title.slice(0, TITLE_CHARS), snippet: stripHtml(typeof snippet === 'string' ? snippet.slice(0, SNIPPET_HTML_CHARS) : '') });
  }
  return hits;
};

/** The shape SPARQL results must have before anything reads them: an ASK's boolean, or vars and a list of rows. */
const isResults = (data: unknown): data is SparqlResults => {
  if (!data || typeof data !== 'object' || !('head' in data)) return false;
  if ('boolean' in data) return typeof data.boolean === 'boolean';
  const { head, results } = data as { head?: { vars?: unknown }; results?: { bindings?: unknown } };
  return Array.isArray(head?.vars) && Array.isArray(results?.bindings);
};

/** `== Heading ==` lines of a plain-text extract start sections. */
export const splitExtract = (extract: string): PageSection[] => {
  const sections: PageSection[] = [];
  let cur: PageSection = { heading: '', text: '' };
  for (const line of extract.split('\n')) {
    const h = /^(={2,6})\s*(.+?)\s*\1\s*$/.exec(line);
    if (h) {
      if (cur.text.trim() || cur.heading) sections.push({ ...cur, text: cur.text.trim() });
      cur = { heading: h[2], text: '' };
    } else cur.text += `${line}\n`;
  }
  if (cur.text.trim() || cur.heading) sections.push({ ...cur, text: cur.text.trim() });
  return sections.filter((s) => s.text);
};

interface QueryPage {
  title: string;
  missing?: boolean;
  invalid?: boolean;
  extract?: string;
  pageprops?: { wikibase_item?: string };
}

/**
 * Evidence from Wikimedia (or a self-hosted mirror at the configured URLs): the MediaWiki Action API for search and
 * pages, the query service for SPARQL (checked by the same safety rules as the static store) and the entity API
 * for labels. Time cap: each request is aborted after `timeoutMs`; WDQS also stops queries itself after 60 s.
 */
export const createLiveEvidence = (config: Endpoints, options: LiveOptions = {}): Evidence => {
  const http = liveHttp({
    ...options,
    userAgent: options.userAgent ?? USER_AGENT,
    endpoints: [config.WIKIPEDIA_API_URL, config.WIKIDATA_SPARQL_URL, config.WIKIDATA_API_URL],
  });
  const maxRows = options.maxRows ?? 1000;
  const maxTables = options.maxTables ?? MAX_TABLES;
  const maxBytes = options.maxResultBytes ?? 512 * 1024;
  const wikiBase = `${new URL(config.WIKIPEDIA_API_URL).origin}/wiki/`;
  const pageUrl = (title: string) => wikiBase + encodeURIComponent(title.replace(/ /g, '_'));

  // Non-interactive clients are asked to send maxlag, so a lagging wiki sheds them first.
  const lag: Record<string, string> = options.maxlag ? { maxlag: String(options.maxlag) } : {};

  // Each call names the member its answer must have: a MediaWiki `error` body or another shape is an error, never cached.
  const mw = (params: Record<string, string>, expect: Expect) => {
    const url = new URL(config.WIKIPEDIA_API_URL);
    for (const [k, v] of Object.entries({ ...params, format: 'json', formatversion: '2', ...lag })) url.searchParams.set(k, v);
    return http.getJson(url, undefined, expect);
  };

  const queryPage = async (title: string, props: Record<string, string>): Promise<QueryPage | null> => {
    const data = (await mw({ action: 'query', titles: title.trim(), redirects: '1', ...props }, 'query')) as { query?: { pages?: QueryPage[] } };
    const page = data.query?.pages?.[0];
    return !page || page.missing || page.invalid ? null : page;
  };

  /**
   * The page's tables (infobox, lists, results) as markdown. The plain-text extract drops them, and missing tables
   * are the HQA paper's most frequent error cause, so the rendered HTML (`action=parse`) goes through the same
   * table code as web pages. Tables only add evidence: when the parse call fails, the page is read without them.
   */
  const pageTables = async (title: string): Promise<string[]> => {
    try {
      const data = (await mw({ action: 'parse', page: title, prop: 'text', redirects: '1', disableeditsection: '1', disabletoc: '1' }, 'parse')) as {
        parse?: { text?: unknown };
      };
      const html = data.parse?.text;
      if (typeof html !== 'string' || !html) return [];
      return processPage(html, { maxTables: maxTables }).tables.map((t) => t.markdown);
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError') throw err;
      return [];
    }
  };

  const evidence: Evidence = {
    kind: 'live',
    async search(query, limit = 5) {
      const asked = Math.min(Math.max(1, limit), 20);
      const data = (await mw({ action: 'query', list: 'search', srsearch: query, srlimit: String(asked), srprop: 'snippet' }, 'query')) as { query?: { search?: unknown } };
      return searchHits(data.query?.search, asked).map((h) => ({ ...h, url: pageUrl(h.title) }));
    },
    async page(title): Promise<Page | null> {
      const p = await queryPage(title, { prop: 'extracts|pageprops', explaintext: '1', exsectionformat: 'wiki', ppprop: 'wikibase_item' });
      if (!p) return null;
      const tables = await pageTables(p.title);
      return { title: p.title, url: pageUrl(p.title), wikidataId: p.pageprops?.wikibase_item, sections: splitExtract(p.extract ?? ''), tables };
    },
    async wikidataId(title) {
      const direct = toEntityId(title);
      if (direct) return direct;
      const p = await queryPage(title, { prop: 'pageprops', ppprop: 'wikibase_item' });
      return p?.pageprops?.wikibase_item ?? null;
    },
    async sparql(query) {
      const prepared = prepareQuery(query, { emulateWdqs: false, maxRows });
      const url = new URL(config.WIKIDATA_SPARQL_URL);
      const accept = 'application/sparql-results+json';
      let data: unknown;
      if (prepared.text.length < 6_000) {
        url.searchParams.set('query', prepared.text);
        url.searchParams.set('format', 'json');
        data = await http.getJson(url, accept, 'sparql');
      } else data = await http.postFormJson(url, { query: prepared.text, format: 'json' }, accept, 'sparql');
      if (!isResults(data)) throw new EvidenceError('The query service sent no SPARQL results.', 'upstream');
      return finishResults(data, maxBytes, prepared.rows);
    },
    async labels(ids, language = 'en') {
      const clean = [...new Set(ids.map(toEntityId).filter((x): x is string => !!x))].slice(0, 200);
      const found = new Map<string, EntityLabel>();
      for (let i = 0; i < clean.length; i += 50) {
        const url = new URL(config.WIKIDATA_API_URL);
        const params = { action: 'wbgetentities', ids: clean.slice(i, i + 50).join('|'), props: 'labels|descriptions', languages: language, format: 'json', ...lag };
        for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
        const data = (await http.getJson(url, undefined, 'entities')) as {
          entities?: Record<string, { missing?: string; labels?: Record<string, { value: string }>; descriptions?: Record<string, { value: string }> }>;
        };
        // Only the entities asked for, however many came: a mirror may add thousands.
        for (const id of clean.slice(i, i + 50)) {
          const e = data.entities?.[id];
          if (!e || typeof e !== 'object' || e.missing !== undefined) continue;
          found.set(id, { id, label: shortText(e.labels?.[language]?.value), description: shortText(e.descriptions?.[language]?.value) });
        }
      }
      return clean.map((id) => found.get(id) ?? { id });
    },
    properties: (id, limit) => propertiesOf(evidence, id, limit),
    async health() {
      return { checked: false, message: 'live endpoints are not probed by /healthz; each request to them has a timeout and fails as a tool error' };
    },
  };
  return evidence;
};
