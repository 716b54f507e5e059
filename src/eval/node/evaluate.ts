/// <reference types="node" />
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CragJudge } from '../metrics/crag';
import type { HybridQAReference } from '../metrics/hybridqa';
import { citationSupport, type CitationSupport } from '../metrics/citation-support';
import { accuracyByConfidence, verifiedCitationRate, type GroupStat } from '../report/analysis';
import { progressReporter } from '../runner/progress';
import { defaultMode, defaultVariant, optionsSent, requestBody, RUNNER_SETS_DYNAMIC_POLICY, runQuestions } from '../runner/run';
import { fetchSettings } from '../runner/settings';
import { indexPredictions, scoreBenchmark } from '../score';
import type { Benchmark, EvalItem, ItemScore, Prediction } from '../types';
import { judgedAccuracy } from '../judged-accuracy';
import { usageTotals, type UsageTotals } from '../usage-totals';
import type { EvalManifest, ManifestInputs } from '../manifest';
import type { HonestFigures } from '../honest';
import { idempotencyKey, openEvalState } from './eval-state';
import { writeOutputs } from './write-outputs';
import { prepareLabelTable } from './qald-label-cache';
import { readPredictionLines } from './read-text';

export interface EvaluationOptions {
  benchmark: Benchmark;
  items: EvalItem[];
  url: string;
  outDir: string;
  variant?: string;
  mode?: string;
  concurrency?: number;
  resume?: boolean;
  apiKey?: string;
  retries?: number;
  backoffMs?: number;
  reference?: HybridQAReference;
  judge?: CragJudge;
  judgeName?: string;
  /** `--judge` on a benchmark without a judge of its own: a model-judged accuracy beside the exact metrics. */
  answerJudge?: CragJudge & { calls?: () => number };
  contextFor?: (item: EvalItem) => unknown;
  /** Options sent with every question (`--recipe`). */
  options?: Record<string, unknown>;
  /** QALD: the language the questions are asked in (default en). */
  language?: string;
  /** QALD: the Wikibase api.php that names the gold entities; undefined = use only the cached table. */
  wikidataApi?: string;
  /** QALD: a label table file other than `<outDir>/qald-labels.json`. */
  labelsFile?: string;
  /** Recorded in metrics.json: the seeded sample the items were drawn with. */
  sample?: { n: number; seed: number };
  /** What the CLI knows about the service, the data file and prices: recorded as metrics.json's `manifest`. */
  manifest?: ManifestInputs;
  /** Called once every question is answered, before the outputs are written; what it returns joins the manifest (`--record`'s archive). */
  beforeWrite?: (predictions: Map<string, Prediction>) => Promise<Partial<ManifestInputs>>;
  /** For tests: the fetch used for the label table. */
  fetch?: typeof fetch;
  progress?: { write(s: string): unknown; isTTY?: boolean };
}

export interface EvaluationSummary {
  benchmark: Benchmark;
  n: number;
  metrics: Record<string, number | null>;
  judge?: string;
  /** Each question's main score, as the report has it. */
  items: ItemScore[];
  asked: number;
  skipped: number;
  errors: number;
  /** Shared evidence cache hits and misses (hit rate), gate waits, prompts shortened to the model's window. */
  usage: UsageTotals;
  /** Of the answered questions, the share (%) whose answer has a verified citation (docs/CONFIDENCE.md). */
  verifiedCitationRate: number | null;
  /** Accuracy (%) and count per confidence level (docs/CONFIDENCE.md). */
  byConfidence: GroupStat[];
  /** The share of verified citations that support the answer, accuracy by support grade, the citations that only mention it. */
  citationSupport: CitationSupport;
  files: { predictions: string; metrics: string; report: string; csv: string };
  manifest: EvalManifest;
  honest: HonestFigures;
  /** The scoring the metrics were computed with (compare re-scores the same way). */
  riskCoverage: { best: { threshold: string; score: number } };
  /** What the metric families (src/eval/families/) added: metrics.json fields and pieces of the summary line. */
  families: { fields: Record<string, unknown>; summaries: string[] };
}

/** Every question asked failed: nothing was measured, so no metrics or report are written. */
export class NothingAnsweredError extends Error {}

