import type { EvalItem, Prediction, ScoreResult } from '../types';
import type { ScoreOptions } from '../score';
import { judgeReference } from '../judge-reference';
import { analyse, goldText, percentile, type GroupStat } from './analysis';
import { escapeHtml, safeHref } from './escape';
import { barChart, groupedBarChart, histogram } from './svg';
import type { EvalManifest } from '../manifest';
import type { HonestFigures } from '../honest';
import { manifestHtml, metricCards, questionsHtml, rehearsalBanner, warningsHtml } from './sections';
import { riskCoverage, riskCoverageHtml } from './risk-coverage';
import { citationSupport } from '../metrics/citation-support';
import { citationSupportHtml } from './citation-support';

export interface ReportMeta {
  url?: string;
  variant?: string;
  mode?: string;
  createdAt?: string;
  /** What was evaluated, shown first. */
  manifest?: EvalManifest;
  /** Intervals, empty-gold counts and warnings. */
  honest?: HonestFigures;
  rehearsal?: boolean;
  /** The options the run was scored with (QALD's label table), so per-source answers are judged the same way. */
  scoring?: ScoreOptions;
  /** Sections of the metric families (src/eval/families/), shown after the metrics. */
  sections?: { heading: string; html: string }[];
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#1d232a}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #dde;padding-bottom:4px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eef;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f5f6fa}.num{text-align:right;font-variant-numeric:tabular-nums}
svg{display:block;margin:8px 0;max-width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:#333}svg .bar,svg .s0{fill:#4c78a8}
svg .s1{fill:#f58518}svg .s2{fill:#54a24b}svg .axis{stroke:#99a}svg .muted{fill:#888}
table.narrow{width:auto;min-width:60%}td code{white-space:nowrap}
.metrics{display:flex;flex-wrap:wrap;gap:12px}.metric{background:#f5f6fa;border-radius:6px;padding:8px 12px}
.metric b{display:block;font-size:20px}.metric small{display:block;color:#555}
.banner{background:#fff4d6;border:1px solid #e0b84c;border-radius:6px;padding:8px 12px}.warn{background:#fde8e8;border-color:#d98}
.trace pre{white-space:pre-wrap;max-height:240px;overflow:auto;margin:2px 0;font-size:12px}td.step{width:90px;color:#555}tr.trace>td{border-bottom:2px solid #dde}
.manifest th{width:190px;background:none;color:#555}details summary{cursor:pointer;font-weight:600;margin:8px 0}tr.best td{font-weight:600}.empty{color:#777}.err{color:#a33}code{font-size:12px}
`;

const fmt = (v: number | null | undefined, digits = 2) => (v === null || v === undefined || Number.isNaN(v) ? '–' : v.toFixed(digits));

const groupBars = (groups: readonly GroupStat[]) => groups.map((g) => ({ label: g.label, value: g.accuracy, note: `n=${g.n}` }));

const summary = (values: readonly number[], unit: string) =>
  values.length
    ? `mean ${fmt(values.reduce((a, b) => a + b, 0) / values.length, 1)}${unit} · median ${fmt(percentile(values, 0.5), 0)}${unit} · p90 ${fmt(percentile(values, 0.9), 0)}${unit} · max ${fmt(Math.max(...values), 0)}${unit}`
    : 'no data';


/**
 * The evaluation report: one self-contained HTML page (no scripts, no external assets), charts as
 * inline SVG. Every piece of data text is escaped: questions, answers and pages are untrusted.
 */
export const renderReport = (items: readonly EvalItem[], predictions: Map<string, Prediction>, result: ScoreResult, meta: ReportMeta = {}): string => {
  const a = analyse(items, predictions, result, meta.scoring);
  const title = `${result.benchmark} — ${meta.variant ?? 'default variant'} / ${meta.mode ?? 'mode not reported'}`;
  const metrics = metricCards(result.metrics, meta.honest?.ci95 ?? {}, meta.honest?.emptyGold ? meta.honest.metricsNonEmptyGold : undefined);
  const gold = (item: EvalItem) => (item.gold.kind === 'qald9plus' && meta.scoring?.qaldLabels ? judgeReference(item, meta.scoring.qaldLabels, meta.scoring.language) : goldText(item.gold));
  const rc = riskCoverage(items, predictions, result.items);
  const sourceRows = a.bySource
    .map((s) => `<tr><td>${escapeHtml(s.source)}</td><td class="num">${fmt(s.prevalence, 1)}</td><td class="num">${s.answered ? fmt(s.precision, 1) : '–'}</td><td class="num">${fmt(s.recall, 1)}</td><td class="num">${s.answered}</td></tr>`)
    .join('');
  const section = (heading: string, body: string) => `<h2>${escapeHtml(heading)}</h2>${body}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>
<h1>${escapeHtml(title)}</h1>
${meta.rehearsal ? rehearsalBanner() : ''}${warningsHtml(meta.honest?.warnings ?? [])}
${meta.manifest ? manifestHtml(meta.manifest) : ''}
<p>${result.n} questions${meta.honest ? ` · ${meta.honest.emptyGold} with an empty gold set · 95 % intervals from ${meta.honest.bootstrap.resamples} bootstrap resamples (seed ${meta.honest.bootstrap.seed})` : ''}${meta.url ? ` · service <code>${escapeHtml(meta.url)}</code>` : ''}${meta.createdAt ? ` · ${escapeHtml(meta.createdAt)}` : ''} · HTTP errors ${a.errors}${result.judge ? ` · judge ${escapeHtml(result.judge)}` : ''}</p>
<div class="metrics">${metrics}</div>
${(meta.sections ?? []).map((x) => section(x.heading, x.html)).join('\n')}
${section('Accuracy per category', barChart(groupBars(a.byCategory), { max: 100, unit: '%', title: 'accuracy per category' }))}
${section('Accuracy per question type', barChart(groupBars(a.byType), { max: 100, unit: '%', title: 'accuracy per type' }))}
${section('Per-source answers (prevalence, precision, recall)', `<p>Prevalence: how often the source gave an answer; precision: how often that answer was right; recall: right answers over all questions.</p>
<table class="narrow"><thead><tr><th>source</th><th class="num">prevalence %</th><th class="num">precision %</th><th class="num">recall %</th><th class="num">answered</th></tr></thead><tbody>${sourceRows}</tbody></table>
${groupedBarChart(
  a.bySource.map((s) => ({ label: s.source, values: [s.prevalence, s.answered ? s.precision : undefined, s.recall] })),
  { series: ['prevalence', 'precision', 'recall'], max: 100, unit: '%', title: 'per-source prevalence, precision and recall' },
)}`)}
${section(
  'Accuracy by confidence',
  `<p>Confidence is the agreement of the sources whose answer a supporting citation verified in the run's evidence (docs/CONFIDENCE.md). Answers with a verified citation: ${
    a.verifiedCitationRate === null ? 'none answered' : `${fmt(a.verifiedCitationRate, 1)}%`
  }.</p>${barChart(groupBars(a.byAgreement), { max: 100, unit: '%', title: 'accuracy by confidence' })}`,
)}
${section('Citation support', citationSupportHtml(citationSupport(items, predictions, result.items)))}
${section('Selective answering (risk–coverage)', riskCoverageHtml(rc, result.benchmark === 'crag'))}
${section('Tool calls per question', `<p>${escapeHtml(summary(a.toolCalls, ''))}</p>${histogram(a.toolCalls, { title: 'tool calls per question' })}`)}
${section('Tokens per question', `<p>${escapeHtml(summary(a.tokens, ''))}</p>${histogram(a.tokens, { title: 'tokens per question' })}`)}
${section('Latency', `<p>${escapeHtml(summary(a.latencyMs, ' ms'))}</p>${histogram(a.latencyMs, { title: 'latency', unit: ' ms' })}`)}
${section(`Every question, by outcome (${result.n})`, questionsHtml(items, predictions, result.items, { url: meta.url, gold }))}
</body></html>
`;
};
