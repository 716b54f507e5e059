import { basename, dirname, join } from 'node:path';
import { recordArchive, runsOf, uploadArchive } from '../src/eval/node/archive';
import { runEpochs, type EpochsSummary } from '../src/eval/node/epochs';
import { runEvaluation, type EvaluationOptions, type EvaluationSummary } from '../src/eval/node/evaluate';
import { quirkText, rehearse } from '../src/eval/node/rehearse';
import { summaryLine } from '../src/eval/honest';
import type { ManifestInputs } from '../src/eval/manifest';
import { preflight, type ServiceInfo } from '../src/eval/runner/preflight';
import { requestBody } from '../src/eval/runner/run';
import { formatInterval } from '../src/eval/stats/bootstrap';
import type { Prediction } from '../src/eval/types';

export type CliEvaluation = Omit<EvaluationOptions, 'url'>;

export interface Archives {
  record?: string;
  replay?: string;
}

const round1 = (v: number) => Math.round(10 * v) / 10;

/**
 * Whether the confidence is worth anything: the share of answers a verified citation holds, accuracy per confidence
 * level, and the share of verified citations that support the answer (with its interval).
 */
const trustFigures = (s: EvaluationSummary) => ({
  verifiedCitationRate: s.verifiedCitationRate === null ? null : round1(s.verifiedCitationRate),
  byConfidence: Object.fromEntries(s.byConfidence.map((g) => [g.label, { n: g.n, accuracy: round1(g.accuracy) }])),
  citationSupport: {
    rate: s.citationSupport.rate === null ? null : round1(s.citationSupport.rate),
    ci95: s.citationSupport.ci95?.map(round1) ?? null,
    supporting: s.citationSupport.supporting,
    verified: s.citationSupport.verified,
  },
});

/** The figures every summary carries: intervals, the empty-gold count, how the runs ended, warnings, the best abstention threshold. */
const honestOut = (s: EvaluationSummary) => ({
  ci95: s.honest.ci95,
  emptyGold: s.honest.emptyGold,
  ...(s.honest.emptyGold ? { metricsNonEmptyGold: s.honest.metricsNonEmptyGold } : {}),
  ...s.families.fields,
  ...(s.honest.warnings.length ? { warnings: s.honest.warnings } : {}),
  bestAbstainBelow: s.riskCoverage.best,
});

/** The summary line on stderr: every metric with its interval and what did not finish, then each warning. */
export const printSummary = (s: EvaluationSummary) => {
  process.stderr.write(`${summaryLine(s.metrics, s.honest.ci95, s.n, s.families.summaries)}\n`);
  for (const w of s.honest.warnings) process.stderr.write(`warning: ${w}\n`);
};

const printEpochs = (e: EpochsSummary) => {
  const metrics = Object.keys(e.figures.metrics);
  process.stderr.write(`\n${e.k} epochs, n=${e.n}: ${metrics.map((m) => `${m} ${e.figures.metrics[m]?.toFixed(1) ?? '–'} ${formatInterval(e.figures.ci95[m])} (sd ${e.figures.spread[m]?.sd.toFixed(1) ?? '–'})`).join(' · ')}\n`);
  e.figures.perEpoch.forEach((m, i) => process.stderr.write(`  epoch ${i + 1}: ${metrics.map((k) => `${k} ${m[k]?.toFixed(1) ?? '–'}`).join(' · ')}\n`));
  for (const w of e.warnings) process.stderr.write(`warning: ${w}\n`);
};

/** Asks the service, before the first question, whether it can take these requests (docs/EVAL.md, "Fail fast"). */
export const check = async (url: string, o: CliEvaluation, sets: { mode?: string; options?: Record<string, unknown> }[]): Promise<ServiceInfo> => {
  const byMode = new Map<string, typeof sets>();
  for (const s of sets) byMode.set(s.mode ?? o.mode ?? '', [...(byMode.get(s.mode ?? o.mode ?? '') ?? []), s]);
  let info: ServiceInfo | undefined;
  for (const [mode, group] of byMode) {
    const bodies = group.map((s) => requestBody(o.items[0], { ...o, mode: mode || undefined, options: s.options }));
    const got = await preflight(url, { apiKey: o.apiKey, variant: bodies[0].variant, mode: bodies[0].mode, bodies });
    info ??= got;
  }
  process.stderr.write(`service ${info!.url}: version ${info!.version}, commit ${info!.commit}, model ${info!.llm.model ?? '?'}${info!.mode ? `, mode ${info!.mode}` : ''}\n`);
  return info!;
};

/** --replay: upload the archive and name it in every run's options. */
const beforeRuns = async (url: string, options: CliEvaluation, a: Archives) => {
  if (!a.replay) return;
  const { archiveId, records } = await uploadArchive({ url, file: a.replay, apiKey: options.apiKey });
  process.stderr.write(`replaying ${a.replay} (${records} records) as ${archiveId}\n`);
  options.options = { ...(options.options ?? {}), evidence: { replay: archiveId } };
};

/** Where --record writes: a bare file name goes beside the outputs, a path where it says. */
export const recordPath = (file: string, outDir: string) => (basename(file) === file ? join(outDir, file) : file);

/**
 * --record: once every question is answered, one archive of every run's evidence, named in the manifest by its
 * SHA-256 (the outputs are written after it, so metrics.json and the report carry it).
 */
