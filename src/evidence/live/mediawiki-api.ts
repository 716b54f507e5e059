import type { Page, PageSection, SearchHit } from '../types';
import { processPage } from '../../web';
import type { Expect, LiveHttp } from './http';

/**
 * The MediaWiki Action API of the live evidence (search, pages, a page's Wikidata item), with every answer cut to
 * what a run reads before anything reads it.
 */

export interface MediaWikiOptions {
  /** The API's URL (api.php). */
  api: string;
  /** Tables kept per page. */
  maxTables: number;
  /** Seconds of replication lag past which MediaWiki should refuse; 0 or absent sends none. */
  maxlag?: number;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };
const stripHtml = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#?\w+);/g, (m, e: string) => ENTITIES[e] ?? (e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1)) || 32) : m))
    .replace(/\s+/g, ' ')
    .trim();

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

export const mediaWikiApi = (http: LiveHttp, o: MediaWikiOptions) => {
  const wikiBase = `${new URL(o.api).origin}/wiki/`;
  const pageUrl = (title: string) => wikiBase + encodeURIComponent(title.replace(/ /g, '_'));
  // Non-interactive clients are asked to send maxlag, so a lagging wiki sheds them first.
  const lag: Record<string, string> = o.maxlag ? { maxlag: String(o.maxlag) } : {};

  // Each call names the member its answer must have: a MediaWiki `error` body or another shape is an error, never cached.
  const mw = (params: Record<string, string>, expect: Expect) => {
    const url = new URL(o.api);
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
      return processPage(html, { maxTables: o.maxTables }).tables.map((t) => t.markdown);
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError') throw err;
      return [];
    }
  };

  return {
    async search(query: string, limit = 5): Promise<SearchHit[]> {
      const asked = Math.min(Math.max(1, limit), 20);
      const data = (await mw({ action: 'query', list: 'search', srsearch: query, srlimit: String(asked), srprop: 'snippet' }, 'query')) as { query?: { search?: unknown } };
      return searchHits(data.query?.search, asked).map((h) => ({ ...h, url: pageUrl(h.title) }));
    },
    async page(title: string): Promise<Page | null> {
      const p = await queryPage(title, { prop: 'extracts|pageprops', explaintext: '1', exsectionformat: 'wiki', ppprop: 'wikibase_item' });
      if (!p) return null;
      const tables = await pageTables(p.title);
      return { title: p.title, url: pageUrl(p.title), wikidataId: p.pageprops?.wikibase_item, sections: splitExtract(p.extract ?? ''), tables };
    },
    /** The Wikidata item of a page, by its title. */
    async pageItem(title: string): Promise<string | null> {
      const p = await queryPage(title, { prop: 'pageprops', ppprop: 'wikibase_item' });
      return p?.pageprops?.wikibase_item ?? null;
    },
  };
};
