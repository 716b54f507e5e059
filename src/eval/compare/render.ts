import { escapeHtml, safeHref } from '../report/escape';
import type { Comparison, SideOfFlip } from './compare';

const f = (v: number | null, d = 1) => (v === null ? '–' : v.toFixed(d));
const signed = (v: number | null) => (v === null ? '–' : `${v > 0 ? '+' : ''}${v.toFixed(1)}`);
const pv = (p: number | null) => (p === null ? '–' : p < 0.0001 ? p.toExponential(1) : p.toFixed(4));

const ci = (v: [number, number] | null) => (v ? `[${signed(v[0])}, ${signed(v[1])}]` : '–');

/** A markdown table whose columns are as wide as their widest cell. */
const markdown = (header: string[], rows: string[][]): string[] => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((x, i) => x.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
};

const metricRows = (metrics: Comparison['metrics']) => Object.entries(metrics).map(([k, m]) => [k, f(m.a), f(m.b), signed(m.delta), ci(m.ci95), pv(m.p), m.test]);

/** The table `npm run compare` prints: one row per metric, then wins/losses/ties and what differs between the runs. */
export const comparisonTable = (c: Comparison, names: { a: string; b: string }): string => {
  const header = ['metric', `A`, `B`, 'delta', '95% CI of delta', 'p', 'test'];
  const a = c.abstention;
  const epochs = c.epochs.a > 1 || c.epochs.b > 1 ? ` (epochs per question: A ${c.epochs.a}, B ${c.epochs.b}; each question's scores averaged over them)` : '';
  const categories = Object.entries(c.byCategory).map(([k, x]) => [k, String(x.n), f(x.a), f(x.b), signed(x.delta), ci(x.ci95)]);
  return [
    `${c.benchmark}: A = ${names.a}, B = ${names.b}; ${c.n} questions asked by both${c.unpaired.onlyA || c.unpaired.onlyB ? ` (${c.unpaired.onlyA} only in A, ${c.unpaired.onlyB} only in B, left out)` : ''}${epochs}`,
    ...markdown(header, metricRows(c.metrics)),
    ...(c.metricsNonEmptyGold ? [`over the ${c.n - c.emptyGold} questions whose gold is not empty (${c.emptyGold} have an empty gold set):`, ...markdown(header, metricRows(c.metricsNonEmptyGold))] : []),
    ...(categories.length > 1 ? [`${c.mainMetric} per category:`, ...markdown(['category', 'n', 'A', 'B', 'delta', '95% CI of delta'], categories)] : []),
    `B against A on the main per-question score: ${c.wins} wins, ${c.losses} losses, ${c.ties} ties; ${c.flipped.length} questions flipped`,
    `citations that support the answer: A ${f(c.citationSupport.a)} %, B ${f(c.citationSupport.b)} % of the verified ones (${signed(c.citationSupport.delta)})`,
    `"I don't know": A ${a.a}, B ${a.b}; B newly abstained on ${a.newlyAbstained.n} (A had ${a.newlyAbstained.wereRight} of them right, ${a.newlyAbstained.wereWrong} wrong) and newly answered ${a.newlyAnswered.n} (${a.newlyAnswered.right} right)`,
    ...c.notes,
    `manifest fields that differ: ${c.manifestDiff.map((d) => d.field).join(', ') || 'none'}`,
    ...c.warnings.map((w) => `warning: ${w}`),
    '',
  ].join('\n');
};

const link = (s: SideOfFlip) => {
  const href = s.runUrl ? safeHref(s.runUrl) : undefined;
  return href ? `<a href="${escapeHtml(href)}">${escapeHtml(s.runId ?? 'run')}</a>` : escapeHtml(s.runId ?? '');
};

