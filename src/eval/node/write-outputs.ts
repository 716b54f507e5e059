/// <reference types="node" />
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { familyFigures } from '../families/index';
import { honestFigures } from '../honest';
import { aggregateRows } from '../scorers/index';
import { buildManifest } from '../manifest';
import { predictionsCsv } from '../report/csv';
import { renderReport } from '../report/html';
import { riskCoverage } from '../report/risk-coverage';
import type { ScoreOptions } from '../score';
import type { ManifestInputs } from '../manifest';
import type { Benchmark, EvalItem, Prediction, ScoreResult } from '../types';

/** What of an evaluation's options the outputs record. */
interface Evaluation {
  benchmark: Benchmark;
  items: EvalItem[];
  url: string;
  outDir: string;
  concurrency?: number;
  sample?: { n: number; seed: number };
  manifest?: ManifestInputs;
}

interface Facts {
  evalId: string;
  startedAt: string;
  variant?: string;
  mode?: string;
  options?: Record<string, unknown>;
  language: string;
  judgeCalls?: number;
  errors: number;
}

/**
 * metrics.json (the metrics with their intervals, the honest flags, the manifest), report.html and predictions.csv
 * of a scored evaluation.
 */
export const writeOutputs = (a: { o: Evaluation; result: ScoreResult; predictions: Map<string, Prediction>; scoring: ScoreOptions; facts: Facts; extra: Record<string, unknown> }) => {
  const { o, result, predictions, facts } = a;
  const endedAt = new Date().toISOString();
  const manifest = buildManifest(o.manifest ?? {}, {
    evalId: facts.evalId,
    url: o.url,
    variant: facts.variant,
    mode: facts.mode,
    options: facts.options,
    items: o.items,
    predictions,
    sample: o.sample,
    language: o.benchmark === 'qald9plus' ? facts.language : undefined,
    startedAt: facts.startedAt,
    endedAt,
    concurrency: o.concurrency ?? 4,
    judge: result.judge && result.judge !== 'none' ? result.judge : undefined,
  });
  const honest = honestFigures(result.benchmark, result.items, a.scoring);
  const rows = result.items.map((i) => ({ ...i, values: i.values ?? { main: i.score } }));
  const scored = new Set(rows.map((r) => r.id));
  const families = familyFigures({ benchmark: result.benchmark, items: o.items.filter((i) => scored.has(i.id)), predictions, rows, aggregate: (r) => aggregateRows(result.benchmark, r, a.scoring) });
  honest.warnings.push(...families.warnings);
  const rc = riskCoverage(o.items, predictions, result.items);
  const rehearsal = o.manifest?.rehearsal === true;
  const doc = {
    rehearsal,
    benchmark: result.benchmark,
    n: result.n,
    metrics: result.metrics,
    ci95: honest.ci95,
    bootstrap: honest.bootstrap,
    emptyGold: honest.emptyGold,
    metricsNonEmptyGold: honest.metricsNonEmptyGold,
    warnings: honest.warnings,
    ...families.fields,
    ...(result.judge ? { judge: result.judge } : {}),
    ...(facts.judgeCalls !== undefined ? { judgeCalls: facts.judgeCalls } : {}),
    variant: facts.variant ?? null,
    mode: facts.mode ?? null,
    url: o.url,
    ...(o.sample ? { sample: o.sample } : {}),
    ...(facts.options ? { options: facts.options } : {}),
    ...(o.benchmark === 'qald9plus' ? { language: facts.language } : {}),
    errors: facts.errors,
    ...a.extra,
    riskCoverage: rc,
    manifest,
    createdAt: endedAt,
  };
  const files = { predictions: join(o.outDir, 'predictions.jsonl'), metrics: join(o.outDir, 'metrics.json'), report: join(o.outDir, 'report.html'), csv: join(o.outDir, 'predictions.csv') };
  writeFileSync(files.metrics, `${JSON.stringify(doc, null, 2)}\n`);
  writeFileSync(
    files.report,
    renderReport(o.items, predictions, result, { url: o.url, variant: facts.variant, mode: facts.mode, createdAt: endedAt, scoring: a.scoring, manifest, honest, rehearsal, sections: families.sections }),
  );
  writeFileSync(files.csv, predictionsCsv(o.items, predictions, result.items, o.url));
  return { files, manifest, honest, riskCoverage: { best: rc.best }, families: { fields: families.fields, summaries: families.summaries } };
};
