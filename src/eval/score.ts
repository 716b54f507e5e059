import { compmixCorrect } from './metrics/compmix';
import { cragTotals, cragVerdict, cragExactVerdict, type CragJudge, type CragVerdict } from './metrics/crag';
import { hybridqaExact, hybridqaF1, type HybridQAReference } from './metrics/hybridqa';
import { scoreMintaka, type MintakaMode } from './metrics/mintaka';
import { mmqaListEm, mmqaListF1 } from './metrics/mmqa';
import { mmqaImageCounts, mmqaSpans } from './metrics/mmqa-images';
import { qaldMacro, qaldQuestion, type PR } from './metrics/qald';
import { qaldGoldKey, qaldSystemKeys } from './metrics/qald-answer';
import type { QaldLabelTable } from './metrics/qald-labels';
import { percentMean } from './pytext';
import type { Benchmark, EvalItem, ItemScore, Prediction, ScoreResult } from './types';

export interface ScoreOptions {
  mintakaMode?: MintakaMode;
  reference?: HybridQAReference;
  /** CRAG's LLM judge; without one only exact matches count as correct. */
  judge?: CragJudge;
  judgeName?: string;
  /** QALD: names of the gold entities, to map text answers to IRIs. */
  qaldLabels?: QaldLabelTable;
  /** QALD: the language the questions were asked in (the label table's language). */
  language?: string;
}

/** A prediction's set answer: `answers` when it is a list (the per-source object is not one). */
export const predictionList = (p: Prediction | undefined): unknown[] | undefined =>
  p && Array.isArray(p.answers) ? (p.answers as unknown[]) : undefined;

const predictionText = (p: Prediction | undefined): string | undefined =>
  p === undefined ? undefined : typeof p.answer === 'string' ? p.answer : p.answer === null || p.answer === undefined ? '' : String(p.answer);

/** Indexes predictions by id; a later line for the same id wins (a resumed run's retry). */
export const indexPredictions = (predictions: Iterable<Prediction>): Map<string, Prediction> => {
  const map = new Map<string, Prediction>();
  for (const p of predictions) if (p && p.id !== undefined) map.set(String(p.id), p);
  return map;
};

/**
 * The gold questions a predictions file answers, and how many it never asked: an eval over a sample, a `--limit` or
 * the HybridQA tables at hand writes lines for the questions it asked only (failed ones included, with `error`).
 */
export const askedItems = (items: readonly EvalItem[], predictions: Map<string, Prediction>): { asked: EvalItem[]; neverAsked: number } => {
  const asked = items.filter((i) => predictions.has(i.id));
  return { asked, neverAsked: items.length - asked.length };
};

