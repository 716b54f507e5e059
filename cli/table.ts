/**
 * npm run table -- --spec <table.json> [--url URL] [--out dir] [--epochs K] [flags]   (`--help` lists them)
 * A paper's table from one command: every benchmark of the spec × every system (a mode and its options), one
 * evaluation folder per cell on the same questions, each cell with its interval, each row's paired delta against the
 * baseline row with its interval, p-value and Holm-corrected p-value; written as table.json, .md, .csv, .tex and .html.
 * Running the same command again continues an interrupted table (each question keeps its Idempotency-Key).
 */
import { basename } from 'node:path';
import { CAPS, checkGitBlob, checkSha256 } from '../src/eval/node/input-files';
import type { Benchmark } from '../src/eval/types';
import { fail, flag, parseCli } from './args';
import { prepareData } from './eval-inputs';
import { DEFAULT_URL, SERVICE_FLAGS } from './eval-flags';
import { judgesFor } from './judge-env';
import { mergedOptions, runCells, writeTable, type Column } from './table-run';
import { readTableSpec } from './table-spec';

const CLI = {
  command: 'npm run table --',
  summary:
    'Runs every benchmark of a spec against every system (a mode and its options) on the same questions, one evaluation\n' +
    'folder per cell, and writes the table: each cell\'s main metric with its 95 % interval, each row\'s paired delta against\n' +
    'the baseline row with its interval, p and Holm-corrected p (table.json/.md/.csv/.tex/.html). See docs/EVAL.md, "A paper\'s table".',
  flags: {
    spec: flag.required({ value: 'file', help: 'the table: {"benchmarks": {name: {data, sample?, seed?, limit?, …}}, "systems": {name: {mode?, options?}}, "baseline"?} (required)' }),
    out: flag.text({ value: 'dir', help: 'where the table and its cells go (default eval-results/table-<spec name>)' }),
    baseline: flag.text({ value: 'name', help: 'the row every other row is compared with (default the spec\'s "baseline", else its first system)' }),
    ...SERVICE_FLAGS,
  },
  rules: [{ broken: (a: { 'price-in'?: number; 'price-out'?: number }) => (a['price-in'] === undefined) !== (a['price-out'] === undefined), message: '--price-in and --price-out go together' }],
};

const main = async () => {
  const a = parseCli(process.argv.slice(2), CLI);
  const spec = readTableSpec(a.spec, a.baseline);
  const out = a.out ?? `eval-results/table-${basename(a.spec).replace(/\.json$/i, '')}`;
  const prices = a['price-in'] === undefined ? undefined : { in: a['price-in'], out: a['price-out']! };
  // Every column's questions are read and checked before any question is asked.
  const columns: Column[] = spec.benchmarks.map((b) => {
    const where = `table spec ${a.spec}: benchmarks.${b.key}.data`;
    if (b.spec.sha256) checkSha256(b.spec.data, b.spec.sha256, where, CAPS.data, 'the spec pins');
    if (b.spec.gitBlob) checkGitBlob(b.spec.data, b.spec.gitBlob, where);
    const d = prepareData({ benchmark: b.benchmark as Benchmark, data: b.spec.data, reference: b.spec.reference, tables: b.spec.tables, mmqaDir: b.spec.mmqaDir, lang: b.spec.lang, sample: b.spec.sample, seed: b.spec.seed, limit: b.spec.limit, wikidataApi: b.spec.wikidataApi, labels: b.spec.labels });
    return {
      key: b.key,
      benchmark: b.benchmark,
      base: {
        benchmark: b.benchmark,
        items: d.items,
        outDir: out,
        variant: b.spec.variant,
        mode: b.spec.tables ? 'program' : undefined,
        concurrency: a.concurrency,
        apiKey: a['api-key'],
        retries: a.retries,
        reference: d.reference,
        ...judgesFor(b.benchmark, a),
        contextFor: d.contextFor,
        language: d.language,
        wikidataApi: d.wikidataApi,
        labelsFile: d.labelsFile,
        sample: d.sample,
        options: mergedOptions(spec.options, undefined),
        progress: process.stderr,
        manifest: { ...d.manifest, prices },
      },
    };
  });
  const url = a.url ?? DEFAULT_URL;
  await runCells(url, columns, spec.systems, { out, epochs: a.epochs, resume: true });
  await writeTable({ out, title: spec.title, columns, systems: spec.systems, baseline: spec.baseline });
};

main().catch((e) => fail((e as Error).message));
