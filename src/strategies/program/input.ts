import * as z from 'zod';
import type { SandboxTable } from './sandbox-table';
import { unlinkedDocuments } from './unlinked';

const cellSchema = z.object({ text: z.coerce.string(), links: z.array(z.string()).optional() });

export const programContextSchema = z.object({
  table: z.object({
    title: z.string().optional(),
    columns: z.array(z.string()).min(1, 'the table needs at least one column'),
    rows: z.array(z.array(cellSchema)),
  }),
  passages: z.record(z.string(), z.string()).default({}),
  images: z.record(z.string(), z.string()).optional(),
});

export type ProgramContext = z.infer<typeof programContextSchema>;

/** Parses `context` of the request; the error names what is wrong. */
export const parseProgramContext = (context: unknown): { ok: true; value: ProgramContext } | { ok: false; message: string } => {
  if (!context || typeof context !== 'object') {
    return { ok: false, message: 'program mode needs context.table ({columns, rows}) and context.passages ({link: text})' };
  }
  const parsed = programContextSchema.safeParse(context);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues.map((i) => `context.${i.path.join('.')}: ${i.message}`).slice(0, 5);
  return { ok: false, message: `invalid program context: ${issues.join('; ')}` };
};

/** Column names made unique ("Year", "Year (2)"), so rows can be objects keyed by column. */
export const uniqueColumns = (columns: string[]): string[] => {
  const seen = new Map<string, number>();
  return columns.map((c) => {
    const name = c.trim() || 'column';
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name} (${n})`;
  });
};

export const toSandboxTable = (ctx: ProgramContext): SandboxTable => {
  const columns = uniqueColumns(ctx.table.columns);
  return {
    title: ctx.table.title ?? '',
    columns,
    rows: ctx.table.rows.map((cells, row) =>
      Object.fromEntries(
        columns.map((column, j) => [column, { text: cells[j]?.text ?? '', links: cells[j]?.links ?? [], row, column }]),
      ),
    ),
  };
};

const MAX_PROMPT_ROWS = 80;
const MAX_CELL_CHARS = 120;

/**
 * The table as the code prompt shows it: one line per row with its index; a cell that links to a passage
 * (or image) is marked, because only those are worth an `extract_info` call.
 */
export const linearise = (table: SandboxTable, passages: Record<string, string>, images: Record<string, string> = {}): string => {
  const lines = [`Title: ${table.title || '(untitled)'}`, `Columns: ${table.columns.join(' | ')}`];
  for (const row of table.rows.slice(0, MAX_PROMPT_ROWS)) {
    const cells = table.columns.map((c) => {
      const cell = row[c];
      const text = cell.text.length > MAX_CELL_CHARS ? `${cell.text.slice(0, MAX_CELL_CHARS)}…` : cell.text;
      const marks = [
        cell.links.some((l) => l in passages) ? '[passage]' : '',
        cell.links.some((l) => l in images) ? '[image]' : '',
      ].filter(Boolean);
      return [text || '-', ...marks].join(' ');
    });
    lines.push(`row ${row[table.columns[0]].row}: ${cells.join(' | ')}`);
  }
  if (table.rows.length > MAX_PROMPT_ROWS) lines.push(`(${table.rows.length - MAX_PROMPT_ROWS} more rows not shown; table.rows has them all)`);
  lines.push(...unlinkedDocuments(table, passages, images));
  return lines.join('\n');
};
