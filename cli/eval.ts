/**
 * npm run eval -- --benchmark <name> --data <file> [flags]   (`npm run eval -- --help` lists every flag)
 * Asks every question through POST <url>/v1/answer, shows progress on stderr, and writes
 * predictions.jsonl, metrics.json and report.html into --out (default eval-results/<benchmark>).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { estimateCost, estimateLines } from '../src/eval/estimate';
import { runEvaluation } from '../src/eval/node/evaluate';
import { InputRefusal } from '../src/eval/node/input-files';
import { readPredictionLines } from '../src/eval/node/read-text';
import { indexPredictions } from '../src/eval/predictions';
import { seededSample } from '../src/eval/sample';
import type { Benchmark, Prediction } from '../src/eval/types';
import { fail, parseCli } from './args';
import { prepareData } from './eval-inputs';
import { DEFAULT_URL, EVAL_CLI, type EvalArgs } from './eval-flags';
import { folderName, parseOptions, readSweep } from './eval-options';
import { check, evaluateOnce, rehearseCli, type CliEvaluation } from './eval-run';
import { judgesFor } from './judge-env';
import { runCells, writeTable } from './table-run';

const prices = (a: EvalArgs) => (a['price-in'] === undefined ? undefined : { in: a['price-in'], out: a['price-out']! });

/** The evaluation the flags describe: its questions, options, judges and what the manifest records. */
const evaluationOf = (a: EvalArgs, b: Benchmark): { base: CliEvaluation; skippedNoContext: number } => {
  const data = prepareData({ benchmark: b, data: a.data, reference: a.reference, tables: a.tables, mmqaDir: a['mmqa-dir'], lang: a.lang, sample: a.sample, seed: a.seed, limit: a.limit, wikidataApi: a['wikidata-api'], labels: a.labels });
  const judges = judgesFor(b, a);
  const options = parseOptions({ file: a['options-file'], recipe: a.recipe, pairs: a.option });
  const outDir = a.out ?? (a.rehearse ? `eval-results/rehearsal-${b}` : `eval-results/${b}`);
  const base: CliEvaluation = {
    benchmark: b,
    items: data.items,
    outDir,
    variant: a.variant,
    mode: a.mode ?? (a.tables ? 'program' : undefined),
    concurrency: a.concurrency,
    resume: a.resume,
    apiKey: a['api-key'],
    retries: a.retries,
    reference: data.reference,
    ...judges,
    contextFor: data.contextFor,
    language: data.language,
    wikidataApi: data.wikidataApi,
    labelsFile: data.labelsFile,
    sample: data.sample,
    options,
    progress: process.stderr,
    manifest: { ...data.manifest, prices: prices(a) },
  };
  return { base, skippedNoContext: data.skippedNoContext };
};

/** --estimate: a pilot of N questions (seeded, from the selection) into <out>/estimate, then calls, tokens and cost. */
const estimate = async (url: string, base: CliEvaluation, pilotSize: number, a: EvalArgs) => {
  const pilot = seededSample(base.items, Math.min(pilotSize, base.items.length), a.seed ?? 0);
  const outDir = join(base.outDir, 'estimate');
  await check(url, base, [{ options: base.options }]);
  process.stderr.write(`pilot: ${pilot.length} of the ${base.items.length} questions selected, into ${outDir}\n`);
  await runEvaluation({ ...base, items: pilot, url, outDir, resume: true });
  const answers = indexPredictions(readPredictionLines(join(outDir, 'predictions.jsonl')) as Prediction[]);
  const e = estimateCost(pilot.map((i) => answers.get(i.id)).filter((p): p is Prediction => !!p), base.items.length, prices(a));
  for (const line of estimateLines(e)) process.stderr.write(`${line}\n`);
  process.stdout.write(`${JSON.stringify({ estimate: e })}\n`);
};

/** --sweep: the sets (a mode and options each) as rows of a one-column table, saved as the table is. */
const sweep = async (url: string, base: CliEvaluation, a: EvalArgs, b: Benchmark) => {
  // A set that names no mode runs the eval's --mode: its row says which.
  const sets = readSweep(a.sweep!).map((s) => ({ ...s, mode: s.mode ?? base.mode }));
  const baseline = a.baseline ? folderName(a.baseline) : sets[0].name;
  if (!sets.some((s) => s.name === baseline)) throw new InputRefusal(`--baseline ${a.baseline}: no such set in ${a.sweep} (it has ${sets.map((s) => s.name).join(', ')})`);
  const columns = [{ key: b, benchmark: b, base }];
  await runCells(url, columns, sets, { out: base.outDir, epochs: a.epochs, resume: a.resume });
  await writeTable({ out: base.outDir, title: `${b}: sweep ${a.sweep}`, columns, systems: sets, baseline });
};

const main = async () => {
  const a = parseCli(process.argv.slice(2), EVAL_CLI);
  const b = a.benchmark!;
  const url = a.url ?? DEFAULT_URL;
  // Everything the flags name is read and checked here, before any question is asked.
  const { base, skippedNoContext } = evaluationOf(a, b);
  if (a.sweep) readSweep(a.sweep);
  const archives = { record: a.record, replay: a.replay };
  if (a.rehearse) {
    // A rehearsal's default folder is its own and starts afresh each time.
    if (!a.out) for (const f of ['predictions.jsonl', 'eval.json']) rmSync(join(base.outDir, f), { force: true });
    return rehearseCli(base, archives, a.port);
  }
  if (a.estimate) return estimate(url, base, a.pilot ?? 10, a);
  if (a.sweep) return sweep(url, base, a, b);
  await evaluateOnce(url, base, archives, { skippedNoContext, epochs: a.epochs });
};

main().catch((e) => fail((e as Error).message));
