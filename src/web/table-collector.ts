import { BLOCK_TAGS } from './blocks';
import { mergeTables, parseSpan, tableAsText, tableToMarkdown, type MarkdownTable, type RawRow, type RawTable, type TableOptions } from './table';

// A table inside a table is layout; each level re-reads the text of the levels inside it, so the levels are capped.
const MAX_TABLE_DEPTH = 8;

interface TableBuild extends RawTable {
  row: RawRow | null;
  cell: { text: string; header: boolean; colspan: number; rowspan: number } | null;
  inHead: boolean;
  inCaption: boolean;
}

export interface TableSink {
  /** Tables kept as data, in page order (the extractor may cut it back when a menu held some). */
  tables: MarkdownTable[];
  maxTables: number;
  options: Partial<TableOptions>;
  /** A table about to start: the text before it ends its block. */
  beforeTable(): void;
  /** The lines of a table that is not data (layout, one column), outside any other table. */
  asText(lines: string[]): void;
}

/** A table closes: data becomes markdown (merged into the one before when it continues it); layout gives its text away. */
const closeTable = (t: TableBuild, outer: TableBuild | undefined, sink: TableSink) => {
  const md = tableToMarkdown(t, sink.options);
  if (md) {
    // Sites that print one table per record (a table per language) read better as one table.
    const prev = sink.tables[sink.tables.length - 1];
    if (prev && mergeTables(prev, md, sink.options)) return;
    if (sink.tables.length < sink.maxTables) sink.tables.push(md);
    return;
  }
  const text = tableAsText(t);
  // Layout content of an inner table belongs to the outer cell it sits in.
  if (outer) {
    if (outer.cell) outer.cell.text += ` ${text.join(' ')} `;
  } else sink.asText(text);
};

/** An element opens inside an open table (not a table of its own): rows, cells, head and caption, or a cell's spacing. */
const openInside = (table: TableBuild, name: string, attribs: Record<string, string>) => {
  if (name === 'table') {
    // Past the depth cap a nested table is read as part of its cell.
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
};

/**
 * The tables of a page as its elements stream by: cell by cell while they are open, judged when they close (data
 * tables become markdown; layout tables give their text to the cell around them, or to the page). While a table is
 * open its elements and text belong to it, so the extractor asks `inside()` before treating them as prose.
 */
export const tableCollector = (sink: TableSink) => {
  const stack: TableBuild[] = [];
  const top = () => stack[stack.length - 1];

  return {
    /** Whether a table is open: its elements and text are the table's. */
    inside: () => stack.length > 0,
    /** An element opens; true when it starts a table of its own (pass that to `close`). */
    open(name: string, attribs: Record<string, string>): boolean {
      const table = top();
      if (name === 'table' && stack.length < MAX_TABLE_DEPTH) {
        if (table) table.hasNestedTable = true;
        sink.beforeTable();
        stack.push({ caption: '', rows: [], hasNestedTable: false, row: null, cell: null, inHead: false, inCaption: false });
        return true;
      }
      if (table) openInside(table, name, attribs);
      return false;
    },
    /** Text inside an open table: a cell's, the caption's, or nobody's. */
    text(text: string) {
      const table = top();
      if (table?.cell) table.cell.text += text;
      else if (table?.inCaption) table.caption += text;
    },
    /** An element closes; `started` says whether its `open` started a table. */
    close(name: string, started: boolean) {
      const table = top();
      if (!table) return;
      if (started) {
        stack.pop();
        closeTable(table, top(), sink);
      } else if (name === 'td' || name === 'th') table.cell = null;
      else if (name === 'tr') table.row = null;
      else if (name === 'thead') table.inHead = false;
      else if (name === 'caption') table.inCaption = false;
      else if (table.cell && BLOCK_TAGS.has(name)) table.cell.text += ' ';
    },
    /** Tables left open by a truncated page still count. */
    finish() {
      while (stack.length) closeTable(stack.pop()!, top(), sink);
    },
  };
};
