import { chunkSentences, DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from './chunk';
import { decodeHtml, DEFAULT_MAX_HTML_CHARS, type HtmlInput } from './decode';
import { extract, extractAsync, type Extracted, type ExtractOptions } from './extract';
import type { TreeReport } from './tree-builder';
import { splitSentences } from './sentences';
import type { MarkdownTable, TableOptions } from './table';

export interface PageOptions {
  maxHtmlChars: number;
  maxTables: number;
  maxChunks: number;
  chunk: Partial<ChunkOptions>;
  table: Partial<TableOptions>;
  maxLinkDensity: number;
  /** Tags nested deeper than this are ignored, their text kept (browsers cap their trees too). */
  maxDepth: number;
  /** Work units per page (characters plus a fixed cost per tag); where they run out the page is cut. */
  maxWork: number;
}

export const DEFAULT_PAGE_OPTIONS: PageOptions = {
  maxHtmlChars: DEFAULT_MAX_HTML_CHARS,
  maxTables: 50,
  maxChunks: 3000,
  chunk: DEFAULT_CHUNK_OPTIONS,
  table: {},
  maxLinkDensity: 0.6,
  maxDepth: 256,
  // Two units per character of the largest page allowed: real pages use about one per character (the 25 CRAG
  // pages: at most 1.08), tag soup up to about three, so only hostile markup is cut, near the size of a full page.
  maxWork: 2 * DEFAULT_MAX_HTML_CHARS,
};

export interface ProcessedPage {
  title: string;
  /** Main text, one block per line. */
  text: string;
  chunks: string[];
  tables: MarkdownTable[];
  /** What was cut or flattened, in words for the reader of the evidence; empty for an ordinary page. */
  notes: string[];
}

const notesOf = (report: TreeReport, length: number, o: PageOptions): string[] => {
  const notes: string[] = [];
  if (report.cutAt !== undefined) {
    const pct = Math.round((100 * report.cutAt) / Math.max(1, length));
    notes.push(`page truncated: its processing budget ran out after ${pct}% of the page; text after that point was not read`);
  }
  if (report.dropped > 0) notes.push(`page nested deeper than ${o.maxDepth} elements: ${report.dropped} deeper tags were ignored (their text was kept)`);
  return notes;
};

/**
 * A web page (string or bytes, any size, any state of repair) → title, main text, chunks and markdown tables.
 * Never throws: what cannot be read yields empty lists.
 * @example processPage('<h1>Hi</h1><p>One. Two.</p>').chunks // ['Hi One. Two.']
 */
export const processPage = (input: HtmlInput, options: Partial<PageOptions> = {}): ProcessedPage => {
  const o = { ...DEFAULT_PAGE_OPTIONS, ...options };
  try {
    const html = decodeHtml(input, o.maxHtmlChars);
    if (!html.trim()) return EMPTY_PAGE();
    const base = baseOptions(o);
    let ex = extract(html, { ...base, classHeuristics: true });
    if (readAgain(ex)) ex = extract(html, { ...base, classHeuristics: false });
    return finishPage(ex, html.length, o);
  } catch {
    // The tokenizer is forgiving, but a page must never take the run down with it.
    return UNREADABLE_PAGE();
  }
};

/**
 * `processPage` for a server: the same result, but the event loop gets a turn after every slice of the page,
 * so other requests on the isolate (a health check, another run) are not held up by a large page.
 */
export const processPageAsync = async (input: HtmlInput, options: Partial<PageOptions> = {}): Promise<ProcessedPage> => {
  const o = { ...DEFAULT_PAGE_OPTIONS, ...options };
  try {
    const html = decodeHtml(input, o.maxHtmlChars);
    if (!html.trim()) return EMPTY_PAGE();
    const base = baseOptions(o);
    let ex = await extractAsync(html, { ...base, classHeuristics: true });
    if (readAgain(ex)) ex = await extractAsync(html, { ...base, classHeuristics: false });
    return finishPage(ex, html.length, o);
  } catch {
    return UNREADABLE_PAGE();
  }
};

const EMPTY_PAGE = (): ProcessedPage => ({ title: '', text: '', chunks: [], tables: [], notes: [] });
const UNREADABLE_PAGE = (): ProcessedPage => ({ title: '', text: '', chunks: [], tables: [], notes: ['page could not be read'] });

const baseOptions = (o: PageOptions): Omit<ExtractOptions, 'classHeuristics'> => ({
  table: o.table,
  maxTables: o.maxTables,
  maxLinkDensity: o.maxLinkDensity,
  limits: { maxDepth: o.maxDepth, maxWork: o.maxWork },
});

// Class words sometimes sit on a wrapper of the whole article ("layout-with-sidebar"): when they
// removed most of the page, read it again trusting tags and hidden-markers only.
const readAgain = (ex: Extracted) => ex.droppedByClass > 4 * ex.keptChars && ex.keptChars < 2000;

const finishPage = (ex: Extracted, length: number, o: PageOptions): ProcessedPage => {
  const sentences = ex.blocks.flatMap(splitSentences);
  const chunks = chunkSentences(sentences, { ...DEFAULT_CHUNK_OPTIONS, ...o.chunk }).slice(0, o.maxChunks);
  return { title: ex.title, text: ex.blocks.join('\n'), chunks, tables: ex.tables, notes: notesOf(ex.report, length, o) };
};
