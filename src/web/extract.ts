import { skipReason } from './boilerplate';
import { collapseWhitespace } from './clean-text';
import { mergeTables, parseSpan, tableAsText, tableToMarkdown, type MarkdownTable, type RawRow, type RawTable, type TableOptions } from './table';
import { buildTree, buildTreeAsync, type TreeHandler, type TreeLimits, type TreeReport } from './tree-builder';

/** Elements whose edges end a run of text: their content is a block of its own. */
const BLOCK_TAGS = new Set([
  'address', 'article', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'details', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'html', 'li', 'main', 'ol', 'p',
  'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
]);

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

// A table inside a table is layout; each level re-reads the text of the levels inside it, so the levels are capped.
const MAX_TABLE_DEPTH = 8;

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
  name: string;
  skipping: boolean;
  /** This element started an entry of the table stack. */
  table?: boolean;
  container?: { blocks: number; tables: number; chars: number; linkChars: number; links: number };
}

interface TableBuild extends RawTable {
  row: RawRow | null;
  cell: { text: string; header: boolean; colspan: number; rowspan: number } | null;
  inHead: boolean;
  inCaption: boolean;
}

/**
 * One pass of htmlparser2's streaming tokenizer over the page (see tree-builder.ts): no DOM is built, which
 * keeps large pages (1.5 MB) in tens of milliseconds and hostile ones linear. Boilerplate subtrees are
 * skipped as they open; tables are collected cell by cell and judged when they close.
 */
const extractor = (options: ExtractOptions): { handler: TreeHandler; finish(report: TreeReport): Extracted } => {
  const blocks: string[] = [];
  const tables: MarkdownTable[] = [];
  const stack: Frame[] = [];
  const tableStack: TableBuild[] = [];
  let skipDepth = 0; // > 0 while inside a dropped subtree
  let skipByClass = false;
  let droppedByClass = 0;
  let buffer = '';
  let bufferLinkChars = 0;
  let linkDepth = 0;
  let totalChars = 0;
  let linkChars = 0;
  let links = 0;
  let title = '';
  let inTitle = false;

  const flush = () => {
    if (!buffer) return;
    const text = collapseWhitespace(buffer);
    // A short run that is nearly all link text is a menu entry or a "read more", not content.
    const dense = bufferLinkChars > 0 && bufferLinkChars / Math.max(1, buffer.length) > 0.8 && text.length < 200;
    if (text && !dense) blocks.push(text);
    buffer = '';
    bufferLinkChars = 0;
  };

  const closeTable = (t: TableBuild) => {
    const md = tableToMarkdown(t, options.table);
    if (md) {
      // Sites that print one table per record (a table per language) read better as one table.
      const prev = tables[tables.length - 1];
      if (prev && mergeTables(prev, md, options.table)) return;
      if (tables.length < options.maxTables) tables.push(md);
      return;
    }
    const text = tableAsText(t);
    const outer = tableStack[tableStack.length - 1];
    if (outer) {
      // Layout content of an inner table belongs to the outer cell it sits in.
      if (outer.cell) outer.cell.text += ` ${text.join(' ')} `;
    } else {
      flush();
      blocks.push(...text);
    }
  };

  const handler: TreeHandler = {
    onopentag(name, attribs) {
      if (name === 'title' && !title) inTitle = true;
      if (skipDepth > 0) {
        stack.push({ name, skipping: true });
        skipDepth++;
        return;
      }
      const reason = skipReason(name, attribs, options.classHeuristics);
      if (reason) {
        stack.push({ name, skipping: true });
        skipDepth = 1;
        skipByClass = reason === 'class';
        return;
      }
      const frame: Frame = { name, skipping: false };
      const table = tableStack[tableStack.length - 1];
      if (name === 'table' && tableStack.length < MAX_TABLE_DEPTH) {
        if (table) table.hasNestedTable = true;
        flush();
        frame.table = true;
        tableStack.push({ caption: '', rows: [], hasNestedTable: false, row: null, cell: null, inHead: false, inCaption: false });
      } else if (table) {
        if (name === 'table') {
          table.hasNestedTable = true;
          if (table.cell) table.cell.text += ' ';
        } else if (name === 'tr') {
          table.row = { cells: [], inHead: table.inHead };
          table.rows.push(table.row);
        } else if (name === 'td' || name === 'th') {
          if (!table.row) {
            table.row = { cells: [], inHead: table.inHead };
            table.rows.push(table.row);
          }
          table.cell = { text: '', header: name === 'th', colspan: parseSpan(attribs.colspan), rowspan: parseSpan(attribs.rowspan) };
          table.row.cells.push(table.cell);
        } else if (name === 'thead') table.inHead = true;
        else if (name === 'caption') table.inCaption = true;
        else if (table.cell && (BLOCK_TAGS.has(name) || name === 'img')) table.cell.text += ' ';
      } else {
        if (BLOCK_TAGS.has(name)) flush();
        if (CONTAINER_TAGS.has(name)) {
          frame.container = { blocks: blocks.length, tables: tables.length, chars: totalChars, linkChars, links };
        }
      }
      if (name === 'a') {
        linkDepth++;
        links++;
      }
      stack.push(frame);
    },
    ontext(text) {
      if (inTitle) {
        title += text;
        return;
      }
      if (skipDepth > 0) {
        if (skipByClass) droppedByClass += text.length;
        return;
      }
      const table = tableStack[tableStack.length - 1];
      if (table) {
        if (table.cell) table.cell.text += text;
        else if (table.inCaption) table.caption += text;
        return;
      }
      buffer += text;
      totalChars += text.length;
      if (linkDepth > 0) {
        bufferLinkChars += text.length;
        linkChars += text.length;
      }
    },
    onclosetag(name) {
      if (name === 'title') inTitle = false;
      const frame = stack.pop();
      if (!frame) return;
      if (frame.skipping) {
        skipDepth--;
        return;
      }
      if (name === 'a' && linkDepth > 0) linkDepth--;
      const table = tableStack[tableStack.length - 1];
      if (frame.table && table) {
        tableStack.pop();
        closeTable(table);
        return;
      }
      if (table) {
        if (name === 'td' || name === 'th') table.cell = null;
        else if (name === 'tr') table.row = null;
        else if (name === 'thead') table.inHead = false;
        else if (name === 'caption') table.inCaption = false;
        else if (table.cell && BLOCK_TAGS.has(name)) table.cell.text += ' ';
        return;
      }
      if (BLOCK_TAGS.has(name)) flush();
      const c = frame.container;
      if (c) {
        const chars = totalChars - c.chars;
        const inLinks = linkChars - c.linkChars;
        // Little text outside the links too: a big wrapper with real prose is never dropped here.
        if (links - c.links >= 3 && chars > 0 && inLinks / chars > options.maxLinkDensity && chars - inLinks < 300) {
          // A menu: forget what it contributed.
          blocks.length = c.blocks;
          tables.length = c.tables;
        }
      }
    },
  };
  const finish = (report: TreeReport): Extracted => {
    flush();
    // Tables left open by a truncated page still count.
    while (tableStack.length) closeTable(tableStack.pop()!);
    flush();
    const keptChars = blocks.reduce((n, b) => n + b.length, 0);
    return { title: collapseWhitespace(title), blocks, tables, droppedByClass, keptChars, report };
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
