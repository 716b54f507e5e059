import { CONFIDENCE_LEVELS, confidenceRank, type Confidence } from '../../engine/confidence';
import type { EvalItem, ItemScore, Prediction } from '../types';
import { escapeHtml } from './escape';

export interface CoverageRow {
  /** Answer only when the confidence is at least this level (`none`: every answer, as the run gave them). */
  threshold: Confidence;
  answered: number;
  /** % of the questions answered. */
  coverage: number;
  /** % of the answered ones that are right (null when none is answered). */
  accuracy: number | null;
  /** CRAG's score with the rest abstained: (right − wrong answered) / all, in %. */
  score: number;
}

export interface RiskCoverage {
  n: number;
  rows: CoverageRow[];
  /** The threshold with the highest CRAG score (among ties the widest coverage, then the least strict level): send it as options.abstainBelow. */
  best: { threshold: CoverageRow['threshold']; score: number };
}

const IDK = /^\s*(i\s+(do\s+not|don'?t)\s+know|unknown|n\/a|no answer)?\s*[.!]?\s*$/i;

/**
 * Selective answering from one evaluation's predictions: had the service answered only at or above each
 * confidence level (and said "I don't know" below it), what share it answers, how often those answers are right,
 * and CRAG's score, where a wrong answer costs a point and an abstention nothing.
 */
export const riskCoverage = (items: readonly EvalItem[], predictions: Map<string, Prediction>, scores: readonly ItemScore[]): RiskCoverage => {
  const byId = new Map(scores.map((s) => [s.id, s]));
  const asked = items.filter((i) => byId.has(i.id));
  const n = asked.length;
  const answers = asked.map((i) => {
    const p = predictions.get(i.id);
    const answered = !!p && !p.error && typeof p.answer === 'string' && !IDK.test(p.answer);
    return { answered, rank: confidenceRank(p?.confidence), correct: byId.get(i.id)!.correct };
  });
  const rows: CoverageRow[] = [...CONFIDENCE_LEVELS].reverse().map((threshold) => {
    const kept = answers.filter((a) => a.answered && a.rank >= confidenceRank(threshold));
    const right = kept.filter((a) => a.correct).length;
    return {
      threshold,
      answered: kept.length,
      coverage: n ? (100 * kept.length) / n : 0,
      accuracy: kept.length ? (100 * right) / kept.length : null,
      score: n ? (100 * (right - (kept.length - right))) / n : 0,
    };
  });
  const best = rows.reduce((b, r) => (r.score > b.score || (r.score === b.score && r.coverage >= b.coverage) ? r : b), rows[0]);
  return { n, rows, best: { threshold: best.threshold, score: best.score } };
};

const f1 = (v: number | null) => (v === null ? '–' : v.toFixed(1));

/** The table and an accuracy-over-coverage chart (inline SVG), for the report. */
export const riskCoverageHtml = (rc: RiskCoverage, crag: boolean): string => {
  const rows = rc.rows
    .map((r) => `<tr${r.threshold === rc.best.threshold ? ' class="best"' : ''}><td><code>${escapeHtml(r.threshold)}</code></td><td class="num">${r.answered}</td><td class="num">${f1(r.coverage)}</td><td class="num">${f1(r.accuracy)}</td><td class="num">${f1(r.score)}</td></tr>`)
    .join('');
  const W = 420;
  const H = 240;
  const pad = 36;
  const x = (c: number) => pad + ((W - 2 * pad) * c) / 100;
  const y = (a: number) => H - pad - ((H - 2 * pad) * a) / 100;
  // Thresholds that answer the same questions share one point, labelled with all their names.
  const points = new Map<string, { coverage: number; accuracy: number; names: string[] }>();
  for (const r of [...rc.rows].reverse()) {
    if (r.accuracy === null) continue;
    const key = `${r.coverage.toFixed(6)}|${r.accuracy.toFixed(6)}`;
    const at = points.get(key) ?? { coverage: r.coverage, accuracy: r.accuracy, names: [] };
    at.names.push(r.threshold);
    points.set(key, at);
  }
  const pts = [...points.values()];
  const line = pts.map((p) => `${x(p.coverage).toFixed(1)},${y(p.accuracy).toFixed(1)}`).join(' ');
  const dots = pts
    .map((p) => {
      const label = p.names.join(' = ');
      const anchor = p.coverage > 60 ? 'end' : 'start';
      const dx = anchor === 'end' ? -6 : 6;
      return `<g><title>${escapeHtml(`${label}: coverage ${f1(p.coverage)} %, accuracy ${f1(p.accuracy)} %`)}</title><circle cx="${x(p.coverage).toFixed(1)}" cy="${y(p.accuracy).toFixed(1)}" r="4" class="bar"/><text x="${(x(p.coverage) + dx).toFixed(1)}" y="${(y(p.accuracy) + 14).toFixed(1)}" text-anchor="${anchor}">${escapeHtml(label)}</text></g>`;
    })
    .join('');
  const axes = `<line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" class="axis"/><line x1="${pad}" y1="${pad}" x2="${pad}" y2="${H - pad}" class="axis"/>` +
    `<text x="${W / 2}" y="${H - 6}" text-anchor="middle">coverage %</text><text x="${pad + 6}" y="${pad - 14}">accuracy of answered %</text>` +
    `<text x="${pad}" y="${H - pad + 14}" text-anchor="middle">0</text><text x="${W - pad}" y="${H - pad + 14}" text-anchor="middle">100</text><text x="${pad - 4}" y="${y(100) + 4}" text-anchor="end">100</text>`;
  const chart = `<svg role="img" aria-label="risk–coverage: accuracy of answered questions against coverage" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">${axes}<polyline points="${line}" fill="none" stroke="#4c78a8"/>${dots}</svg>`;
  return `<p>Had the service answered only at or above each confidence level (<code>options.abstainBelow</code>) and said "I don't know" below it: the share answered, the accuracy of those answers and ${crag ? "CRAG's score" : 'the CRAG-style score (right − wrong, over all questions)'}. Best threshold: <b><code>${escapeHtml(rc.best.threshold)}</code></b> (score ${f1(rc.best.score)}).</p>
<table class="narrow"><thead><tr><th>answer at or above</th><th class="num">answered</th><th class="num">coverage %</th><th class="num">accuracy %</th><th class="num">score</th></tr></thead><tbody>${rows}</tbody></table>${chart}`;
};
