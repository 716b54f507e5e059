import { cragVerdict, type CragVerdict } from '../metrics/crag';
import { predictionText } from '../predictions';
import { meanOf, row, type BenchmarkScorer, type QuestionRow } from './types';

/**
 * CRAG's score: accuracy − hallucination rate, "I don't know" counting as missing (0). A wrong answer costs a point,
 * so the per-question value `score` is +1, 0 or −1.
 */
export const cragScorer: BenchmarkScorer = {
  main: 'score',
  means: () => ['correct', 'missing', 'hallucination', 'score'],
  async score(items, predictions, opts) {
    const rows: QuestionRow[] = [];
    for (const item of items) {
      if (item.gold.kind !== 'crag') continue;
      const p = predictions.get(item.id);
      const text = predictionText(p);
      // No prediction at all is treated as an unanswered question (CRAG's "missing").
      const v: CragVerdict = text === undefined || text.trim() === '' ? 'missing' : await cragVerdict(item.question, text, [item.gold.answer, ...item.gold.alternatives], opts.judge);
      const values = { correct: Number(v === 'correct'), missing: Number(v === 'missing'), hallucination: Number(v === 'hallucination') };
      rows.push(row(item.id, { ...values, score: values.correct - values.hallucination }, values.correct, !p || v === 'missing', v === 'correct', !item.gold.answer.trim()));
    }
    return { rows, notes: opts.judge ? [] : ['no judge model configured: only exact matches count as correct'], judge: opts.judge ? opts.judgeName ?? 'llm' : 'none' };
  },
  aggregate: (rows) => ({ correct: meanOf(rows, 'correct'), missing: meanOf(rows, 'missing'), hallucination: meanOf(rows, 'hallucination'), score: meanOf(rows, 'score') }),
};
