/// <reference types="node" />
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareEvaluations, manifestDiff, type Comparison, type Side } from '../compare/compare';
import { judgeReference } from '../judge-reference';
import { loadBenchmark, parseHybridQAReference } from '../loaders/index';
import type { EvalManifest } from '../manifest';
import type { CragJudge } from '../metrics/crag';
import { goldText } from '../report/analysis';
import { indexPredictions, scoreBenchmark, type ScoreOptions } from '../score';
import type { Benchmark, EvalItem, Prediction } from '../types';
import { sha256File } from './provenance';
import { readBenchmarkText, readPredictionLines } from './read-text';
import { LABELS_FILE, readLabelTable } from './wikidata-labels';

/** The two evaluations cannot be compared; the message says why. */
export class CompareRefusal extends Error {}

interface Folder {
  dir: string;
  benchmark: Benchmark;
  manifest: EvalManifest;
}

const readFolder = (dir: string): Folder => {
  const file = join(dir, 'metrics.json');
  if (!existsSync(file)) throw new CompareRefusal(`${dir} holds no metrics.json: give the output folders of two evaluations`);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { benchmark?: Benchmark; manifest?: EvalManifest };
  if (!doc.manifest) throw new CompareRefusal(`${file} has no manifest (written before manifests existed): run that evaluation again`);
  if (!doc.manifest.data) throw new CompareRefusal(`${file}: its manifest names no data file`);
  return { dir, benchmark: doc.benchmark!, manifest: doc.manifest };
};

/** Refuses two evaluations of different benchmarks or data files: their questions are not the same questions. */
const checkComparable = (a: Folder, b: Folder) => {
  if (a.benchmark !== b.benchmark) throw new CompareRefusal(`different benchmarks: ${a.dir} is ${a.benchmark}, ${b.dir} is ${b.benchmark}`);
  const da = a.manifest.data!;
  const db = b.manifest.data!;
  if (da.sha256 !== db.sha256) {
    throw new CompareRefusal(`different data files: ${a.dir} read ${da.path} (sha256 ${da.sha256.slice(0, 12)}…), ${b.dir} read ${db.path} (sha256 ${db.sha256.slice(0, 12)}…)`);
  }
  if ((a.manifest.reference?.sha256 ?? null) !== (b.manifest.reference?.sha256 ?? null)) throw new CompareRefusal('different HybridQA reference files');
};

/** The data file as the manifest names it, or `--data`, checked against the manifest's SHA-256. */
const dataPath = (f: Folder, override?: string): string => {
  const path = override ?? f.manifest.data!.path;
  if (!existsSync(path)) throw new CompareRefusal(`the data file ${path} named by ${f.dir}/metrics.json is not there: pass --data <file>`);
  const sha = sha256File(path);
  if (sha !== f.manifest.data!.sha256) throw new CompareRefusal(`${path} is not the file the evaluations read (sha256 ${sha.slice(0, 12)}… ≠ ${f.manifest.data!.sha256.slice(0, 12)}…)`);
  return path;
};

const scoreSide = async (f: Folder, items: readonly EvalItem[], base: ScoreOptions): Promise<Side> => {
  const predictions = indexPredictions(readPredictionLines(join(f.dir, 'predictions.jsonl')) as Prediction[]);
  const asked = new Set(f.manifest.asked.ids);
  const mine = items.filter((i) => asked.has(i.id) && predictions.has(i.id));
  const scoring: ScoreOptions = { ...base, qaldLabels: f.benchmark === 'qald9plus' ? readLabelTable(join(f.dir, LABELS_FILE)) : undefined, language: f.manifest.language ?? 'en' };
  const result = await scoreBenchmark(f.benchmark, mine, predictions, scoring);
  return { url: f.manifest.service.url, predictions, rows: result.items, scoring };
};

/**
 * Re-scores both evaluations' predictions against the data file their manifests name (each with its own QALD label
 * table, as its evaluation scored), and compares them on the questions both asked.
 */
export const compareFolders = async (dirA: string, dirB: string, o: { data?: string; judge?: CragJudge; judgeName?: string } = {}): Promise<Comparison> => {
  const a = readFolder(dirA);
  const b = readFolder(dirB);
  checkComparable(a, b);
  const path = dataPath(a, o.data);
  const refPath = a.manifest.reference?.path;
  const reference = refPath ? parseHybridQAReference(readBenchmarkText(refPath)) : undefined;
  const language = a.manifest.language ?? undefined;
  const items = loadBenchmark(a.benchmark, readBenchmarkText(path), { reference, language });
  const base: ScoreOptions = { reference, judge: o.judge, judgeName: o.judgeName };
  const A = await scoreSide(a, items, base);
  const B = await scoreSide(b, items, base);
  const gold = (item: EvalItem) => (item.gold.kind === 'qald9plus' && A.scoring.qaldLabels ? judgeReference(item, A.scoring.qaldLabels, A.scoring.language) : goldText(item.gold));
  return compareEvaluations(a.benchmark, items, A, B, { gold, manifestDiff: manifestDiff(a.manifest, b.manifest), aggregateWith: base });
};
