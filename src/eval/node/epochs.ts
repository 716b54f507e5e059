/// <reference types="node" />
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalManifest } from '../manifest';
import { epochsReport } from '../report/epochs-html';
import type { RunCounts } from '../run-statuses';
import { aggregateRows } from '../scorers/index';
import type { QuestionRow } from '../scorers/types';
import { BOOTSTRAP } from '../stats/bootstrap';
import { epochFigures, type EpochFigures } from '../stats/epochs';
import { runEvaluation, type EvaluationOptions, type EvaluationSummary } from './evaluate';

/**
 * `--epochs K`: every question asked K times, each epoch an evaluation of its own in `<out>/epoch-<e>/` (its own id,
 * so its own Idempotency-Key per question, and resumable alone) whose runs all carry `options.sampling.seed`
 * (the epoch's seed). `<out>/metrics.json` then holds the per-epoch scores, their spread, the mean over epochs and an
 * interval that counts both the questions drawn and the answers' variation between epochs (src/eval/stats/epochs.ts).
 */

export const epochFolder = (e: number) => `epoch-${e}`;

/** The seed of epoch e: after the one the options name, else e itself. */
export const epochSeed = (options: Record<string, unknown> | undefined, e: number): number => {
  const base = (options?.sampling as { seed?: unknown } | undefined)?.seed;
  return typeof base === 'number' ? base + e - 1 : e;
};

const withSeed = (options: Record<string, unknown> | undefined, seed: number) => ({
  ...(options ?? {}),
  sampling: { ...((options?.sampling as Record<string, unknown>) ?? {}), seed },
});

export interface EpochsSummary {
  benchmark: EvaluationSummary['benchmark'];
  n: number;
  k: number;
  epochs: EvaluationSummary[];
  figures: EpochFigures;
  warnings: string[];
  files: { metrics: string; report: string };
}

/** Rows of each epoch in the order of the items (the scorers keep it; aligned by id to be sure). */
const alignedRows = (items: EvaluationOptions['items'], epochs: readonly EvaluationSummary[]): QuestionRow[][] =>
  epochs.map((s) => {
    const byId = new Map(s.items.map((r) => [r.id, { ...r, values: r.values ?? { main: r.score } }]));
    return items.filter((i) => epochs.every((x) => x.items.some((r) => r.id === i.id))).map((i) => byId.get(i.id)!);
  });

const sumRuns = (epochs: readonly EvaluationSummary[]): RunCounts | undefined => {
  const all = epochs.map((s) => s.families.fields.runs as RunCounts | undefined).filter((r): r is RunCounts => !!r);
  if (!all.length) return undefined;
  const n = all.reduce((t, r) => t + r.n, 0);
  const keys = [...new Set(all.flatMap((r) => Object.keys(r.statuses)))];
  const count = (get: (r: RunCounts) => number) => {
    const v = all.reduce((t, r) => t + get(r), 0);
    return { n: v, share: n ? Math.round((1000 * v) / n) / 10 : 0 };
  };
  const finished = all.reduce((t, r) => t + r.finished, 0);
  return { n, statuses: Object.fromEntries(keys.map((k) => [k, count((r) => r.statuses[k]?.n ?? 0)])) as RunCounts['statuses'], abstained: count((r) => r.abstained.n), finished, unfinished: n - finished };
};

/** Runs the K epochs one after the other (each resumable), then writes the epochs' metrics.json and report.html. */
export const runEpochs = async (o: EvaluationOptions, k: number): Promise<EpochsSummary> => {
  const epochs: EvaluationSummary[] = [];
  for (let e = 1; e <= k; e++) {
    const seed = epochSeed(o.options, e);
    o.progress?.write(`\nepoch ${e} of ${k} (seed ${seed})\n`);
    epochs.push(await runEvaluation({ ...o, outDir: join(o.outDir, epochFolder(e)), options: withSeed(o.options, seed), manifest: { ...o.manifest, epoch: { k, epoch: e, seed } } }));
  }
  const scoring = { language: o.language ?? 'en', reference: o.reference, judge: o.judge };
  const figures = epochFigures(alignedRows(o.items, epochs), (rows) => aggregateRows(o.benchmark, rows, scoring));
  const warnings = [...new Set(epochs.flatMap((s, i) => s.honest.warnings.map((w) => `epoch ${i + 1}: ${w}`)))];
  const files = { metrics: join(o.outDir, 'metrics.json'), report: join(o.outDir, 'report.html') };
  const manifest = epochsManifest(epochs.map((s) => s.manifest), k);
  const doc = {
    rehearsal: manifest.rehearsal,
    benchmark: o.benchmark,
    n: figures.perEpoch.length ? epochs[0].n : 0,
    metrics: figures.metrics,
    ci95: figures.ci95,
    bootstrap: { ...BOOTSTRAP, method: figures.method },
    epochs: {
      k,
      seeds: epochs.map((s) => s.manifest.epoch?.seed ?? null),
      folders: epochs.map((_, i) => epochFolder(i + 1)),
      perEpoch: figures.perEpoch,
      spread: figures.spread,
      ci95QuestionsOnly: figures.ci95QuestionsOnly,
    },
    emptyGold: epochs[0].honest.emptyGold,
    warnings,
    runs: sumRuns(epochs),
    errors: epochs.reduce((t, s) => t + s.errors, 0),
    variant: manifest.variant,
    mode: manifest.mode,
    url: o.url,
    manifest,
    createdAt: new Date().toISOString(),
  };
  writeFileSync(files.metrics, `${JSON.stringify(doc, null, 2)}\n`);
  writeFileSync(files.report, epochsReport({ benchmark: o.benchmark, manifest, figures, warnings, folders: doc.epochs.folders, seeds: doc.epochs.seeds }));
  return { benchmark: o.benchmark, n: doc.n, k, epochs, figures, warnings, files };
};

const sumByPurpose = (manifests: readonly EvalManifest[]) => {
  const out: EvalManifest['tokens']['byPurpose'] = {};
  for (const m of manifests) {
    for (const [p, t] of Object.entries(m.tokens.byPurpose)) {
      const o = (out[p] ??= { calls: 0, promptTokens: 0, completionTokens: 0 });
      o.calls += t.calls;
      o.promptTokens += t.promptTokens;
      o.completionTokens += t.completionTokens;
    }
  }
  return out;
};

/** The manifest of the whole: the first epoch's, with the epochs' tokens and costs summed and their seeds listed. */
const epochsManifest = (manifests: readonly EvalManifest[], k: number): EvalManifest & { epochs: { k: number; seeds: number[] } } => {
  const first = manifests[0];
  const sum = (get: (m: EvalManifest) => number) => manifests.reduce((t, m) => t + get(m), 0);
  return {
    ...first,
    evalId: null,
    endedAt: manifests.at(-1)!.endedAt,
    epoch: null,
    epochs: { k, seeds: manifests.map((m) => m.epoch?.seed ?? 0) },
    tokens: { byPurpose: sumByPurpose(manifests), promptTokens: sum((m) => m.tokens.promptTokens), completionTokens: sum((m) => m.tokens.completionTokens) },
    cost: first.cost ? { ...first.cost, total: sum((m) => m.cost?.total ?? 0) } : null,
  };
};
