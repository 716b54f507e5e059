/// <reference types="node" />
import { join } from 'node:path';
import { compareEvaluations, manifestDiff, type Comparison, type Side } from '../compare/compare';
import { compareFamilies } from '../families/index';
import { judgeReference } from '../judge-reference';
import { loadBenchmark, parseHybridQAReference } from '../loaders/index';
import type { CragJudge } from '../metrics/crag';
import { goldText } from '../report/analysis';
import { indexPredictions, scoreBenchmark, type ScoreOptions } from '../score';
import type { QuestionRow } from '../scorers/types';
import { averagedRows } from '../stats/epochs';
import type { Benchmark, EvalItem, Prediction } from '../types';
import { readEvalFolder, type EvalFolder } from './eval-folder';
import { CAPS, checkSha256, InputRefusal, regularFile } from './input-files';
import { readBenchmarkText, readPredictionLines } from './read-text';
import { LABELS_FILE, readLabelTable } from './wikidata-labels';

/** The two evaluations cannot be compared; the message says why. */
export class CompareRefusal extends Error {}

/** Refuses two evaluations of different benchmarks or data files, and a rehearsal against a real run unless allowed. */
const checkComparable = (a: EvalFolder, b: EvalFolder, allowRehearsal: boolean) => {
  if (a.benchmark !== b.benchmark) throw new CompareRefusal(`different benchmarks: ${a.dir} is ${a.benchmark}, ${b.dir} is ${b.benchmark}`);
  const [da, db] = [a.manifest.data!, b.manifest.data!];
  if (da.sha256 !== db.sha256) {
    throw new CompareRefusal(`different data files: ${a.dir} read ${da.path} (sha256 ${da.sha256.slice(0, 12)}…), ${b.dir} read ${db.path} (sha256 ${db.sha256.slice(0, 12)}…)`);
  }
  if ((a.manifest.reference?.sha256 ?? null) !== (b.manifest.reference?.sha256 ?? null)) throw new CompareRefusal('different HybridQA reference files');
  if (a.rehearsal !== b.rehearsal && !allowRehearsal) {
    const [r, real] = a.rehearsal ? [a, b] : [b, a];
    throw new CompareRefusal(
      `${r.dir} is a rehearsal (its model echoed the gold answers) and ${real.dir} is not: their delta measures the stub, not a system. Pass --allow-rehearsal to compare them anyway`,
    );
  }
};

/**
 * A file a manifest names, read only when it is a regular file within its cap whose bytes are the ones recorded.
 * `override` (`--data`) points at a moved copy; it must match the same hash.
 */
const namedFile = (f: EvalFolder, recorded: { path: string; sha256: string }, what: string, override?: string): string => {
  const path = override ?? recorded.path;
  try {
    regularFile(path, CAPS.data, what);
  } catch (err) {
    if (err instanceof InputRefusal && /no such file/.test(err.message) && !override) throw new CompareRefusal(`the ${what} ${path} named by ${f.dir}/metrics.json is not there: pass --data <file>`);
    throw err;
  }
  checkSha256(path, recorded.sha256, what);
  return path;
};

const scoreDir = async (f: EvalFolder, dir: string, items: readonly EvalItem[], scoring: ScoreOptions) => {
  const predictions = indexPredictions(readPredictionLines(join(dir, 'predictions.jsonl')) as Prediction[]);
  const asked = new Set(f.manifest.asked.ids);
  const mine = items.filter((i) => asked.has(i.id) && predictions.has(i.id));
  return { predictions, rows: (await scoreBenchmark(f.benchmark, mine, predictions, scoring)).items };
};

/** One side: each of its folders scored as its evaluation scored; with epochs, each question's rows averaged over them. */
const scoreSide = async (f: EvalFolder, items: readonly EvalItem[], base: ScoreOptions): Promise<Side> => {
  const scoring: ScoreOptions = { ...base, qaldLabels: f.benchmark === 'qald9plus' ? readLabelTable(join(f.dir, LABELS_FILE)) ?? readLabelTable(join(f.predictionDirs[0], LABELS_FILE)) : undefined, language: f.manifest.language ?? 'en' };
  const scored = await Promise.all(f.predictionDirs.map((d) => scoreDir(f, d, items, scoring)));
  const common = scored.map((s) => new Set(s.rows.map((r) => r.id))).reduce((x, y) => new Set([...x].filter((id) => y.has(id))));
  const rows = scored.map((s) => s.rows.filter((r) => common.has(r.id)).map((r): QuestionRow => ({ ...r, values: r.values ?? {} })));
  return { url: f.manifest.service.url, predictions: scored[0].predictions, rows: rows.length > 1 ? averagedRows(rows) : rows[0], scoring };
};

export interface CompareOptions {
  data?: string;
  judge?: CragJudge;
  judgeName?: string;
  /** Compare a rehearsal with a real run all the same. */
  allowRehearsal?: boolean;
}

/**
 * Re-scores both evaluations' predictions against the data file their manifests name (each with its own QALD label
 * table, as its evaluation scored), and compares them on the questions both asked.
 */
export const compareFolders = async (dirA: string, dirB: string, o: CompareOptions = {}): Promise<Comparison> => {
  const read = (dir: string) => {
    try {
      return readEvalFolder(dir);
    } catch (err) {
      throw err instanceof InputRefusal ? new CompareRefusal(err.message) : err;
    }
  };
  const a = read(dirA);
  const b = read(dirB);
  checkComparable(a, b, o.allowRehearsal === true);
  const path = namedFile(a, a.manifest.data!, 'data file', o.data);
  const ref = a.manifest.reference;
  const reference = ref ? parseHybridQAReference(readBenchmarkText(namedFile(a, ref, 'reference file'), 'reference file')) : undefined;
  const language = a.manifest.language ?? undefined;
  const items = loadBenchmark(a.benchmark, readBenchmarkText(path), { reference, language });
  const base: ScoreOptions = { reference, judge: o.judge, judgeName: o.judgeName };
  const A = await scoreSide(a, items, base);
  const B = await scoreSide(b, items, base);
  const gold = (item: EvalItem) => (item.gold.kind === 'qald9plus' && A.scoring.qaldLabels ? judgeReference(item, A.scoring.qaldLabels, A.scoring.language) : goldText(item.gold));
  return compareEvaluations(a.benchmark as Benchmark, items, A, B, {
    gold,
    manifestDiff: manifestDiff(a.manifest, b.manifest),
    aggregateWith: base,
    epochs: { a: a.predictionDirs.length, b: b.predictionDirs.length },
    families: compareFamilies(a.doc, b.doc),
  });
};