const IDK = /i\s+(do\s+not|don'?t)\s+know/i;

/** How the crag variant treated the questions it judged dynamic. */
const dynamicReport = (items: readonly EvalItem[], predictions: Map<string, Prediction>) => {
  let predictedDynamic = 0;
  let abstainedOnDynamic = 0;
  for (const item of items) {
    const p = predictions.get(item.id);
    if (p?.dynamism !== 'dynamic') continue;
    predictedDynamic++;
    if (IDK.test(p.answer ?? '')) abstainedOnDynamic++;
  }
  return { predictedDynamic, abstainedOnDynamic };
};

/**
 * The mode the questions ran in: the one asked for, else what the runs report (the service picks its variant's
 * default), so the report and metrics.json never say "default mode" when the service said which.
 */
export const modeUsed = (requested: string | undefined, items: readonly EvalItem[], predictions: Map<string, Prediction>): string | undefined => {
  if (requested) return requested;
  const reported = new Set(items.map((i) => predictions.get(i.id)?.mode).filter((m): m is string => typeof m === 'string'));
  return reported.size ? [...reported].sort().join(', ') : undefined;
};

/** What asking the questions left: the answers so far (old and new), and what the run was asked with. */
interface Asked {
  predictions: Map<string, Prediction>;
  /** The items' ids; the questions that already had an error-free answer (not asked again). */
  wanted: Set<string>;
  skip: Set<string>;
  asked: number;
  errors: number;
  variant?: string;
  requestedMode?: string;
  sent?: Record<string, unknown>;
  state: ReturnType<typeof openEvalState>;
}

/**
 * Asks the questions that have no error-free answer yet, each answer appended to predictions.jsonl as it arrives.
 * Refuses to add to an earlier evaluation's answers without `resume`, and fails when every question asked failed.
 */
const askQuestions = async (o: EvaluationOptions): Promise<Asked> => {
  const predictionsPath = join(o.outDir, 'predictions.jsonl');
  const previous = existsSync(predictionsPath) ? indexPredictions(readPredictionLines(predictionsPath) as Prediction[]) : new Map<string, Prediction>();
  if (previous.size > 0 && !o.resume) {
    throw new Error(`${predictionsPath} already has ${previous.size} answers: pass --resume to continue it, or choose another --out`);
  }
  const wanted = new Set(o.items.map((i) => i.id));
  const skip = new Set([...previous.values()].filter((p) => !p.error && wanted.has(p.id)).map((p) => p.id));
  const variant = o.variant ?? defaultVariant(o.benchmark);
  const requestedMode = o.mode ?? defaultMode(o.benchmark);
  const sent = optionsSent(o.benchmark, o.options);
  const state = openEvalState(o.outDir, { variant: variant ?? null, mode: requestedMode ?? null, options: sent ?? null }, o.resume === true);
  const bar = o.progress ? progressReporter(o.progress) : undefined;
  const started = Date.now();
  let shown = 0;
  const { errors } = await runQuestions(o.items, {
    url: o.url,
    benchmark: o.benchmark,
    variant,
    mode: requestedMode,
    concurrency: o.concurrency,
    skip,
    apiKey: o.apiKey,
    retries: o.retries,
    backoffMs: o.backoffMs,
    contextFor: o.contextFor,
    options: o.options,
    keyFor: (item) => idempotencyKey(state.evalId, item.id),
    onPrediction: (p) => {
      appendFileSync(predictionsPath, `${JSON.stringify(p)}\n`);
      // The cause of a failure, as it happens (the first few; the count is on the progress line).
      if (p.error && shown++ < 5) o.progress?.write(`\nquestion ${p.id} failed: ${p.error}\n`);
    },
    onProgress: (done, total, errs) => bar?.update({ done, total, errors: errs, elapsedMs: Date.now() - started }),
  });
  bar?.finish();
  const asked = o.items.length - skip.size;
  const predictions = indexPredictions(readPredictionLines(predictionsPath) as Prediction[]);
  if (asked > 0 && errors === asked) {
    const first = o.items.map((i) => predictions.get(i.id)?.error).find(Boolean);
    throw new NothingAnsweredError(`every one of the ${asked} questions failed, so no metrics or report were written; the first: ${first}`);
  }
  return { predictions, wanted, skip, asked, errors, variant, requestedMode, sent, state };
};

/**
 * Scores the answers: the benchmark's own metrics (QALD's against its gold entities' labels), a model judge's accuracy
 * beside them when one is asked for, and for CRAG how the questions judged dynamic were treated.
 */
const scoreAnswers = async (o: EvaluationOptions, predictions: Map<string, Prediction>) => {
  const language = o.language ?? 'en';
  const labels =
    o.benchmark === 'qald9plus'
      ? await prepareLabelTable({ items: o.items, outDir: o.outDir, file: o.labelsFile, language, api: o.wikidataApi, fetch: o.fetch })
      : undefined;
  if (labels?.note) o.progress?.write(`warning: ${labels.note}\n`);
  const scoring = { reference: o.reference, judge: o.judge, judgeName: o.judgeName, qaldLabels: labels?.table, language };
  const result = await scoreBenchmark(o.benchmark, o.items, predictions, scoring);
  let judgeCalls = (o.judge as { calls?: () => number } | undefined)?.calls?.();
  if (o.answerJudge) {
    const judged = await judgedAccuracy(o.items, predictions, result.items, o.answerJudge, { labels: labels?.table, language });
    result.metrics = { ...result.metrics, judge_accuracy: judged.accuracy };
    for (const r of result.items) r.values = { ...(r.values ?? {}), judge_accuracy: Number(judged.judged.get(r.id) === true) };
    result.judge = o.judgeName ?? 'llm';
    judgeCalls = judged.calls;
  }
  const dynamic = o.benchmark === 'crag' ? dynamicReport(o.items, predictions) : undefined;
  if (dynamic) {
    o.progress?.write(
      `CRAG: dynamicPolicy ${RUNNER_SETS_DYNAMIC_POLICY ? 'set by the runner' : "left to the variant's default"}; ` +
        `${dynamic.predictedDynamic} ${dynamic.predictedDynamic === 1 ? 'question' : 'questions'} judged dynamic by the service, ${dynamic.abstainedOnDynamic} of them answered "I don't know"\n`,
    );
  }
  return { language, labels, scoring, result, judgeCalls, dynamic };
};

/**
 * Runs a benchmark through the service and writes predictions.jsonl (appended as answers arrive,
 * so an interrupted run loses nothing), metrics.json, report.html and predictions.csv. With `resume`, questions
 * that already have an error-free line are not asked again, and the ones in flight when it stopped attach to their
 * runs through the same Idempotency-Key.
 */
export const runEvaluation = async (o: EvaluationOptions): Promise<EvaluationSummary> => {
  mkdirSync(o.outDir, { recursive: true });
  // What decides the numbers on the service's side, asked before the first question (GET /v1/config).
  const described = await fetchSettings(o.url, requestBody(o.items[0], { ...o, contextFor: () => undefined }), { apiKey: o.apiKey });
  const { predictions, wanted, skip, asked, errors, variant, requestedMode, sent, state } = await askQuestions(o);
  const mode = modeUsed(requestedMode, o.items, predictions);
  const more = { settings: described.settings, resolvedOptions: described.resolvedOptions, ...(o.beforeWrite ? await o.beforeWrite(predictions) : {}) };
  const { language, labels, scoring, result, judgeCalls, dynamic } = await scoreAnswers(o, predictions);
  // Live evidence: how much the cache every run shares saved, and what the politeness gates and context windows cost.
  const usage = usageTotals(o.items.map((i) => predictions.get(i.id)?.usage));
  const citationRate = verifiedCitationRate(o.items.map((i) => predictions.get(i.id)));
  const byConfidence = accuracyByConfidence(o.items, predictions, result);
  const support = citationSupport(o.items, predictions, result.items);
  const written = writeOutputs({
    o: { ...o, manifest: { ...o.manifest, ...more } },
    result,
    predictions,
    scoring,
    facts: { evalId: state.evalId, startedAt: state.createdAt, variant, mode, options: sent, language, judgeCalls, errors: [...predictions.values()].filter((p) => p.error && wanted.has(p.id)).length },
    extra: {
      usage,
      verifiedCitationRate: citationRate,
      byConfidence,
      citationSupport: support,
      ...(dynamic ? { crag: { dynamicPolicy: RUNNER_SETS_DYNAMIC_POLICY ? 'set by the runner' : 'variant default', ...dynamic } } : {}),
      notes: [...(result.notes ?? []), ...(labels?.note ? [labels.note] : []), ...(described.note ? [described.note] : [])],
      ...(labels?.table ? { labels: { file: labels.path, api: labels.table.api ?? null, language } } : {}),
    },
  });
  return {
    benchmark: result.benchmark,
    n: result.n,
    metrics: result.metrics,
    judge: result.judge,
    items: result.items,
    asked,
    skipped: skip.size,
    errors,
    usage,
    verifiedCitationRate: citationRate,
    byConfidence,
    citationSupport: support,
    ...written,
  };
};
