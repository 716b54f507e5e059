import { qaldMacro, qaldQuestion } from '../metrics/qald';
import { qaldGoldKey, qaldSystemKeys } from '../metrics/qald-answer';
import { predictionList, predictionText } from '../predictions';
import type { EvalItem, Prediction } from '../types';
import { row, type BenchmarkScorer, type QuestionRow, type ScoreOptions } from './types';

/** The answer set a prediction gives for a QALD question: IRIs (through the label table), literals, or a boolean. */
export const qaldSystemSet = (item: EvalItem, p: Prediction, opts: ScoreOptions): Set<string> => {
  const gold = item.gold.kind === 'qald9plus' ? item.gold : undefined;
  return qaldSystemKeys(
    { text: predictionText(p), list: predictionList(p), entities: Array.isArray(p.entities) ? p.entities : undefined },
    { goldAnswers: gold?.answers ?? [], boolean: gold?.boolean, labels: opts.qaldLabels, language: opts.language },
  );
};

/** GERBIL's Macro F1 QALD: per-question P and R with QALD's empty-answer rules; the F1 is taken over the averages. */
export const qaldScorer: BenchmarkScorer = {
  main: 'macro_f1_qald',
  means: () => ['precision', 'recall', 'macro_f1'],
  async score(items, predictions, opts) {
    const rows: QuestionRow[] = [];
    for (const item of items) {
      if (item.gold.kind !== 'qald9plus') continue;
      const gold = new Set(item.gold.answers.map(qaldGoldKey));
      const p = predictions.get(item.id);
      // No prediction at all is a wrong answer: GERBIL's "no answer" (P=1, R=0), or P=R=0 when
      // the gold is empty (an empty answer there would otherwise count as right).
      const pr = p ? qaldQuestion(qaldSystemSet(item, p, opts), gold) : gold.size > 0 ? { precision: 1, recall: 0, f1: 0 } : { precision: 0, recall: 0, f1: 0 };
      rows.push(row(item.id, { precision: pr.precision, recall: pr.recall, macro_f1: pr.f1 }, pr.f1, !p, pr.f1 === 1, gold.size === 0));
    }
    const notes = opts.qaldLabels ? [] : ['no label table: text answers match gold literals only, never gold entities'];
    return { rows, notes };
  },
  aggregate: (rows) => qaldMacro(rows.map((r) => ({ precision: r.values.precision, recall: r.values.recall, f1: r.values.macro_f1 }))),
};
