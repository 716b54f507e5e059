import { escapeHtml } from '../report/escape';
import { countRuns, finishedIds, unfinishedText, unfinishedWarning, type RunCounts } from '../run-statuses';
import type { MetricFamily } from './types';

const pct = (v: number) => `${v.toFixed(1)} %`;

const statusTable = (c: RunCounts, finished: Record<string, number | null> | null) => {
  const rows = [...Object.entries(c.statuses), ['abstained ("I don\'t know")', c.abstained] as const]
    .map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td class="num">${v.n}</td><td class="num">${pct(v.share)}</td></tr>`)
    .join('');
  const metrics = finished
    ? `<p>Metrics over the ${c.finished} finished runs: ${Object.entries(finished).map(([k, v]) => `${escapeHtml(k)} ${v === null ? '–' : v.toFixed(2)}`).join(' · ')}</p>`
    : c.unfinished
      ? '<p>No run finished: there are no metrics over finished runs.</p>'
      : '';
  return `<table class="narrow"><thead><tr><th>how the run ended</th><th class="num">questions</th><th class="num">share</th></tr></thead><tbody>${rows}</tbody></table>${metrics}`;
};

/**
 * How the runs ended (succeeded, limited, failed, cancelled, no run) and the abstentions, with the metrics over the
 * finished runs beside the headline whenever any run did not finish.
 */
export const runsFamily: MetricFamily = {
  name: 'runs',
  compute({ items, predictions, rows, aggregate }) {
    const runs = countRuns(items, predictions);
    const finished = finishedIds(items, predictions);
    const metricsFinished = runs.finished ? aggregate(rows.filter((r) => finished.has(r.id))) : null;
    const warning = unfinishedWarning(runs);
    return {
      fields: { runs, metricsFinished },
      warnings: warning ? [warning] : [],
      summary: unfinishedText(runs),
      report: { heading: 'How the runs ended', html: statusTable(runs, runs.unfinished ? metricsFinished : null) },
    };
  },
  compare(a, b) {
    const lines: string[] = [];
    const warnings: string[] = [];
    for (const [side, doc] of [['A', a], ['B', b]] as const) {
      const runs = doc.runs as RunCounts | undefined;
      const text = runs ? unfinishedText(runs) : undefined;
      if (text) warnings.push(`${side}: ${text}; a delta between runs that did not all finish measures the limits as much as the systems`);
    }
    const ra = a.runs as RunCounts | undefined;
    const rb = b.runs as RunCounts | undefined;
    if (ra && rb) lines.push(`runs that finished: A ${ra.finished} of ${ra.n}, B ${rb.finished} of ${rb.n}`);
    return { lines, warnings };
  },
};
