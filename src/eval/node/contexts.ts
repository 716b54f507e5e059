/// <reference types="node" />
import type { Benchmark, EvalItem } from '../types';
import { hybridqaTables } from './hybridqa-tables';
import { mmqaFiles } from './mmqa-files';

/** Where the evidence of table benchmarks lives on disk (CLI flags `--tables`, `--mmqa-dir`). */
export interface ContextSources {
  /** A WikiTables-WithLinks checkout (`tables_tok/`, `request_tok/`) for HybridQA. */
  tables?: string;
  /** A folder with MMQA_tables.jsonl, MMQA_texts.jsonl, MMQA_images.jsonl and final_dataset_images/ for MultiModalQA. */
  mmqaDir?: string;
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
  if (benchmark === 'mmqa' && sources.mmqaDir) {
    const files = mmqaFiles(sources.mmqaDir, items);
    const kept: EvalItem[] = [];
    let noTable = 0;
    let noDocs = 0;
    for (const item of items) {
      const why = files.missing(item);
      if (why === 'table') noTable++;
      else if (why === 'documents') noDocs++;
      else kept.push(item);
    }
    const skipped = noTable + noDocs;
    const reasons = [noTable ? `${noTable} without their table` : '', noDocs ? `${noDocs} without a supporting text or image` : ''].filter(Boolean);
    return {
      items: kept,
      skipped,
      note: skipped ? `skipped ${skipped} of ${items.length} questions whose context is not in ${sources.mmqaDir}: ${reasons.join(', ')}` : undefined,
      contextFor: (item) => files.context(item),
    };
  }
  const bare =
    benchmark === 'hybridqa' ? 'warning: no --tables: HybridQA questions go without their table, and program mode refuses a question without one'
    : benchmark === 'mmqa' ? 'warning: no --mmqa-dir: MultiModalQA questions go without their table, texts and images, and program mode refuses a question without a table'
    : undefined;
  return {
    items,
    skipped: 0,
    note: bare,
    // HybridQA's loader records only the table id; without --tables there is no table to send.
    contextFor: (item) => (item.gold.kind === 'hybridqa' ? undefined : item.context),
  };
};
