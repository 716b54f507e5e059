import { join, relative } from 'node:path';
import type { Comparison } from '../src/eval/compare/compare';
import { compareFolders } from '../src/eval/node/compare-folders';
import { runEpochs } from '../src/eval/node/epochs';
import { readEvalFolder } from '../src/eval/node/eval-folder';
import { runEvaluation } from '../src/eval/node/evaluate';
import { writeTableFiles } from '../src/eval/node/table-files';
import { SCORERS } from '../src/eval/scorers/index';
import { buildTable, cellOf } from '../src/eval/table/build';
import { tableMarkdown } from '../src/eval/table/render';
import type { TableBenchmark, TableDoc, TableSystem } from '../src/eval/table/types';
import type { Benchmark } from '../src/eval/types';
import { check, printSummary, type CliEvaluation } from './eval-run';
import { judgeFromEnv } from './judge-env';

/**
 * Runs a table: benchmarks (columns) × systems (rows, a mode and its options), one evaluation folder per cell at
 * `<out>/<column>/<system>/`, then each row against the baseline row and the table in five forms. Used by
 * `npm run table` and by `npm run eval -- --sweep` (one column). Every cell is checked with the service before the
 * first question; a cell that already holds answers continues where it stopped (each question keeps its
 * Idempotency-Key), so running the same command again finishes an interrupted table.
 */

export interface Column {
  key: string;
  benchmark: Benchmark;
  /** The evaluation of this benchmark's questions, before a system adds its mode and options. */
  base: CliEvaluation;
}

export const mergedOptions = (base: Record<string, unknown> | undefined, own: Record<string, unknown> | undefined, column?: Record<string, unknown>) => {
  const merged = { ...(base ?? {}), ...(own ?? {}), ...(column ?? {}) };
  return Object.keys(merged).length ? merged : undefined;
};

export const cellDir = (out: string, column: string, system: string, oneColumn: boolean) => (oneColumn ? join(out, system) : join(out, column, system));

/** Every cell's requests checked by the service (its options above all), before the first question of any. */
export const checkCells = async (url: string, columns: readonly Column[], systems: readonly TableSystem[]) => {
  let service;
  for (const c of columns) service ??= await check(url, c.base, systems.map((s) => ({ mode: s.mode ?? c.base.mode, options: mergedOptions(c.base.options, s.options, s.byBenchmark?.[c.key]) })));
  return service!;
};

export const runCells = async (url: string, columns: readonly Column[], systems: readonly TableSystem[], o: { out: string; epochs?: number; resume: boolean }) => {
  const service = await checkCells(url, columns, systems);
  const oneColumn = columns.length === 1;
  for (const c of columns) {
    for (const s of systems) {
      const options = mergedOptions(c.base.options, s.options, s.byBenchmark?.[c.key]);
      const outDir = cellDir(o.out, c.key, s.name, oneColumn);
      process.stderr.write(`\n${oneColumn ? '' : `${c.key} × `}${s.name}: mode ${s.mode ?? c.base.mode ?? 'default'}, options ${JSON.stringify(options ?? {})}\n`);
      const run = { ...c.base, url, outDir, mode: s.mode ?? c.base.mode, options, resume: o.resume, manifest: { ...c.base.manifest, service } };
      if ((o.epochs ?? 1) > 1) await runEpochs(run, o.epochs!);
      else printSummary(await runEvaluation(run));
    }
  }
};

/** Reads every cell, compares each row with the baseline on each column, writes table.json/.md/.csv/.tex/.html. */
export const writeTable = async (o: { out: string; title: string; columns: readonly Column[]; systems: readonly TableSystem[]; baseline: string }): Promise<TableDoc> => {
  const oneColumn = o.columns.length === 1;
  const cells: TableDoc['cells'] = {};
  const compared: Record<string, Record<string, Comparison>> = {};
  const benchmarks: TableBenchmark[] = [];
  for (const c of o.columns) {
    const main = SCORERS[c.benchmark].main;
    const data = c.base.manifest!.data!;
    benchmarks.push({ key: c.key, benchmark: c.benchmark, mainMetric: main, data: { path: data.path, sha256: data.sha256 }, questions: data.questions });
    const { judge, name } = c.benchmark === 'crag' ? judgeFromEnv('crag') : { judge: undefined, name: 'none' };
    const base = cellDir(o.out, c.key, o.baseline, oneColumn);
    for (const s of o.systems) {
      const dir = cellDir(o.out, c.key, s.name, oneColumn);
      (cells[s.name] ??= {})[c.key] = cellOf(relative(o.out, dir), readEvalFolder(dir).doc, main);
      if (s.name !== o.baseline) (compared[s.name] ??= {})[c.key] = await compareFolders(base, dir, { judge, judgeName: name });
    }
  }
  const table = buildTable({ title: o.title, benchmarks, systems: [...o.systems], baseline: o.baseline, cells, compared });
  const files = writeTableFiles(o.out, table);
  process.stdout.write(tableMarkdown(table));
  process.stderr.write(`wrote ${files.join('\n      ')}\n`);
  return table;
};
