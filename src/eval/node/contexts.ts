/// <reference types="node" />
import type { Benchmark, EvalItem } from '../types';
import { hybridqaTables } from './hybridqa-tables';

/** Where the evidence of table benchmarks lives on disk (CLI flags `--tables`, `--mmqa-dir`). */
export interface ContextSources {
  /** A WikiTables-WithLinks checkout (`tables_tok/`, `request_tok/`) for HybridQA. */
  tables?: string;
}

export interface PreparedItems {
  /** The items that can be asked: those whose evidence was found. */
  items: EvalItem[];
  /** How many were left out because their evidence is missing, and why. */
  skipped: number;
  note?: string;
  /** The `context` of each request, built when the question is asked (tables are read lazily). */
  contextFor: (item: EvalItem) => unknown;
}

/**
 * Keeps the questions whose table (and linked passages) exist in the given sources and builds each request's
 * program-mode context from the official files. Without sources the items' own contexts are used.
 */
export const prepareContexts = (benchmark: Benchmark, items: EvalItem[], sources: ContextSources): PreparedItems => {
  if (benchmark === 'hybridqa' && sources.tables) {
    const tables = hybridqaTables(sources.tables);
    const tableOf = (item: EvalItem) => (item.gold.kind === 'hybridqa' ? item.gold.tableId : '');
    const kept = items.filter((item) => tables.has(tableOf(item)));
    const skipped = items.length - kept.length;
    return {
      items: kept,
      skipped,
      note: skipped ? `skipped ${skipped} of ${items.length} questions whose table is not in ${sources.tables}/tables_tok` : undefined,
      contextFor: (item) => tables.context(tableOf(item)),
    };
  }
  return {
    items,
    skipped: 0,
    // HybridQA's loader records only the table id; without --tables there is no table to send.
    contextFor: (item) => (item.gold.kind === 'hybridqa' ? undefined : item.context),
  };
};
