import type { TableCell, TableContext } from './types';

/** A cell of WikiTables-WithLinks: its text and the `/wiki/...` links inside it. */
export type WikiCell = [string, string[]];

/** One `tables_tok/<table_id>.json` of WikiTables-WithLinks (fields the builder reads). */
export interface WikiTable {
  title?: string;
  section_title?: string;
  header: WikiCell[];
  data: WikiCell[][];
}

const cell = (c: WikiCell | undefined): TableCell => ({
  text: typeof c?.[0] === 'string' ? c[0] : String(c?.[0] ?? ''),
  links: Array.isArray(c?.[1]) ? c[1].filter((l): l is string => typeof l === 'string') : [],
});

/**
 * HybridQA's program-mode context from one WikiTables-WithLinks table and its `request_tok` passages
 * (`{link: passage}`; pass `{}` for a table that has no passages file). Cells keep their links exactly as
 * the dataset writes them (`/wiki/...`), and only passages that some cell links to are sent. The title is the
 * page title with the section title, as the section often says what the rows are.
 * @example hybridqaContext(JSON.parse(tableJson), JSON.parse(requestJson)).table.rows[0][2] // {text: 'Clifton McNeely', links: ['/wiki/Clifton_McNeely']}
 */
export const hybridqaContext = (table: WikiTable, requests: Record<string, string> = {}): TableContext => {
  const rows = (table.data ?? []).map((row) => row.map(cell));
  const passages: Record<string, string> = {};
  for (const link of new Set(rows.flat().flatMap((c) => c.links))) {
    const text = Object.hasOwn(requests, link) ? requests[link] : undefined;
    if (typeof text === 'string' && text.trim()) passages[link] = text;
  }
  const section = table.section_title?.trim();
  const page = table.title?.trim();
  const title = page && section && section !== page ? `${page} — ${section}` : page || section;
  return {
    table: { ...(title ? { title } : {}), columns: (table.header ?? []).map((h) => cell(h).text), rows },
    passages,
  };
};