const qaldSystemSet = (item: EvalItem, p: Prediction, opts: ScoreOptions): Set<string> => {
  const gold = item.gold.kind === 'qald9plus' ? item.gold : undefined;
  return qaldSystemKeys(
    { text: predictionText(p), list: predictionList(p), entities: Array.isArray(p.entities) ? p.entities : undefined },
    { goldAnswers: gold?.answers ?? [], boolean: gold?.boolean, labels: opts.qaldLabels, language: opts.language },
  );
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
 * Scores predictions against gold items with the benchmark's official rules. Values are unrounded
 * percentages; a question without a prediction scores as wrong.
 */
export const scoreBenchmark = async (
  benchmark: Benchmark,
  items: readonly EvalItem[],
  predictions: Map<string, Prediction>,
  opts: ScoreOptions = {},
): Promise<ScoreResult> => {
  const perItem: ItemScore[] = [];
  const push = (id: string, score: number, missing: boolean, correct = score === 1) =>
    perItem.push({ id, score, correct, missing });
  const notes: string[] = [];
  let metrics: Record<string, number | null>;
  let judge: string | undefined;

  switch (benchmark) {
    case 'mintaka': {
      const mode = opts.mintakaMode ?? 'text';
      const em: number[] = [];
      const f1: number[] = [];
      const hits: number[] = [];
      for (const item of items) {
        if (item.gold.kind !== 'mintaka') continue;
        const p = predictions.get(item.id);
        const s = scoreMintaka(item.gold, p ? { answer: predictionText(p), list: predictionList(p) } : undefined, mode);
        em.push(s.em);
        f1.push(s.f1);
        hits.push(s.hits1);
        push(item.id, s.em, !p);
      }
      metrics = { em: percentMean(em), f1: percentMean(f1), hits1: percentMean(hits) };
      if (mode === 'kg') notes.push('KG mode: predictions are compared as lists of Q-ids');
      break;
    }
    case 'qald9plus': {
      const prs: PR[] = [];
      for (const item of items) {
        if (item.gold.kind !== 'qald9plus') continue;
        const gold = new Set(item.gold.answers.map(qaldGoldKey));
        const p = predictions.get(item.id);
        // No prediction at all is a wrong answer: GERBIL's "no answer" (P=1, R=0), or P=R=0 when
        // the gold is empty (an empty answer there would otherwise count as right).
        const pr = p ? qaldQuestion(qaldSystemSet(item, p, opts), gold) : gold.size > 0 ? { precision: 1, recall: 0, f1: 0 } : { precision: 0, recall: 0, f1: 0 };
        prs.push(pr);
        push(item.id, pr.f1, !p);
      }
      metrics = qaldMacro(prs);
      if (!opts.qaldLabels) notes.push('no label table: text answers match gold literals only, never gold entities');
      break;
    }
    case 'compmix': {
      const hits: number[] = [];
      for (const item of items) {
        if (item.gold.kind !== 'compmix') continue;
        const p = predictions.get(item.id);
        const top = predictionList(p)?.[0] ?? predictionText(p);
        const ok = p ? Number(compmixCorrect(top === undefined ? undefined : String(top), item.gold.answers)) : 0;
        hits.push(ok);
        push(item.id, ok, !p);
      }
      metrics = { p_at_1: percentMean(hits) };
      break;
    }
    case 'hybridqa': {
      const exact = new Map<string, number>();
      const f1 = new Map<string, number>();
      for (const item of items) {
        if (item.gold.kind !== 'hybridqa') continue;
        const p = predictions.get(item.id);
        const text = predictionText(p);
        const e = text === undefined ? 0 : hybridqaExact(item.gold.answer, text);
        const f = text === undefined ? 0 : hybridqaF1(item.gold.answer, text);
        exact.set(item.id, e);
        f1.set(item.id, f);
        push(item.id, e, !p);
      }
      const over = (ids: Iterable<string>) => {
        const list = [...ids];
        return {
          em: percentMean(list.map((id) => exact.get(id) ?? 0)),
          f1: percentMean(list.map((id) => f1.get(id) ?? 0)),
        };
      };
      const ref = opts.reference;
      // Only the questions asked count: a run over the tables at hand or a sample is scored on those questions.
      const asked = (ids: Iterable<string>) => [...ids].filter((id) => exact.has(id));
      const total = over(ref ? asked(Object.keys(ref.reference)) : exact.keys());
      const table = ref ? over(asked(ref.table)) : undefined;
      const passage = ref ? over(asked(ref.passage)) : undefined;
      metrics = {
        em: total.em,
        f1: total.f1,
        table_em: table?.em ?? null,
        table_f1: table?.f1 ?? null,
        passage_em: passage?.em ?? null,
        passage_f1: passage?.f1 ?? null,
      };
      if (!ref) notes.push('no --reference file: table/passage split not computed');
      break;
    }
    case 'mmqa': {
      const em: number[] = [];
      const f1: number[] = [];
      for (const item of items) {
        if (item.gold.kind !== 'mmqa') continue;
        const p = predictions.get(item.id);
        const text = predictionText(p);
        const pred = predictionList(p)?.map(String) ?? (text === undefined ? undefined : mmqaSpans(text, item.gold.answers.length));
        const e = pred === undefined ? 0 : mmqaListEm(pred, item.gold.answers);
        const f = pred === undefined ? 0 : mmqaListF1(pred, item.gold.answers);
        em.push(e);
        f1.push(f);
        push(item.id, e, !p);
      }
      const images = mmqaImageCounts(items, predictions);
      metrics = { em: percentMean(em), f1: percentMean(f1), image_questions: images.imageQuestions, image_read: images.imageRead };
      if (images.note) notes.push(images.note);
      break;
    }
    case 'crag': {
      const verdicts: CragVerdict[] = [];
      for (const item of items) {
        if (item.gold.kind !== 'crag') continue;
        const p = predictions.get(item.id);
        const text = predictionText(p);
        // No prediction at all is treated as an unanswered question (CRAG's "missing").
        const v: CragVerdict = text === undefined || text.trim() === '' ? 'missing' : await cragVerdict(item.question, text, [item.gold.answer, ...item.gold.alternatives], opts.judge);
        verdicts.push(v);
        push(item.id, v === 'correct' ? 1 : 0, !p || v === 'missing', v === 'correct');
      }
      metrics = cragTotals(verdicts);
      judge = opts.judge ? opts.judgeName ?? 'llm' : 'none';
      if (!opts.judge) notes.push('no judge model configured: only exact matches count as correct');
      break;
    }
  }
  return { benchmark, n: perItem.length, metrics, notes: notes.length ? notes : undefined, judge, items: perItem };
};
