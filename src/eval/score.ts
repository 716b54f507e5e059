import { compmixCorrect } from './metrics/compmix';
import { cragExactVerdict } from './metrics/crag';
import { hybridqaExact } from './metrics/hybridqa';
import { scoreMintaka, type MintakaMode } from './metrics/mintaka';
import { mmqaListEm } from './metrics/mmqa';
import { qaldQuestion } from './metrics/qald';
import { qaldGoldKey } from './metrics/qald-answer';
import { SCORERS, aggregateRows } from './scorers/index';
import { qaldSystemSet } from './scorers/qald';
import type { ScoreOptions } from './scorers/types';
import type { Benchmark, EvalItem, Prediction, ScoreResult } from './types';

export type { ScoreOptions } from './scorers/types';
export { indexPredictions, predictionList } from './predictions';

/**
 * The gold questions a predictions file answers, and how many it never asked: an eval over a sample, a `--limit` or
 * the HybridQA tables at hand writes lines for the questions it asked only (failed ones included, with `error`).
 */
export const askedItems = (items: readonly EvalItem[], predictions: Map<string, Prediction>): { asked: EvalItem[]; neverAsked: number } => {
  const asked = items.filter((i) => predictions.has(i.id));
  return { asked, neverAsked: items.length - asked.length };
};

/** Whether a free-text answer (e.g. one source's) is right under the benchmark's strict per-question rule. */
export const isAnswerCorrect = (item: EvalItem, answer: string, mintakaMode: MintakaMode = 'text', opts: ScoreOptions = {}): boolean => {
  const p: Prediction = { id: item.id, answer };
  const g = item.gold;
  switch (g.kind) {
    case 'mintaka':
      return scoreMintaka(g, { answer }, mintakaMode).em === 1;
    case 'qald9plus':
      return qaldQuestion(qaldSystemSet(item, p, opts), new Set(g.answers.map(qaldGoldKey))).f1 === 1;
    case 'compmix':
      return compmixCorrect(answer, g.answers);
    case 'hybridqa':
      return hybridqaExact(g.answer, answer) === 1;
    case 'mmqa':
      return mmqaListEm(answer, g.answers) === 1;
    case 'crag':
      return cragExactVerdict(answer, [g.answer, ...g.alternatives]) === 'correct';
  }
};

/**
 * Scores predictions against gold items with the benchmark's official rules (one scorer per benchmark,
 * src/eval/scorers/). Values are unrounded percentages; a question without a prediction scores as wrong. Each item
 * keeps its per-question values, so any subset or resample can be re-aggregated (`aggregateRows`).
 */
export const scoreBenchmark = async (
  benchmark: Benchmark,
  items: readonly EvalItem[],
  predictions: Map<string, Prediction>,
  opts: ScoreOptions = {},
): Promise<ScoreResult> => {
  const { rows, notes, judge } = await SCORERS[benchmark].score(items, predictions, opts);
  const metrics = aggregateRows(benchmark, rows, opts);
  return { benchmark, n: rows.length, metrics, notes: notes.length ? notes : undefined, judge, items: rows };
};
