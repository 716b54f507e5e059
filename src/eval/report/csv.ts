import type { EvalItem, ItemScore, Prediction } from '../types';
import { goldText } from './analysis';

const cell = (v: unknown): string => {
  const s = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  // Quote every cell that could break a row; a leading = + - @ is prefixed so a spreadsheet never runs it as a formula.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

const COLUMNS = ['id', 'question', 'category', 'type', 'gold', 'answer', 'score', 'correct', 'empty_gold', 'confidence', 'mode', 'status', 'error', 'run_id', 'run_url', 'sources'];

/** predictions.csv: one row per asked question, for a spreadsheet or pandas. */
export const predictionsCsv = (items: readonly EvalItem[], predictions: Map<string, Prediction>, scores: readonly ItemScore[], url?: string): string => {
  const byId = new Map(scores.map((s) => [s.id, s]));
  const lines = [COLUMNS.join(',')];
  for (const item of items) {
    const s = byId.get(item.id);
    if (!s) continue;
    const p = predictions.get(item.id);
    const runUrl = url && p?.runId ? `${url.replace(/\/+$/, '')}/runs/${encodeURIComponent(p.runId)}` : '';
    const sources = p?.answers && typeof p.answers === 'object' && !Array.isArray(p.answers) ? p.answers : undefined;
    const values = [item.id, item.question, item.category, item.type, goldText(item.gold), p?.answer, s.score, s.correct ? 1 : 0, s.emptyGold ? 1 : 0, p?.confidence, p?.mode, p?.status, p?.error, p?.runId, runUrl, sources];
    lines.push(values.map(cell).join(','));
  }
  return `${lines.join('\n')}\n`;
};
