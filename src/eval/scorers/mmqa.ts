import { mmqaListEm, mmqaListF1 } from '../metrics/mmqa';
import { mmqaImageCounts, mmqaSpans } from '../metrics/mmqa-images';
import { predictionList, predictionText } from '../predictions';
import { meanOf, row, type BenchmarkScorer, type QuestionRow } from './types';

const sum = (rows: readonly QuestionRow[], key: string) => rows.reduce((s, r) => s + (r.values[key] ?? 0), 0);

/** MultiModalQA's list EM and F1, and how many image questions a vision model read. */
export const mmqaScorer: BenchmarkScorer = {
  main: 'em',
  means: () => ['em', 'f1'],
  async score(items, predictions) {
    const rows: QuestionRow[] = [];
    const images = mmqaImageCounts(items, predictions);
    for (const item of items) {
      if (item.gold.kind !== 'mmqa') continue;
      const p = predictions.get(item.id);
      const text = predictionText(p);
      const pred = predictionList(p)?.map(String) ?? (text === undefined ? undefined : mmqaSpans(text, item.gold.answers.length));
      const em = pred === undefined ? 0 : mmqaListEm(pred, item.gold.answers);
      const f1 = pred === undefined ? 0 : mmqaListF1(pred, item.gold.answers);
      const one = mmqaImageCounts([item], predictions);
      rows.push(row(item.id, { em, f1, image_question: one.imageQuestions, image_read: one.imageRead }, em, !p, em === 1, item.gold.answers.length === 0));
    }
    return { rows, notes: images.note ? [images.note] : [] };
  },
  aggregate: (rows) => ({ em: meanOf(rows, 'em'), f1: meanOf(rows, 'f1'), image_questions: sum(rows, 'image_question'), image_read: sum(rows, 'image_read') }),
};
