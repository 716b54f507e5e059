import * as z from 'zod';
import { CAPS, InputRefusal, readJsonFile } from '../src/eval/node/input-files';
import { BENCHMARKS } from '../src/eval/types';
import { checkKeys, checkNames } from './eval-options';

/**
 * A table's spec (`npm run table -- --spec table.json`): its columns (benchmarks, each a data file and how its
 * questions are chosen), its rows (systems: a mode and options), and the baseline row. Paths may name environment
 * variables as `${BENCHMARK_DATA}`. Checked whole before anything is asked: unknown keys, names that collide as
 * folders, prototype keys in options.
 */

const name = z.string().min(1).max(80);
const options = z.record(z.string(), z.unknown());

const benchmarkSchema = z.strictObject({
  benchmark: z.enum(BENCHMARKS).optional().meta({ description: 'the benchmark (default: the column\'s name)' }),
  data: z.string().min(1).max(4096),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).optional().meta({ description: 'the data file\'s SHA-256: a file with other bytes is refused before anything is asked' }),
  gitBlob: z.string().regex(/^[0-9a-f]{40}$/).optional().meta({ description: 'the data file\'s git blob id in its upstream repository (git hash-object), for a file whose SHA-256 was never published: other bytes are refused the same way' }),
  reference: z.string().max(4096).optional(),
  tables: z.string().max(4096).optional(),
  mmqaDir: z.string().max(4096).optional(),
  sample: z.number().int().positive().optional(),
  seed: z.number().int().min(0).optional(),
  limit: z.number().int().positive().optional(),
  lang: z.string().regex(/^[a-z]{2,3}(-[a-z0-9]+)?$/i).optional(),
  wikidataApi: z.string().max(4096).optional(),
  labels: z.string().max(4096).optional(),
  variant: z.string().max(40).optional(),
});

const systemSchema = z.strictObject({
  mode: z.string().regex(/^[a-z][a-z0-9-]{0,40}$/).optional(),
  options: options.optional(),
  // Options for one column only (e.g. the authors' library of each benchmark, `library: "hqa-qald"`).
  byBenchmark: z.record(name, options).optional(),
});

const specSchema = z.strictObject({
  title: z.string().max(300).optional(),
  benchmarks: z.record(name, benchmarkSchema).refine((r) => Object.keys(r).length > 0, { message: 'at least one benchmark' }),
  systems: z.record(name, systemSchema).refine((r) => Object.keys(r).length > 1, { message: 'at least two systems (a baseline and one to compare with it)' }),
  baseline: name.optional(),
  options: options.optional().meta({ description: 'options every system runs with (a system\'s own go on top)' }),
});

export type TableSpec = z.infer<typeof specSchema>;

/** `${NAME}` in a path, from the environment; an unset variable is refused rather than read as an empty string. */
const expand = (path: string, where: string) =>
  path.replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (_, v: string) => {
    const value = process.env[v];
    if (!value) throw new InputRefusal(`${where}: ${path} names \${${v}}, which is not set (e.g. export ${v}=../shared/data)`);
    return value;
  });

export interface ReadSpec {
  title: string;
  benchmarks: { key: string; benchmark: (typeof BENCHMARKS)[number]; spec: z.infer<typeof benchmarkSchema> }[];
  systems: { name: string; mode?: string; options?: Record<string, unknown>; byBenchmark?: Record<string, Record<string, unknown>> }[];
  baseline: string;
  options?: Record<string, unknown>;
}

export const readTableSpec = (file: string, baselineFlag?: string): ReadSpec => {
  const raw = readJsonFile(file, CAPS.small, 'table spec');
  checkKeys(raw, `table spec ${file}`);
  const parsed = specSchema.safeParse(raw);
  if (!parsed.success) {
    throw new InputRefusal(`table spec ${file}: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(the spec)'}: ${i.message}`).join('; ')}`);
  }
  const s = parsed.data;
  const columnNames = checkNames(Object.keys(s.benchmarks), `table spec ${file}: benchmark`);
  const rowNames = checkNames(Object.keys(s.systems), `table spec ${file}: system`);
  const benchmarks = Object.entries(s.benchmarks).map(([key, b], i) => {
    const benchmark = b.benchmark ?? (BENCHMARKS as readonly string[]).find((x) => x === key);
    if (!benchmark) throw new InputRefusal(`table spec ${file}: benchmarks.${key} needs "benchmark" (one of ${BENCHMARKS.join(', ')}) since its name is not one`);
    const where = `table spec ${file}: benchmarks.${key}`;
    const paths = Object.fromEntries((['data', 'reference', 'tables', 'mmqaDir', 'labels'] as const).filter((k) => b[k]).map((k) => [k, expand(b[k]!, where)]));
    return { key: columnNames[i], benchmark: benchmark as (typeof BENCHMARKS)[number], spec: { ...b, ...paths } };
  });
  for (const [row, sys] of Object.entries(s.systems)) {
    for (const col of Object.keys(sys.byBenchmark ?? {})) if (!(col in s.benchmarks)) throw new InputRefusal(`table spec ${file}: systems.${row}.byBenchmark.${col} names no benchmark of the table`);
  }
  const systems = Object.entries(s.systems).map(([, sys], i) => ({
    name: rowNames[i],
    ...(sys.mode ? { mode: sys.mode } : {}),
    ...(sys.options ? { options: sys.options } : {}),
    ...(sys.byBenchmark ? { byBenchmark: Object.fromEntries(Object.entries(sys.byBenchmark).map(([k, v]) => [columnNames[Object.keys(s.benchmarks).indexOf(k)], v])) } : {}),
  }));
  const wanted = baselineFlag ?? s.baseline ?? Object.keys(s.systems)[0];
  const at = Object.keys(s.systems).indexOf(wanted);
  if (at < 0) throw new InputRefusal(`table spec ${file}: the baseline "${wanted}" is not one of its systems (${Object.keys(s.systems).join(', ')})`);
  return { title: s.title ?? `table ${file}`, benchmarks, systems, baseline: rowNames[at], options: s.options };
};
