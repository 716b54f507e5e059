import * as z from 'zod';
import type { Embedder } from '../../embeddings/types';
import { contextPageKey } from '../../engine/attribution/context-documents';
import type { RunContext, Source, StepOutcome } from '../../engine/types';
import { requestKey } from '../../evidence/recording';
import { chunkSentences, processPageAsync, rankTables, rankTexts, splitSentences, type MarkdownTable } from '../../web';
import type { RagOptions } from './options';
import type { RagState, Reference } from './state';

const pageSchema = z.object({ url: z.string().max(4000).default(''), html: z.string(), lastModified: z.string().optional() });
const contextSchema = z.object({ pages: z.array(pageSchema).max(50).optional(), queryTime: z.string().optional() }).passthrough();

/** The caller's pages and query time, validated; bad shapes count as "no pages". */
export const readContext = (context: Record<string, unknown> | undefined) => {
  const parsed = contextSchema.safeParse(context ?? {});
  return parsed.success ? { pages: parsed.data.pages ?? [], queryTime: parsed.data.queryTime } : { pages: [], queryTime: undefined };
};

/**
 * Why a caller's context is no use to rag mode, or undefined. No context, or an empty page list (a CRAG question whose
 * search found nothing), reads the top Wikipedia pages instead; program mode's table and passages without any page
 * are a mistake that would silently do the same.
 */
export const ragContextProblem = (context: Record<string, unknown> | undefined): string | undefined => {
  if (context === undefined) return undefined;
  const parsed = contextSchema.safeParse(context);
  if (!parsed.success) return `invalid rag context: ${parsed.error.issues.map((i) => `context.${i.path.join('.')}: ${i.message}`).slice(0, 5).join('; ')}`;
  const programKeys = ['table', 'passages', 'images'].filter((k) => k in context);
  if (parsed.data.pages !== undefined || !programKeys.length) return undefined;
  const stray = `${programKeys.map((k) => `context.${k}`).join(', ')} ${programKeys.length > 1 ? 'are' : 'is'} for program mode`;
  return `rag mode reads web pages from context.pages: [{url, html, lastModified?}], and none was given (${stray}); send pages, or no context to read Wikipedia`;
};

const MAX_CHUNK_REF = 1200;
/** A table cut below this would show a header and hardly a row; it is left out instead. */
const MIN_TABLE_REF = 200;
const WIKI_PAGES = 3;

interface Candidate {
  text: string;
  page: number;
}

interface Collected {
  chunks: Candidate[];
  tables: (MarkdownTable & { page: number })[];
  pages: { title: string; url?: string; kind: Reference['kind']; key: string }[];
  notes: string[];
}

const fromSuppliedPages = async (pages: z.infer<typeof pageSchema>[]): Promise<Collected> => {
  const out: Collected = { chunks: [], tables: [], pages: [], notes: [] };
  for (const [i, p] of pages.entries()) {
    const processed = await processPageAsync(p.html);
    const title = processed.title || p.url || `page ${i + 1}`;
    for (const note of processed.notes) out.notes.push(`${title.slice(0, 80)}: ${note}`);
    out.pages.push({ title: p.lastModified ? `${title} (last modified ${p.lastModified})` : title, url: p.url || undefined, kind: 'web', key: contextPageKey(i) });
    for (const c of processed.chunks) out.chunks.push({ text: c, page: i });
    for (const t of processed.tables) out.tables.push({ ...t, page: i });
  }
  return out;
};

/** Without supplied pages: the top Wikipedia pages for the question, chunked the same way. */
const fromWikipedia = async (ctx: RunContext): Promise<Collected> => {
  const out: Collected = { chunks: [], tables: [], pages: [], notes: [] };
  const evidence = ctx.evidence();
  const hits = await evidence.search(ctx.request.question, WIKI_PAGES);
  for (const hit of hits.slice(0, WIKI_PAGES)) {
    const page = await evidence.page(hit.title);
    if (!page) continue;
    const i = out.pages.length;
    const key = requestKey({ source: 'evidence', kind: evidence.kind, method: 'page', args: [hit.title] });
    out.pages.push({ title: page.title, url: page.url, kind: 'wikipedia', key });
    const sentences = page.sections.flatMap((s) => [s.heading, ...s.text.split(/\n+/).flatMap(splitSentences)]).filter(Boolean);
    for (const c of chunkSentences(sentences)) out.chunks.push({ text: c, page: i });
    for (const md of page.tables) out.tables.push({ markdown: md, caption: '', header: [], rows: 0, truncated: false, page: i });
  }
  return out;
};

const embedderOf = (ctx: RunContext): Embedder | undefined => {
  try {
    return ctx.embedder();
  } catch {
    return undefined; // no embedder configured: BM25 still ranks
  }
};

/** Retrieval: pages → chunks and tables → the top chunks and the most relevant tables become references. */
export const retrieveStep = async (state: RagState, ctx: RunContext, o: RagOptions): Promise<StepOutcome<RagState>> => {
  const question = ctx.request.question;
  const { pages } = readContext(ctx.request.context);
  const started = Date.now();
  const collected = pages.length ? await fromSuppliedPages(pages) : await fromWikipedia(ctx);
  const embedder = embedderOf(ctx);
  const topChunks = await rankTexts(question, collected.chunks, (c) => c.text, embedder, { topK: o.topChunks });
  const topTables = await rankTables(question, collected.tables, embedder, o.maxTables);
  const ref = (page: number, text: string, kind: Reference['kind'], cap: number): Reference => {
    const p = collected.pages[page];
    return { kind: kind === 'table' ? 'table' : p.kind, title: p.title, url: p.url, text: text.slice(0, cap), key: p.key };
  };
  // One budget for all tables together (the paper's 4,000), spent in rank order.
  let budget = o.tableChars;
  const keptTables: typeof topTables = [];
  const tableRefs: Reference[] = [];
  for (const t of topTables) {
    if (budget < Math.min(MIN_TABLE_REF, t.item.markdown.length)) break;
    const r = ref(t.item.page, t.item.markdown, 'table', budget);
    budget -= r.text.length;
    keptTables.push(t);
    tableRefs.push(r);
  }
  const refs = [...topChunks.map((r) => ref(r.item.page, r.item.text, 'web', MAX_CHUNK_REF)), ...tableRefs];
  const used = new Set([...topChunks.map((r) => r.item.page), ...keptTables.map((r) => r.item.page)]);
  const sources: Source[] = collected.pages
    .filter((_, i) => used.has(i))
    .map((p) => ({ title: p.title, url: p.url, kind: p.kind === 'wikipedia' ? 'wikipedia' : 'web' }));
  const summary = refs.map((r, i) => `[${i + 1}] ${r.kind} · ${r.title.slice(0, 60)}: ${r.text.slice(0, 100).replace(/\n/g, ' ')}`).join('\n');
  return {
    state: { ...state, refs, sources, pageNotes: collected.notes.length ? collected.notes : undefined, phase: 'calculator' },
    events: [
      { type: 'action', data: { tool: 'retrieve', input: { question, pages: pages.length || 'wikipedia', ranking: embedder ? `${embedder.name}+bm25` : 'bm25' } } },
      {
        type: 'observation',
        data: {
          tool: 'retrieve',
          output: `${collected.pages.length} pages, ${collected.chunks.length} chunks, ${collected.tables.length} tables → kept ${topChunks.length} chunks and ${keptTables.length} tables (${o.tableChars - budget} of ${o.tableChars} table characters)\n${summary}${collected.notes.map((n) => `\nnote: ${n}`).join('')}`,
          ms: Date.now() - started,
        },
      },
    ],
  };
};
