import { compmixCorrect } from '../metrics/compmix';
import { predictionList, predictionText } from '../predictions';
import { meanOf, row, type BenchmarkScorer, type QuestionRow } from './types';

/** CompMix's P@1: the top answer matches a gold entity. */
export const compmixScorer: BenchmarkScorer = {
  main: 'p_at_1',
  means: () => ['p_at_1'],
  async score(items, predictions) {
    const rows: QuestionRow[] = [];
    for (const item of items) {
      if (item.gold.kind !== 'compmix') continue;
      const p = predictions.get(item.id);
      const top = predictionList(p)?.[0] ?? predictionText(p);
      const ok = p ? Number(compmixCorrect(top === undefined ? undefined : String(top), item.gold.answers)) : 0;
      rows.push(row(item.id, { p_at_1: ok }, ok, !p, ok === 1, item.gold.answers.length === 0 && !item.gold.answerText));
    }
    return { rows, notes: [] };
  },
  aggregate: (rows) => ({ p_at_1: meanOf(rows, 'p_at_1') }),
};