const recorder = (url: string, o: CliEvaluation, file: string) => async (predictions: Map<string, Prediction>): Promise<Partial<ManifestInputs>> => {
  const runIds = [...new Set(o.items.map((i) => predictions.get(i.id)?.runId).filter((id): id is string => !!id))];
  const r = await recordArchive({ url, runIds, file: recordPath(file, o.outDir), apiKey: o.apiKey });
  process.stderr.write(`recorded ${r.records} distinct requests of ${r.runs} runs into ${r.file} (${r.bytes} bytes, sha256 ${r.sha256.slice(0, 12)}…)\n`);
  if (r.failed) process.stderr.write(`warning: the evidence of ${r.failed} runs could not be fetched\n`);
  return { evidenceArchive: { file: r.file, sha256: r.sha256, records: r.records, bytes: r.bytes, runs: r.runs, failed: r.failed } };
};

/** --replay: how many requests the archive did not hold. */
const replayMisses = (options: CliEvaluation, a: Archives): Record<string, unknown> => {
  if (!a.replay) return {};
  const { runIds, misses } = runsOf(join(options.outDir, 'predictions.jsonl'), new Set(options.items.map((i) => i.id)));
  process.stderr.write(`replay: ${misses} requests were not in the recording\n`);
  return { replay: { archive: a.replay, runs: runIds.length, misses } };
};

/** The JSON line on stdout. */
const summaryJson = (summary: EvaluationSummary, extra: Record<string, unknown>) => {
  const out: Record<string, unknown> = { benchmark: summary.benchmark, n: summary.n, metrics: summary.metrics, ...honestOut(summary), ...trustFigures(summary) };
  if (summary.usage.evidenceCache.hitRate !== null) out.evidenceCache = summary.usage.evidenceCache;
  if (summary.usage.promptsTrimmed) out.promptsTrimmed = summary.usage.promptsTrimmed;
  if (summary.judge) out.judge = summary.judge;
  if (summary.manifest.evidenceArchive) out.record = summary.manifest.evidenceArchive;
  return { ...out, ...extra };
};

/** One evaluation (or K epochs of it): check the service, ask every question, print the summary line and the JSON summary. */
export const evaluateOnce = async (url: string, options: CliEvaluation, archives: Archives, extra: { skippedNoContext?: number; epochs?: number } = {}) => {
  await beforeRuns(url, options, archives);
  const service = await check(url, options, [{ options: options.options }]);
  const run: EvaluationOptions = { ...options, url, manifest: { ...options.manifest, service }, ...(archives.record ? { beforeWrite: recorder(url, options, archives.record) } : {}) };
  if ((extra.epochs ?? 1) > 1) {
    const e = await runEpochs(run, extra.epochs!);
    printEpochs(e);
    process.stderr.write(`wrote ${e.files.metrics}\n      ${e.files.report}\n      and one folder per epoch: ${e.epochs.map((s) => dirname(s.files.metrics)).join(', ')}\n`);
    process.stdout.write(`${JSON.stringify({ benchmark: e.benchmark, n: e.n, epochs: e.k, metrics: e.figures.metrics, ci95: e.figures.ci95, ci95QuestionsOnly: e.figures.ci95QuestionsOnly, perEpoch: e.figures.perEpoch, spread: e.figures.spread, ...(e.warnings.length ? { warnings: e.warnings } : {}) })}\n`);
    return e;
  }
  const summary = await runEvaluation(run);
  const missing = extra.skippedNoContext ? `, ${extra.skippedNoContext} not asked (context missing)` : '';
  process.stderr.write(`asked ${summary.asked}, skipped ${summary.skipped} (resume)${missing}, errors ${summary.errors}\n`);
  process.stderr.write(`wrote ${summary.files.predictions}\n      ${summary.files.metrics}\n      ${summary.files.report}\n      ${summary.files.csv}\n`);
  printSummary(summary);
  const out = summaryJson(summary, { ...(extra.skippedNoContext ? { skippedNoContext: extra.skippedNoContext } : {}), ...replayMisses(options, archives) });
  process.stdout.write(`${JSON.stringify(out)}\n`);
  return summary;
};

/**
 * --rehearse: our own `npm run dev` with the model stub answering every question with its gold answer; prints
 * the main metric and, per item below 100 (or at 100 only by a scorer rule), the gold-format quirk or "UNEXPLAINED".
 */
export const rehearseCli = async (options: CliEvaluation, archives: Archives = {}, port?: number) => {
  const { rehearsalPort, startRehearsalService } = await import('./rehearse-service');
  const free = await rehearsalPort(port);
  process.stderr.write('starting npm run dev with the gold-answer model stub…\n');
  const service = await startRehearsalService({}, free);
  process.stderr.write(`serving at ${service.url}\n`);
  try {
    await beforeRuns(service.url, options, archives);
    const info = await check(service.url, options, [{ options: options.options }]);
    const beforeWrite = archives.record ? recorder(service.url, options, archives.record) : undefined;
    const r = await rehearse({ ...options, manifest: { ...options.manifest, service: info, rehearsal: true }, service, beforeWrite });
    const replayed = replayMisses(options, archives);
    for (const item of [...r.explained, ...r.unexplained]) {
      const why = item.quirk ? `${item.quirk}: ${quirkText(item.quirk)}` : `UNEXPLAINED${item.error ? ` (${item.error})` : ''}`;
      process.stderr.write(`  ${item.id} score ${(100 * item.score).toFixed(1)} — ${why}\n    answer: ${JSON.stringify(item.answer)} gold: ${JSON.stringify(item.gold.slice(0, 200))}\n`);
    }
    process.stderr.write(`wrote ${r.files.predictions}\n      ${r.files.metrics}\n      ${r.files.report}\n      ${r.files.csv}\n`);
    printSummary(r);
    const out = { rehearsal: true, benchmark: r.benchmark, mode: r.mode, n: r.n, errors: r.errors, main: { [r.mainMetric]: r.main }, ...summaryJson(r, replayed), explained: r.explained.length, unexplained: r.unexplained.length };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    if (r.unexplained.length || r.errors) process.exitCode = 1;
  } finally {
    await service.stop();
  }
};
