import { renderedPage, renderedPageAsync, type RenderedPage } from '../../web/rendered-text';
import { markdownTableSegments, proseSegments, type EvidenceDocument, type Segment } from './documents';

/**
 * The evidence a caller supplies with the request is part of what a run saw: program mode's table and linked
 * passages, rag mode's pages. Claims cite them by these keys, beside the keys of the evidence recording.
 */
export const CONTEXT_TABLE = 'context table';
export const contextPassageKey = (name: string) => `context passage ${name}`;
export const contextPageKey = (index: number) => `context page ${index}`;

const MAX_CELLS = 50_000;
const MAX_PAGE_CHARS = 4_000_000;

const asRecord = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** A passage named by a Wikipedia link (`/wiki/Leipzig`) links there. */
const passageUrl = (name: string) => (/^\/wiki\/[^\s]+$/.test(name) ? `https://en.wikipedia.org${name}` : /^https?:\/\//.test(name) ? name : undefined);

/** What a passage is about, from its name: `/wiki/Clifton_McNeely` → `Clifton McNeely`. */
const passageTitle = (name: string): string => {
  const tail = name.replace(/^.*\/wiki\//, '').replace(/_/g, ' ');
  try {
    return decodeURIComponent(tail);
  } catch {
    return tail;
  }
};

/** One segment per cell (with its row), quoting its row as "column: cell" pairs. */
const tableDocument = (table: Record<string, unknown>): EvidenceDocument => {
  const columns = Array.isArray(table.columns) ? table.columns.map(String) : [];
  const rows = Array.isArray(table.rows) ? table.rows : [];
  const segments: Segment[] = [];
  for (const [i, row] of rows.entries()) {
    if (!Array.isArray(row) || segments.length >= MAX_CELLS) break;
    const cells = row.map((c) => String(asRecord(c)?.text ?? c ?? ''));
    const quote = cells.map((c, j) => `${columns[j] ?? j}: ${c}`).join(' | ').slice(0, 600);
    for (const text of cells) if (text.trim()) segments.push({ text, quote, row: i });
  }
  return { key: CONTEXT_TABLE, kind: 'table', segments };
};

/**
 * A supplied page as the model was shown it and its reader sees it (src/web/rendered-text.ts): the one rendering
 * rag mode's prompt is cut from, so text that is not drawn (display:none, background-coloured, moved off the page, …)
 * or that the extraction leaves out as furniture never verifies an answer. Rendered once per page object and kept
 * while the request is alive, so each attribution of a run reads it again for free; `renderContextPages` does it
 * ahead, in slices, so the isolate is not held up by a large page.
 */
const rendered = new WeakMap<object, RenderedPage>();

const pageOf = (page: Record<string, unknown>, html: string): RenderedPage => {
  let out = rendered.get(page);
  if (out === undefined) rendered.set(page, (out = renderedPage(html.slice(0, MAX_PAGE_CHARS))));
  return out;
};

/** Renders the request's pages ahead of an attribution, handing the event loop back as it goes. */
export const renderContextPages = async (context: Record<string, unknown> | undefined): Promise<void> => {
  const pages = Array.isArray(context?.pages) ? context.pages : [];
  for (const page of pages) {
    const p = asRecord(page);
    if (p && typeof p.html === 'string' && !rendered.has(p)) rendered.set(p, await renderedPageAsync(p.html.slice(0, MAX_PAGE_CHARS)));
  }
};

/** The request's context as documents by key; built only for the keys a claim cites. */
export const contextDocument = (context: Record<string, unknown> | undefined, key: string): EvidenceDocument | undefined => {
  if (!context) return undefined;
  if (key === CONTEXT_TABLE) {
    const table = asRecord(context.table);
    return table ? tableDocument(table) : undefined;
  }
  const passage = /^context passage (.+)$/s.exec(key);
  if (passage) {
    const text = asRecord(context.passages)?.[passage[1]];
    if (typeof text !== 'string') return undefined;
    const url = passageUrl(passage[1]);
    return { key, kind: 'passage', url, segments: proseSegments(text, url), title: passageTitle(passage[1]) };
  }
  const page = /^context page (\d+)$/.exec(key);
  if (page) {
    const p = asRecord(Array.isArray(context.pages) ? context.pages[Number(page[1])] : undefined);
    if (!p || typeof p.html !== 'string') return undefined;
    const url = typeof p.url === 'string' ? p.url : undefined;
    const seen = pageOf(p, p.html);
    const segments = [...proseSegments(seen.title ? `${seen.title}\n${seen.text}` : seen.text, url), ...seen.tables.flatMap((t) => markdownTableSegments(t, url))];
    return { key, kind: 'web', url, segments, ...(seen.title ? { title: seen.title } : {}) };
  }
  return undefined;
};
