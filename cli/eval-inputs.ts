import { statSync } from 'node:fs';
import { loadBenchmark, parseHybridQAReference } from '../src/eval/loaders/index';
import type { ManifestInputs } from '../src/eval/manifest';
import { prepareContexts } from '../src/eval/node/contexts';
import { CAPS, InputRefusal, regularFile, repeatedIds, sha256File } from '../src/eval/node/input-files';
import { evalCliVersion } from '../src/eval/node/provenance';
import { readBenchmarkText } from '../src/eval/node/read-text';
import { DEFAULT_WIKIDATA_API } from '../src/eval/node/wikidata-labels';
import { seededSample } from '../src/eval/sample';
import type { Benchmark, EvalItem } from '../src/eval/types';

/** How a benchmark's questions are chosen and read (the eval's data flags, or one benchmark of a table's spec). */
export interface DataChoice {
  benchmark: Benchmark;
  data: string;
  reference?: string;
  tables?: string;
  mmqaDir?: string;
  lang?: string;
  sample?: number;
  seed?: number;
  limit?: number;
  wikidataApi?: string;
  labels?: string;
}

export interface PreparedData {
  items: EvalItem[];
  /** Questions left out because their evidence is missing. */
  skippedNoContext: number;
  contextFor: (item: EvalItem) => unknown;
  reference?: ReturnType<typeof parseHybridQAReference>;
  language?: string;
  sample?: { n: number; seed: number };
  wikidataApi?: string;
  labelsFile?: string;
  /** What the manifest records about the data: each file by path and SHA-256, the limit, the CLI's own version. */
  manifest: ManifestInputs;
}

const say = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Reads and chooses the questions, refusing before anything is asked: a data file that is not a regular file
 * within its cap, one that repeats a question id (its second question would fail mid-run with the first's
 * Idempotency-Key), and a selection with no question in it.
 */
export const prepareData = (c: DataChoice): PreparedData => {
  const reference = c.reference ? parseHybridQAReference(readBenchmarkText(c.reference, 'reference file')) : undefined;
  const loaded = loadBenchmark(c.benchmark, readBenchmarkText(c.data), { reference, language: c.lang });
  const repeated = repeatedIds(loaded.map((i) => i.id));
  if (repeated.length) {
    const shown = repeated.slice(0, 5).map((r) => `"${r.id.slice(0, 60)}" ×${r.times}`).join(', ');
    throw new InputRefusal(`data file ${c.data} repeats question ids (${shown}${repeated.length > 5 ? `, and ${repeated.length - 5} more` : ''}): each question needs its own id, so nothing was asked`);
  }
  if (c.lang) say(`${loaded.length} questions have a ${c.lang} string (gold answers unchanged)`);
  for (const dir of [c.tables, c.mmqaDir]) if (dir) checkFolder(dir);
  // Questions whose evidence is missing are dropped before sampling, so a sample is drawn from askable questions.
  const prepared = prepareContexts(c.benchmark, loaded, { tables: c.tables, mmqaDir: c.mmqaDir });
  if (prepared.note) say(prepared.note);
  let items = prepared.items;
  if (c.sample) {
    items = seededSample(items, c.sample, c.seed ?? 0);
    say(`sampled ${items.length} questions with seed ${c.seed ?? 0}`);
  }
  if (c.limit) items = items.slice(0, c.limit);
  if (!items.length) throw new InputRefusal('no question to ask (check --limit, --sample and the data file)');
  if (c.labels) regularFile(c.labels, CAPS.json, 'label table');
  return {
    items,
    skippedNoContext: prepared.skipped,
    contextFor: prepared.contextFor,
    reference,
    language: c.lang,
    sample: c.sample ? { n: c.sample, seed: c.seed ?? 0 } : undefined,
    wikidataApi: c.wikidataApi === 'none' ? undefined : (c.wikidataApi ?? DEFAULT_WIKIDATA_API),
    labelsFile: c.labels,
    manifest: {
      data: { path: c.data, sha256: sha256File(c.data, CAPS.data, 'data file'), questions: loaded.length },
      ...(c.reference ? { reference: { path: c.reference, sha256: sha256File(c.reference, CAPS.data, 'reference file') } } : {}),
      limit: c.limit ?? null,
      evalCli: evalCliVersion(),
    },
  };
};

/** A folder flag must name a folder. */
const checkFolder = (dir: string) => {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new InputRefusal(`${dir}: no such folder`);
  }
  if (!isDir) throw new InputRefusal(`${dir} is not a folder`);
};
