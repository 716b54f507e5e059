import { scoreMintaka } from '../metrics/mintaka';
import { predictionList, predictionText } from '../predictions';
import { meanOf, row, type BenchmarkScorer, type QuestionRow } from './types';

/** Mintaka's official EM, F1 and Hits@1 (text or KG matching). */
export const mintakaScorer: BenchmarkScorer = {
  main: 'hits1',
  means: () => ['em', 'f1', 'hits1'],
  async score(items, predictions, opts) {
    const mode = opts.mintakaMode ?? 'text';
    const rows: QuestionRow[] = [];
    for (const item of items) {
      if (item.gold.kind !== 'mintaka') continue;
      const p = predictions.get(item.id);
      const s = scoreMintaka(item.gold, p ? { answer: predictionText(p), list: predictionList(p) } : undefined, mode);
      const empty = mode === 'kg' ? !item.gold.kg?.length : !item.gold.text;
      rows.push(row(item.id, { em: s.em, f1: s.f1, hits1: s.hits1 }, s.em, !p, s.em === 1, empty));
    }
    return { rows, notes: mode === 'kg' ? ['KG mode: predictions are compared as lists of Q-ids'] : [] };
  },
  aggregate: (rows) => ({ em: meanOf(rows, 'em'), f1: meanOf(rows, 'f1'), hits1: meanOf(rows, 'hits1') }),
};
