import { join } from 'node:path';
import { recordArchive, runsOf, uploadArchive } from '../src/eval/node/archive';
import { runEvaluation, type EvaluationOptions, type EvaluationSummary } from '../src/eval/node/evaluate';
import { quirkText, rehearse } from '../src/eval/node/rehearse';
import { summaryLine } from '../src/eval/honest';
import { preflight, type ServiceInfo } from '../src/eval/runner/preflight';
import { requestBody } from '../src/eval/runner/run';
import { formatInterval } from '../src/eval/stats/bootstrap';
import type { SweepSet } from './eval-options';

export type CliEvaluation = Omit<EvaluationOptions, 'url'>;

interface Archives {
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

/** The figures every summary carries: intervals, the empty-gold count, warnings, the best abstention threshold. */
const honestOut = (s: EvaluationSummary) => ({
  ci95: s.honest.ci95,
  emptyGold: s.honest.emptyGold,
  ...(s.honest.emptyGold ? { metricsNonEmptyGold: s.honest.metricsNonEmptyGold } : {}),
  ...(s.honest.warnings.length ? { warnings: s.honest.warnings } : {}),
  bestAbstainBelow: s.riskCoverage.best,
});

/** The summary line on stderr: every metric with its interval, then each warning. */
const printSummary = (s: EvaluationSummary) => {
  process.stderr.write(`${summaryLine(s.metrics, s.honest.ci95, s.n)}\n`);
  for (const w of s.honest.warnings) process.stderr.write(`warning: ${w}\n`);
};

/** Asks the service, before the first question, whether it can take these requests (docs/EVAL.md, "Fail fast"). */
const check = async (url: string, o: CliEvaluation, optionSets: (Record<string, unknown> | undefined)[]): Promise<ServiceInfo> => {
  const bodies = optionSets.map((options) => requestBody(o.items[0], { ...o, options }));
  const info = await preflight(url, { apiKey: o.apiKey, variant: bodies[0].variant, mode: bodies[0].mode, bodies });
  process.stderr.write(`service ${info.url}: version ${info.version}, commit ${info.commit}, model ${info.llm.model ?? '?'}${info.mode ? `, mode ${info.mode}` : ''}\n`);
  return info;
};

/** --replay: upload the archive and name it in every run's options. */
const beforeRuns = async (url: string, options: CliEvaluation, a: Archives) => {
  if (!a.replay) return;
  const { archiveId, records } = await uploadArchive({ url, file: a.replay, apiKey: options.apiKey });
  process.stderr.write(`replaying ${a.replay} (${records} records) as ${archiveId}\n`);
  options.options = { ...(options.options ?? {}), evidence: { replay: archiveId } };
};

/** --record: one archive of every run's evidence; --replay: how many requests the archive did not hold. */
const afterRuns = async (url: string, options: CliEvaluation, a: Archives): Promise<Record<string, unknown>> => {
  if (!a.record && !a.replay) return {};
  const { runIds, misses } = runsOf(join(options.outDir, 'predictions.jsonl'), new Set(options.items.map((i) => i.id)));
  const out: Record<string, unknown> = {};
  if (a.replay) {
    out.replay = { archive: a.replay, runs: runIds.length, misses };
    process.stderr.write(`replay: ${misses} requests were not in the recording\n`);
  }
  if (a.record) {
    const r = await recordArchive({ url, runIds, file: a.record, apiKey: options.apiKey });
    out.record = r;
    process.stderr.write(`recorded ${r.records} distinct requests of ${r.runs} runs into ${r.file} (${r.bytes} bytes)\n`);
    if (r.failed) process.stderr.write(`warning: the evidence of ${r.failed} runs could not be fetched\n`);
  }
  return out;
};

/** One evaluation: check the service, ask every question, print the summary line and the JSON summary. */
export const evaluateOnce = async (url: string, options: CliEvaluation, archives: Archives, extra: { skippedNoContext?: number } = {}) => {
  await beforeRuns(url, options, archives);
  const service = await check(url, options, [options.options]);
  const summary = await runEvaluation({ ...options, url, manifest: { ...options.manifest, service } });
  const missing = extra.skippedNoContext ? `, ${extra.skippedNoContext} not asked (context missing)` : '';
  process.stderr.write(`asked ${summary.asked}, skipped ${summary.skipped} (resume)${missing}, errors ${summary.errors}\n`);
  process.stderr.write(`wrote ${summary.files.predictions}\n      ${summary.files.metrics}\n      ${summary.files.report}\n      ${summary.files.csv}\n`);
  printSummary(summary);
  const out: Record<string, unknown> = { benchmark: summary.benchmark, n: summary.n, metrics: summary.metrics, ...honestOut(summary) };
  Object.assign(out, trustFigures(summary));
  if (summary.usage.evidenceCache.hitRate !== null) out.evidenceCache = summary.usage.evidenceCache;
  if (summary.usage.promptsTrimmed) out.promptsTrimmed = summary.usage.promptsTrimmed;
  if (extra.skippedNoContext) out.skippedNoContext = extra.skippedNoContext;
  if (summary.judge) out.judge = summary.judge;
  Object.assign(out, await afterRuns(url, options, archives));
  process.stdout.write(`${JSON.stringify(out)}\n`);
  return summary;
};

/** --sweep: every option set is checked first, then one evaluation each on the same questions, then one table. */
export const runSweep = async (url: string, base: CliEvaluation, sets: SweepSet[], archives: Archives) => {
  if (archives.record || archives.replay) throw new Error('--sweep does not take --record or --replay');
  const merged = sets.map((s) => ({ ...s, options: { ...(base.options ?? {}), ...s.options } }));
  const service = await check(url, base, merged.map((s) => s.options));
  const rows: { name: string; options: Record<string, unknown>; s: EvaluationSummary }[] = [];
  for (const set of merged) {
    process.stderr.write(`\nsweep ${set.name}: ${JSON.stringify(set.options)}\n`);
    const s = await runEvaluation({ ...base, url, outDir: join(base.outDir, set.name), options: set.options, manifest: { ...base.manifest, service } });
    printSummary(s);
    rows.push({ name: set.name, options: set.options, s });
  }
  process.stdout.write(sweepTable(rows));
};

/** One line per option set: its options, each metric with its interval, errors. */
export const sweepTable = (rows: { name: string; options: Record<string, unknown>; s: EvaluationSummary }[]): string => {
  const metrics = Object.keys(rows[0]?.s.metrics ?? {});
  const header = ['set', 'options', 'n', ...metrics, 'errors'];
  const lines = rows.map(({ name, options, s }) => [
    name,
    JSON.stringify(options),
    String(s.n),
    ...metrics.map((m) => `${s.metrics[m] === null ? '–' : s.metrics[m]!.toFixed(1)} ${formatInterval(s.honest.ci95[m])}`.trim()),
    String(s.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [fmt(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt), ''].join('\n');
};

/**
 * --rehearse: our own `npm run dev` with the model stub answering every question with its gold answer; prints
 * the main metric and, per item below 100 (or at 100 only by a scorer rule), the gold-format quirk or "UNEXPLAINED".
 */
export const rehearseCli = async (options: CliEvaluation, archives: Archives = {}, portFlag?: string | true) => {
  const { rehearsalPort, startRehearsalService } = await import('./rehearse-service');
  const port = await rehearsalPort(portFlag);
  process.stderr.write('starting npm run dev with the gold-answer model stub…\n');
  const service = await startRehearsalService({}, port);
  process.stderr.write(`serving at ${service.url}\n`);
  try {
    await beforeRuns(service.url, options, archives);
    const info = await check(service.url, { ...options, mode: options.mode }, [options.options]);
    const r = await rehearse({ ...options, manifest: { ...options.manifest, service: info, rehearsal: true }, service });
    const archived = await afterRuns(service.url, options, archives);
    for (const item of [...r.explained, ...r.unexplained]) {
      const why = item.quirk ? `${item.quirk}: ${quirkText(item.quirk)}` : `UNEXPLAINED${item.error ? ` (${item.error})` : ''}`;
      process.stderr.write(`  ${item.id} score ${(100 * item.score).toFixed(1)} — ${why}\n    answer: ${JSON.stringify(item.answer)} gold: ${JSON.stringify(item.gold.slice(0, 200))}\n`);
    }
    process.stderr.write(`wrote ${r.files.predictions}\n      ${r.files.metrics}\n      ${r.files.report}\n      ${r.files.csv}\n`);
    printSummary(r);
    const out = { rehearsal: true, benchmark: r.benchmark, mode: r.mode, n: r.n, errors: r.errors, main: { [r.mainMetric]: r.main }, metrics: r.metrics, ...honestOut(r), ...trustFigures(r), explained: r.explained.length, unexplained: r.unexplained.length, ...archived };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    if (r.unexplained.length || r.errors) process.exitCode = 1;
  } finally {
    await service.stop();
  }
};
