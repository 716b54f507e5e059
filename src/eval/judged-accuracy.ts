import { judgeReference } from './judge-reference';
import type { CragJudge } from './metrics/crag';
import type { QaldLabelTable } from './metrics/qald-labels';
import type { EvalItem, ItemScore, Prediction } from './types';

const NON_ANSWER = /^\s*(i\s+(do\s+not|don'?t)\s+know|unknown|none|n\/a|no answer)?\s*[.!]?\s*$/i;

/**
 * A model-judged accuracy beside the exact metrics (the HQA paper's manual column "M"): a question the exact
 * metric already counts as right needs no call, an empty or "I don't know" answer is wrong without one, and
 * every other answer goes to the judge with the gold answer. Returns the percentage and the calls made.
 */
export const judgedAccuracy = async (
  items: readonly EvalItem[],
  predictions: Map<string, Prediction>,
  scores: readonly ItemScore[],
  judge: CragJudge,
  opts: { labels?: QaldLabelTable; language?: string } = {},
): Promise<{ accuracy: number; calls: number; judged: Map<string, boolean> }> => {
  const exact = new Map(scores.map((s) => [s.id, s.correct]));
  const judged = new Map<string, boolean>();
  let calls = 0;
  for (const item of items) {
    if (!exact.has(item.id)) continue;
    if (exact.get(item.id)) {
      judged.set(item.id, true);
      continue;
    }
    const p = predictions.get(item.id);
    const text = typeof p?.answer === 'string' ? p.answer : '';
    if (!p || p.error || NON_ANSWER.test(text)) {
      judged.set(item.id, false);
      continue;
    }
    calls++;
    judged.set(item.id, (await judge(item.question, judgeReference(item, opts.labels, opts.language), text)) === true);
  }
  const n = judged.size || 1;
  return { accuracy: (100 * [...judged.values()].filter(Boolean).length) / n, calls, judged };
};
