/// <reference types="node" />
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { hybridqaContext, type WikiTable } from '../contexts/hybridqa';
import type { TableContext } from '../contexts/types';

/** Official table files are a few KB; this only stops a wrong path from reading something huge. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;

/** Table ids become file names: anything that could leave the folder is not a table id. */
const safeId = (tableId: string) => /^[^/\\\0]+$/.test(tableId) && tableId !== '.' && tableId !== '..';

const readJson = (path: string): unknown => {
  if (statSync(path).size > MAX_FILE_BYTES) throw new Error(`${path} is larger than ${MAX_FILE_BYTES} bytes`);
  return JSON.parse(readFileSync(path, 'utf8'));
};

/**
 * Reads HybridQA tables from a WikiTables-WithLinks checkout: `tables_tok/<table_id>.json` and, when it exists,
 * `request_tok/<table_id>.json` (some tables have none upstream; they get no passages). Node only.
 */
export const hybridqaTables = (dir: string) => {
  const tablePath = (id: string) => join(dir, 'tables_tok', `${id}.json`);
  if (!existsSync(join(dir, 'tables_tok'))) throw new Error(`${dir} has no tables_tok/ folder (expected a WikiTables-WithLinks checkout)`);
  return {
    has: (tableId: string): boolean => safeId(tableId) && existsSync(tablePath(tableId)),
    /** The program-mode context of a table, or undefined when the table is not in the folder. */
    context: (tableId: string): TableContext | undefined => {
      if (!safeId(tableId) || !existsSync(tablePath(tableId))) return undefined;
      const table = readJson(tablePath(tableId)) as WikiTable;
      const requestPath = join(dir, 'request_tok', `${tableId}.json`);
      const requests = existsSync(requestPath) ? (readJson(requestPath) as Record<string, string>) : {};
      return hybridqaContext(table, requests);
    },
  };
};

/** `(tableId) => context | undefined`, for callers that need only the contexts. */
export const hybridqaContextLoader = (dir: string) => hybridqaTables(dir).context;
