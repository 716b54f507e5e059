import type { ClaimReads } from '../../engine/types';
import type { HostCallRecord, Json } from '../../sandbox/types';
import type { ProgramContext } from './input';

/**
 * Which cells a program read: the answer's citation supports it only in a cell the program read (docs/CONFIDENCE.md).
 * The sandbox calls a wrapper instead of `solve`: it makes each cell's `text` note its first read, calls `solve`, and
 * returns the value with the last cells read (the cell an answer comes from is read last, after the rows scanned to
 * find it). A cell passed to `extract_info` is read too, and the passages it links are the ones the model read.
 */

/** Cells remembered: the last ones read, as [row, column index] pairs, a few hundred characters at most. */
const MAX_READS = 40;

/** The entry the sandbox calls: the program's `solve`, with its reads noted. */
export const TRACKED_ENTRY = '__solve_noting_reads';

const WRAPPER = `
function ${TRACKED_ENTRY}(table) {
  if (typeof solve !== 'function') throw new Error('the program does not define a function named solve');
  var reads = [];
  var seen = {};
  var columns = (table && table.columns) || [];
  var rows = (table && table.rows) || [];
  for (var i = 0; i < rows.length; i++) {
    var row = rows[i];
    for (var j = 0; j < columns.length; j++) {
      var cell = row && row[columns[j]];
      if (!cell || typeof cell.text !== 'string') continue;
      (function (cell, at, text) {
        Object.defineProperty(cell, 'text', { enumerable: true, configurable: true, get: function () {
          if (!seen[at[0] + ':' + at[1]]) {
            seen[at[0] + ':' + at[1]] = true;
            reads.push(at);
            if (reads.length > ${MAX_READS}) reads.shift();
          }
          return text;
        } });
      })(cell, [i, j], cell.text);
    }
  }
  var value = solve(table);
  // A cell returned as it is is read when its value is written out: read it here, before the reads are taken.
  var touch = function (v, depth) {
    if (!v || typeof v !== 'object' || depth > 2) return;
    if (Array.isArray(v)) { for (var k = 0; k < v.length && k < 100; k++) touch(v[k], depth + 1); }
    else if ('text' in v) { void v.text; }
  };
  touch(value, 0);
  return { value: value === undefined ? null : value, reads: reads.slice() };
}
`;

/** The program with the wrapper after it (its own lines keep their numbers in error traces). */
export const withReadTracking = (code: string): string => `${code}\n;${WRAPPER}`;

/** The wrapper's result: the program's own value, and the cells read as [row, column index]. */
export const unwrapReads = (out: Json): { value: Json; reads: Array<[number, number]> } => {
  const o = out && typeof out === 'object' && !Array.isArray(out) ? out : {};
  const reads = Array.isArray(o.reads) ? o.reads.filter((r): r is [number, number] => Array.isArray(r) && r.length === 2 && r.every((n) => typeof n === 'number')) : [];
  return { value: (o.value ?? null) as Json, reads };
};

/** What the program read, as a claim states it: the cells (row, text) and the passages its `extract_info` calls read. */
export const claimReads = (reads: Array<[number, number]>, hostCalls: readonly HostCallRecord[], input: ProgramContext, linksOf: (cell: Json) => string[]): ClaimReads => {
  const cells = reads
    .map(([row, j]) => ({ row, text: input.table.rows[row]?.[j]?.text }))
    .filter((c): c is { row: number; text: string } => typeof c.text === 'string' && c.text.trim() !== '');
  const passages = [...new Set(hostCalls.filter((c) => c.fn === 'extract_info' && c.args.length).flatMap((c) => linksOf(c.args[0])))].filter((l) => l in input.passages);
  return { cells, passages };
};
