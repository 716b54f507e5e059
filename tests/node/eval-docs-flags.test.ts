// @module-tag slow
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/EVAL.md's flag tables against the flags each CLI declares (cli/args.ts prints them under `--help`): a flag
 * added to a CLI and left out of its table, or a table naming a flag the CLI no longer takes, fails here.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const doc = readFileSync(resolve(ROOT, 'docs/EVAL.md'), 'utf8');

/** The flags `--help` lists, without --help itself. */
const declared = (script: string) => {
  const help = execFileSync(process.execPath, ['--import', 'tsx', script, '--help'], { cwd: ROOT, encoding: 'utf8' });
  const flags = help.slice(help.indexOf('\nflags:')).match(/^ {2}--[a-z][a-z0-9-]*/gm) ?? [];
  return flags.map((f) => f.trim()).filter((f) => f !== '--help');
};

/** The flags named in the first column of the tables between two markers of the doc. */
const documented = (from: string, to: string) => {
  const start = doc.indexOf(from);
  const end = doc.indexOf(to, start);
  expect(start, from).toBeGreaterThanOrEqual(0);
  expect(end, to).toBeGreaterThan(start);
  const firstCells = doc.slice(start, end).split('\n').filter((l) => l.startsWith('| `--')).map((l) => l.split('|')[1]);
  return new Set(firstCells.flatMap((c) => c.match(/--[a-z][a-z0-9-]*/g) ?? []));
};

const cases: [cli: string, script: string, from: string, to: string][] = [
  ['npm run eval', 'cli/eval.ts', '## Evaluate a running service', '**Before the first question**'],
  ['npm run compare', 'cli/compare.ts', '### `npm run compare -- A B`', '**A worked comparison'],
  ['npm run table', 'cli/table.ts', "### A paper's table: `npm run table`", 'Each cell is one evaluation folder'],
];

describe('docs/EVAL.md lists every flag of the evaluation CLIs', () => {
  it.each(cases)('%s: each declared flag has its row, and each row names a declared flag', (_, script, from, to) => {
    const flags = declared(script);
    expect(flags.length).toBeGreaterThan(2);
    const rows = documented(from, to);
    expect(flags.filter((f) => !rows.has(f))).toEqual([]);
    expect([...rows].filter((f) => !flags.includes(f))).toEqual([]);
  });
});
