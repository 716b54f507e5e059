import { escapeHtml } from '../report/escape';
import type { Interval } from '../stats/bootstrap';
import type { TableComparison, TableDoc } from './types';

/**
 * A table in the paper's layout, one row per system and for each benchmark two columns: the main metric with its 95 %
 * interval, and the paired delta against the baseline row with its interval, p and Holm-corrected p. The same content
 * as markdown (printed), CSV (one line per cell, long format), LaTeX (booktabs) and a standalone HTML page.
 */

const num = (v: number | null | undefined, d = 1) => (v === null || v === undefined ? '–' : v.toFixed(d));
const signed = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${v > 0 ? '+' : ''}${v.toFixed(1)}`);
const pv = (p: number | null | undefined) => (p === null || p === undefined ? '–' : p < 0.001 ? p.toExponential(1) : p.toFixed(3));
const interval = (ci: Interval | null | undefined, sign = false) => (ci ? `[${sign ? signed(ci[0]) : num(ci[0])}, ${sign ? signed(ci[1]) : num(ci[1])}]` : '');

const options = (o: Record<string, unknown> | undefined) => (o && Object.keys(o).length ? JSON.stringify(o) : '');

/** The text of each cell, per row: score columns and delta columns, benchmark by benchmark. */
const cellTexts = (t: TableDoc) =>
  t.systems.map((s) => {
    const cells = t.benchmarks.flatMap((b) => {
      const c = t.cells[s.name]?.[b.key];
      const x = t.comparisons[s.name]?.[b.key];
      const score = c ? `${num(c.value)} ${interval(c.ci95)}${c.finished && c.finished.n < c.finished.of ? ` (${c.finished.n}/${c.finished.of} finished)` : ''}`.trim() : '';
      return [score, s.name === t.baseline ? 'baseline' : deltaText(x)];
    });
    return [s.name, s.mode ?? 'default', options(s.options), ...cells];
  });

const deltaText = (x: TableComparison | undefined) => (x ? `${signed(x.delta)} ${interval(x.ci95, true)} p=${pv(x.p)} Holm ${pv(x.pHolm)}${x.warnings.length ? ' *' : ''}` : '');

const headers = (t: TableDoc) => ['system', 'mode', 'options', ...t.benchmarks.flatMap((b) => [`${b.key} ${b.mainMetric}`, `Δ vs ${t.baseline}`])];

/** Footnotes: what could explain a delta, per starred cell. */
const footnotes = (t: TableDoc): string[] =>
  t.systems.flatMap((s) => t.benchmarks.flatMap((b) => (t.comparisons[s.name]?.[b.key]?.warnings ?? []).map((w) => `${s.name} on ${b.key}: ${w}`)));

export const tableMarkdown = (t: TableDoc): string => {
  const head = headers(t);
  const rows = cellTexts(t);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const notes = footnotes(t);
  return [
    `${t.title}`,
    '',
    line(head),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
    '',
    `Cells: the main metric with its 95 % interval. Δ: the paired delta against ${t.baseline} on the same questions, its 95 % interval, p and p corrected for the ${t.correction.comparisons} comparisons of the table (${t.correction.description}).`,
    ...(notes.length ? ['', '* what could explain the delta:', ...notes.map((n) => `  - ${n}`)] : []),
    '',
  ].join('\n');
};

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  // Text that a spreadsheet would run as a formula gets a leading quote; numbers stay numbers.
  const safe = typeof v === 'string' && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** One line per cell (long format, for pandas or a spreadsheet). */
export const tableCsv = (t: TableDoc): string => {
  const head = ['system', 'mode', 'options', 'benchmark', 'metric', 'n', 'value', 'ci_lo', 'ci_hi', 'delta', 'delta_lo', 'delta_hi', 'p', 'test', 'p_holm', 'finished', 'warnings'];
  const lines = t.systems.flatMap((s) =>
    t.benchmarks.map((b) => {
      const c = t.cells[s.name]?.[b.key];
      const x = t.comparisons[s.name]?.[b.key];
      return [s.name, s.mode ?? '', options(s.options), b.key, b.mainMetric, c?.n, c?.value, c?.ci95?.[0], c?.ci95?.[1], x?.delta, x?.ci95?.[0], x?.ci95?.[1], x?.p, x?.test, x?.pHolm, c?.finished ? `${c.finished.n}/${c.finished.of}` : '', x?.warnings.join(' | ')]
        .map(csvCell)
        .join(',');
    }),
  );
  return `${[head.join(','), ...lines].join('\n')}\n`;
};

const tex = (s: string) => s.replace(/[\\{}$&#^_%~]/g, (c) => (c === '\\' ? '\\textbackslash{}' : c === '~' ? '\\textasciitilde{}' : c === '^' ? '\\textasciicircum{}' : `\\${c}`));

/** A booktabs tabular: score with its interval as a subscript, and the delta with its Holm-corrected p. */
export const tableTex = (t: TableDoc): string => {
  const cols = `l${'rr'.repeat(t.benchmarks.length)}`;
  const head = ['System', ...t.benchmarks.flatMap((b) => [`${tex(b.key)} (${tex(b.mainMetric)})`, `$\\Delta$ vs ${tex(t.baseline)}`])].join(' & ');
  const rows = t.systems.map((s) => {
    const cells = t.benchmarks.flatMap((b) => {
      const c = t.cells[s.name]?.[b.key];
      const x = t.comparisons[s.name]?.[b.key];
      const score = c ? `$${num(c.value)}_{${c.ci95 ? `[${num(c.ci95[0])},${num(c.ci95[1])}]` : ''}}$` : '';
      const delta = s.name === t.baseline ? '--' : x ? `$${signed(x.delta)}$ ($p_{\\mathrm{Holm}}$=${pv(x.pHolm)})${x.warnings.length ? '$^{*}$' : ''}` : '';
      return [score, delta];
    });
    return `${[tex(s.name), ...cells].join(' & ')} \\\\`;
  });
  return [
    `% ${t.title.replace(/\n/g, ' ')}`,
    `% cells: main metric with its 95 % interval; Delta: paired delta against ${t.baseline}, p corrected for ${t.correction.comparisons} comparisons (Holm)`,
    `\\begin{tabular}{${cols}}`,
    '\\toprule',
    `${head} \\\\`,
    '\\midrule',
    ...rows,
    '\\bottomrule',
    '\\end{tabular}',
    '',
  ].join('\n');
};

export const tableHtml = (t: TableDoc): string => {
  const head = headers(t).map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const rows = cellTexts(t)
    .map((r, i) => `<tr${t.systems[i].name === t.baseline ? ' class="base"' : ''}>${r.map((c, j) => `<td${j > 2 ? ' class="num"' : ''}>${escapeHtml(c)}</td>`).join('')}</tr>`)
    .join('');
  const notes = footnotes(t).map((n) => `<li>${escapeHtml(n)}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(t.title)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1300px;padding:0 16px;color:#1d232a}table{border-collapse:collapse}td,th{border-bottom:1px solid #eef;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f5f6fa}.num{text-align:right;font-variant-numeric:tabular-nums}tr.base td{font-weight:600}</style></head><body>
<h1>${escapeHtml(t.title)}</h1>
<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>
<p>Cells: the main metric with its 95 % interval. Δ: the paired delta against <b>${escapeHtml(t.baseline)}</b> on the same questions, its 95 % interval, p and p corrected for the ${t.correction.comparisons} comparisons of the table (${escapeHtml(t.correction.description)}). Each cell's evaluation is in its folder (table.json names it).</p>
${notes ? `<h2>What could explain a delta (*)</h2><ul>${notes}</ul>` : ''}
</body></html>
`;
};
