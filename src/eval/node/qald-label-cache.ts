/// <reference types="node" />
import { join } from 'node:path';
import { goldQids, type QaldLabelTable } from '../metrics/qald-labels';
import type { EvalItem } from '../types';
import { fetchLabels, LABELS_FILE, readLabelTable, writeLabelTable } from './wikidata-labels';

export interface LabelCacheOptions {
  items: readonly EvalItem[];
  /** Where `qald-labels.json` lives (the run's --out), unless `file` names another. */
  outDir: string;
  file?: string;
  language: string;
  /** The Wikibase api.php to ask for names the cache lacks; undefined = never ask (offline re-scoring). */
  api?: string;
  fetch?: typeof fetch;
}

/**
 * The label table of a QALD run: read from the cache beside the results, completed from the Wikidata
 * API for gold ids it lacks, and written back, so the next scoring of the same run needs no network.
 * A failed fetch keeps what the cache has and says so in `note`.
 */
export const prepareLabelTable = async (o: LabelCacheOptions): Promise<{ table?: QaldLabelTable; path: string; fetched: number; note?: string }> => {
  const path = o.file ?? join(o.outDir, LABELS_FILE);
  const cached = readLabelTable(path);
  const table: QaldLabelTable = cached ?? { entities: {} };
  const ids = o.items.flatMap((i) => (i.gold.kind === 'qald9plus' ? goldQids(i.gold.answers) : []));
  if (!o.api) return { table: cached, path, fetched: 0, note: cached ? undefined : `no label table at ${path}` };
  try {
    const { fetched } = await fetchLabels(table, ids, o.language, { api: o.api, fetch: o.fetch });
    if (fetched || !cached) writeLabelTable(path, table);
    return { table, path, fetched };
  } catch (e) {
    if (cached) writeLabelTable(path, table); // keep the batches that did arrive
    return { table: cached ?? (Object.keys(table.entities).length ? table : undefined), path, fetched: 0, note: `label table incomplete: ${(e as Error).message}` };
  }
};