/** comparison.html: the same table, every flipped question with both answers and both runs, the manifest diff. */
export const comparisonHtml = (c: Comparison, names: { a: string; b: string }): string => {
  const mainRows = metricRows(c.metrics)
    .map((r) => `<tr>${r.map((x, i) => `<td${i && i < 6 ? ' class="num"' : ''}>${escapeHtml(x)}</td>`).join('')}</tr>`)
    .join('');
  const flips = c.flipped
    .map((x) => `<tr><td><code>${escapeHtml(x.id)}</code></td><td>${escapeHtml(x.question)}</td><td>${escapeHtml(x.gold)}</td><td>${escapeHtml(x.a.answer ?? '')}<br><small>${f(100 * x.a.score, 0)} · ${escapeHtml(x.a.confidence ?? '')} · ${link(x.a)}</small></td><td>${escapeHtml(x.b.answer ?? '')}<br><small>${f(100 * x.b.score, 0)} · ${escapeHtml(x.b.confidence ?? '')} · ${link(x.b)}</small></td></tr>`)
    .join('');
  const diff = c.manifestDiff.map((d) => `<tr><td><code>${escapeHtml(d.field)}</code></td><td><code>${escapeHtml(JSON.stringify(d.a))}</code></td><td><code>${escapeHtml(JSON.stringify(d.b))}</code></td></tr>`).join('');
  const a = c.abstention;
  const table = (rows: string[][], head: string[]) => `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((x, i) => `<td${i ? ' class="num"' : ''}>${escapeHtml(x)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  const nonEmpty = c.metricsNonEmptyGold ? `<h2>Over the ${c.n - c.emptyGold} questions whose gold is not empty</h2>${table(metricRows(c.metricsNonEmptyGold), ['metric', 'A', 'B', 'delta', '95 % CI', 'p', 'test'])}` : '';
  const categories = Object.keys(c.byCategory).length > 1 ? `<h2>${escapeHtml(c.mainMetric)} per category</h2>${table(Object.entries(c.byCategory).map(([k, x]) => [k, String(x.n), f(x.a), f(x.b), signed(x.delta), ci(x.ci95)]), ['category', 'n', 'A', 'B', 'delta', '95 % CI'])}` : '';
  const warnings = c.warnings.map((w) => `<p class="warn"><b>Warning:</b> ${escapeHtml(w)}</p>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(`${c.benchmark}: ${names.a} vs ${names.b}`)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#1d232a}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eef;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f5f6fa}.num{text-align:right;font-variant-numeric:tabular-nums}h2{font-size:17px;margin-top:28px}.warn{background:#fde8e8;border:1px solid #d98;border-radius:6px;padding:8px 12px}</style></head><body>
<h1>${escapeHtml(c.benchmark)}: B against A</h1>
${warnings}
<p>A = <code>${escapeHtml(names.a)}</code>, B = <code>${escapeHtml(names.b)}</code>. ${c.n} questions asked by both (${c.unpaired.onlyA} only in A, ${c.unpaired.onlyB} only in B, left out). Delta = B − A in points; its 95 % interval is a paired bootstrap over questions; p is McNemar's exact test for 0/1 per-question metrics, a paired permutation test otherwise.</p>
<table><thead><tr><th>metric</th><th class="num">A</th><th class="num">B</th><th class="num">delta</th><th class="num">95 % CI</th><th class="num">p</th><th>test</th></tr></thead><tbody>${mainRows}</tbody></table>
<p>Citations that support the answer: A ${f(c.citationSupport.a)} %, B ${f(c.citationSupport.b)} % of the verified ones (${signed(c.citationSupport.delta)} points).</p>
${nonEmpty}${categories}
<p>${c.notes.map(escapeHtml).join('<br>')}</p>
<p>On the main per-question score B has <b>${c.wins}</b> wins, <b>${c.losses}</b> losses and <b>${c.ties}</b> ties. "I don't know": A ${a.a}, B ${a.b}; B newly abstained on ${a.newlyAbstained.n} (A had ${a.newlyAbstained.wereRight} right, ${a.newlyAbstained.wereWrong} wrong) and newly answered ${a.newlyAnswered.n} (${a.newlyAnswered.right} right).</p>
<h2>Flipped questions (${c.flipped.length})</h2>
${c.flipped.length ? `<table><thead><tr><th>id</th><th>question</th><th>gold</th><th>A</th><th>B</th></tr></thead><tbody>${flips}</tbody></table>` : '<p>None.</p>'}
<h2>What differs between the two evaluations (${c.manifestDiff.length} manifest fields)</h2>
<table><thead><tr><th>field</th><th>A</th><th>B</th></tr></thead><tbody>${diff}</tbody></table>
</body></html>
`;
};
