import { hybridqaExact, hybridqaF1 } from '../metrics/hybridqa';
import { predictionText } from '../predictions';
import { meanOf, row, type BenchmarkScorer, type QuestionRow } from './types';

const over = (rows: readonly QuestionRow[], flag: string) => {
  const picked = rows.filter((r) => r.values[flag] === 1);
  return { em: meanOf(picked, 'em'), f1: meanOf(picked, 'f1') };
};

/**
 * HybridQA's EM and F1, split by where the answer is (table or passage) when the reference file is given. Only the
 * questions asked count: a run over the tables at hand or a sample is scored on those questions.
 */
export const hybridqaScorer: BenchmarkScorer = {
  main: 'em',
  // With a reference, the totals are over the questions it lists, not over every row.
  means: (opts) => (opts.reference ? [] : ['em', 'f1']),
  async score(items, predictions, opts) {
    const ref = opts.reference;
    const table = new Set(ref?.table ?? []);
    const passage = new Set(ref?.passage ?? []);
    const rows: QuestionRow[] = [];
    for (const item of items) {
      if (item.gold.kind !== 'hybridqa') continue;
      const p = predictions.get(item.id);
      const text = predictionText(p);
      const em = text === undefined ? 0 : hybridqaExact(item.gold.answer, text);
      const f1 = text === undefined ? 0 : hybridqaF1(item.gold.answer, text);
      const inRef = ref ? Number(item.id in ref.reference) : 1;
      rows.push(row(item.id, { em, f1, in_total: inRef, in_table: Number(table.has(item.id)), in_passage: Number(passage.has(item.id)) }, em, !p, em === 1, !item.gold.answer.trim()));
    }
    return { rows, notes: ref ? [] : ['no --reference file: table/passage split not computed'] };
  },
  aggregate(rows, opts) {
    const total = over(rows, 'in_total');
    const table = opts.reference ? over(rows, 'in_table') : undefined;
    const passage = opts.reference ? over(rows, 'in_passage') : undefined;
    return {
      em: total.em,
      f1: total.f1,
      table_em: table?.em ?? null,
      table_f1: table?.f1 ?? null,
      passage_em: passage?.em ?? null,
      passage_f1: passage?.f1 ?? null,
    };
  },
};
