import type { EvalManifest } from '../manifest';
import type { EpochFigures } from '../stats/epochs';
import { formatInterval } from '../stats/bootstrap';
import { escapeHtml } from './escape';
import { manifestHtml, warningsHtml } from './sections';

const f = (v: number | null | undefined, d = 1) => (v === null || v === undefined ? '–' : v.toFixed(d));

/**
 * The report of an evaluation run in epochs: each metric's mean over the epochs with the interval counting both
 * questions and epochs (and the one over questions alone beside it), each epoch's scores with its seed, and a link to
 * each epoch's own report (relative, so the folder works anywhere).
 */
export const epochsReport = (o: { benchmark: string; manifest: EvalManifest; figures: EpochFigures; warnings: string[]; folders: string[]; seeds: (number | null)[] }): string => {
  const names = Object.keys(o.figures.metrics);
  const head = names.map((m) => `<th class="num">${escapeHtml(m)}</th>`).join('');
  const summary = names
    .map((m) => {
      const s = o.figures.spread[m];
      return `<tr><td>${escapeHtml(m)}</td><td class="num">${f(o.figures.metrics[m], 2)}</td><td class="num">${escapeHtml(formatInterval(o.figures.ci95[m]))}</td><td class="num">${escapeHtml(formatInterval(o.figures.ci95QuestionsOnly[m]))}</td><td class="num">${f(s?.sd, 2)}</td><td class="num">${f(s?.min)} – ${f(s?.max)}</td></tr>`;
    })
    .join('');
  const perEpoch = o.figures.perEpoch
    .map((m, i) => `<tr><td><a href="${escapeHtml(`${o.folders[i]}/report.html`)}">epoch ${i + 1}</a></td><td class="num">${o.seeds[i] ?? '–'}</td>${names.map((n) => `<td class="num">${f(m[n])}</td>`).join('')}</tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(`${o.benchmark} — ${o.figures.perEpoch.length} epochs`)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#1d232a}table{border-collapse:collapse}td,th{border-bottom:1px solid #eef;padding:4px 8px;text-align:left}th{background:#f5f6fa}.num{text-align:right;font-variant-numeric:tabular-nums}.banner{background:#fff4d6;border:1px solid #e0b84c;border-radius:6px;padding:8px 12px}.warn{background:#fde8e8;border-color:#d98}.manifest th{width:190px;background:none;color:#555}code{font-size:12px}</style></head><body>
<h1>${escapeHtml(o.benchmark)}: ${o.figures.perEpoch.length} epochs</h1>
${warningsHtml(o.warnings)}
${manifestHtml(o.manifest)}
<h2>Over the epochs</h2>
<p>Every question was asked in each epoch, each epoch's runs with their own seed. The 95 % interval counts both sources of variance: ${escapeHtml(o.figures.method)}.</p>
<table><thead><tr><th>metric</th><th class="num">mean</th><th class="num">95 % CI (questions and epochs)</th><th class="num">95 % CI (questions only)</th><th class="num">sd over epochs</th><th class="num">range</th></tr></thead><tbody>${summary}</tbody></table>
<h2>Each epoch</h2>
<table><thead><tr><th>epoch</th><th class="num">seed</th>${head}</tr></thead><tbody>${perEpoch}</tbody></table>
</body></html>
`;
};
