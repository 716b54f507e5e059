/// <reference types="node" />
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableCsv, tableHtml, tableMarkdown, tableTex } from '../table/render';
import type { TableDoc } from '../table/types';

export const TABLE_FILES = ['table.json', 'table.md', 'table.csv', 'table.tex', 'table.html'] as const;

/** Writes the table in its five forms into `dir`; returns their paths. */
export const writeTableFiles = (dir: string, t: TableDoc): string[] => {
  mkdirSync(dir, { recursive: true });
  const text: Record<(typeof TABLE_FILES)[number], string> = {
    'table.json': `${JSON.stringify(t, null, 2)}\n`,
    'table.md': tableMarkdown(t),
    'table.csv': tableCsv(t),
    'table.tex': tableTex(t),
    'table.html': tableHtml(t),
  };
  return TABLE_FILES.map((name) => {
    writeFileSync(join(dir, name), text[name]);
    return join(dir, name);
  });
};
