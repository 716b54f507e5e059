import { BLOCK_TAGS } from './blocks';
import { pageSkipRule } from './boilerplate';
import { collapseWhitespace } from './clean-text';
import type { MarkdownTable, TableOptions } from './table';
import { tableCollector } from './table-collector';
import { buildTree, buildTreeAsync, type TreeHandler, type TreeLimits, type TreeReport } from './tree-builder';
import { skippedSubtrees } from './visibility';

/** Containers judged as a whole for link density (menus are lists or divs of links). */
const CONTAINER_TAGS = new Set(['ul', 'ol', 'dl', 'div', 'section', 'p', 'td']);

export interface ExtractOptions {
  /** Drop elements by class/id words (cookie banners, share bars); off only for the safety re-run. */
  classHeuristics: boolean;
  table: Partial<TableOptions>;
  maxTables: number;
  /** A container this link-heavy (share of its text inside links) with at least 3 links is a menu. */
  maxLinkDensity: number;
  limits: TreeLimits;
}

export interface Extracted {
  title: string;
  /** Paragraph-like runs of text in reading order. */
  blocks: string[];
  tables: MarkdownTable[];
  /** Text characters dropped by class/id heuristics, kept so the caller can tell an over-eager drop. */
  droppedByClass: number;
  keptChars: number;
  /** What the depth cap and the work budget did to this page. */
  report: TreeReport;
}

interface Frame {
  /** Left out with its subtree (furniture, or not seen: skippedSubtrees). */
  skipping: boolean;
  /** This element started a table (tableCollector). */
  table?: boolean;
  /** Where the page stood when this container opened, to judge it as a menu when it closes. */
  container?: { blocks: number; tables: number; chars: number; linkChars: number; links: number };
}

/** The frame of every element left out (frames are only read). */
const SKIPPED: Frame = { skipping: true, table: false, container: undefined };

/**
 * Runs of prose between block edges, and link counts to tell menus from content: a run nearly all link text is
 * dropped as it ends, and a container whose text is mostly links (with little else) is forgotten when it closes.
 */
const proseRuns = (maxLinkDensity: number) => {
  const blocks: string[] = [];
  let buffer = '';
  let bufferLinkChars = 0;
  let linkDepth = 0;
  let totalChars = 0;
  let linkChars = 0;
  let links = 0;
  return {
    blocks,
    flush() {
      if (!buffer) return;
      const text = collapseWhitespace(buffer);
      // A short run that is nearly all link text is a menu entry or a "read more", not content.
      const dense = bufferLinkChars > 0 && bufferLinkChars / Math.max(1, buffer.length) > 0.8 && text.length < 200;
      if (text && !dense) blocks.push(text);
      buffer = '';
      bufferLinkChars = 0;
    },
    text(text: string) {
      buffer += text;
      totalChars += text.length;
      if (linkDepth > 0) {
        bufferLinkChars += text.length;
        linkChars += text.length;
      }
    },
    linkOpens() {
      linkDepth++;
      links++;
    },
    linkCloses() {
      if (linkDepth > 0) linkDepth--;
    },
    /** The page so far, for a container that opens now. */
    mark: (tables: number) => ({ blocks: blocks.length, tables, chars: totalChars, linkChars, links }),
    /** Whether what a container added since `mark` reads as a menu. */
    isMenu(m: NonNullable<Frame['container']>) {
      const chars = totalChars - m.chars;
      const inLinks = linkChars - m.linkChars;
      // Little text outside the links too: a big wrapper with real prose is never dropped here.
      return links - m.links >= 3 && chars > 0 && inLinks / chars > maxLinkDensity && chars - inLinks < 300;
    },
  };
};

/**
 * One pass of htmlparser2's streaming tokenizer over the page (see tree-builder.ts): no DOM is built, which
 * keeps large pages (1.5 MB) in tens of milliseconds and hostile ones linear. Furniture and text a reader does not
 * see are skipped as their subtrees open (skippedSubtrees); tables are collected cell by cell and judged when they
 * close (tableCollector); the rest is prose, in runs between block edges (proseRuns).
 */
const extractor = (options: ExtractOptions): { handler: TreeHandler; finish(report: TreeReport): Extracted } => {
  const skipped = skippedSubtrees(pageSkipRule(options.classHeuristics));
  const prose = proseRuns(options.maxLinkDensity);
  const tables: MarkdownTable[] = [];
  const collector = tableCollector({
    tables,
    maxTables: options.maxTables,
    options: options.table,
    beforeTable: prose.flush,
    asText: (lines) => {
      prose.flush();
      prose.blocks.push(...lines);
    },
  });
  const stack: Frame[] = [];
  let title = '';
  let inTitle = false;

  const handler: TreeHandler = {
    skipping: skipped.skipping,
    onopentag(name, attribs) {
      if (name === 'title' && !title) inTitle = true;
      if (skipped.open(name, attribs)) {
        stack.push(SKIPPED);
        return;
      }
      const inTable = collector.inside();
      const frame: Frame = { skipping: false, table: collector.open(name, attribs), container: undefined };
      if (!inTable && !frame.table) {
        if (BLOCK_TAGS.has(name)) prose.flush();
        if (CONTAINER_TAGS.has(name)) frame.container = prose.mark(tables.length);
      }
      if (name === 'a') prose.linkOpens();
      stack.push(frame);
    },
    ontext(text) {
      if (inTitle) {
        title += text;
        return;
      }
      if (skipped.text(text)) return;
      if (collector.inside()) collector.text(text);
      else prose.text(text);
    },
    onclosetag(name) {
      if (name === 'title') inTitle = false;
      const frame = stack.pop();
      if (!frame) return;
      skipped.close(name);
      if (frame.skipping) return;
      if (name === 'a') prose.linkCloses();
      if (collector.inside()) return collector.close(name, frame.table === true);
      if (BLOCK_TAGS.has(name)) prose.flush();
      if (frame.container && prose.isMenu(frame.container)) {
        // A menu: forget what it contributed.
        prose.blocks.length = frame.container.blocks;
        tables.length = frame.container.tables;
      }
    },
  };
  const finish = (report: TreeReport): Extracted => {
    prose.flush();
    collector.finish();
    prose.flush();
    const blocks = prose.blocks;
    const keptChars = blocks.reduce((n, b) => n + b.length, 0);
    return { title: collapseWhitespace(title), blocks, tables, droppedByClass: skipped.dropped('class'), keptChars, report };
  };
  return { handler, finish };
};

export const extract = (html: string, options: ExtractOptions): Extracted => {
  const x = extractor(options);
  return x.finish(buildTree(html, x.handler, options.limits));
};

/** The same as `extract`, handing the event loop back between slices of the page (see buildTreeAsync). */
export const extractAsync = async (html: string, options: ExtractOptions): Promise<Extracted> => {
  const x = extractor(options);
  return x.finish(await buildTreeAsync(html, x.handler, options.limits));
};
