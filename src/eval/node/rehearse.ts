/// <reference types="node" />
import { join } from 'node:path';
import { goldQids, missingFromTable, type QaldLabelTable } from '../metrics/qald-labels';
import { goldAnswerText } from '../rehearse/gold-answer';
import { quirkOf, QUIRKS, type QuirkId } from '../rehearse/quirks';
import { goldReplies, type PurposeReplies } from '../rehearse/script';
import { indexPredictions } from '../score';
import type { Benchmark, EvalItem, Prediction } from '../types';
import { runEvaluation, type EvaluationOptions, type EvaluationSummary } from './evaluate';
import { prepareLabelTable } from './qald-label-cache';
import { readPredictionLines } from './read-text';

/** The metric each paper reports first for a benchmark. */
export const MAIN_METRIC: Record<Benchmark, string> = {
  mintaka: 'hits1',
  qald9plus: 'macro_f1_qald',
  compmix: 'p_at_1',
  hybridqa: 'em',
  mmqa: 'em',
  crag: 'score',
};

/** The mode a benchmark runs in when none is given (the variants' defaults; MMQA has program mode as HProPro). */
export const rehearsalMode = (b: Benchmark, mode?: string): string =>
  mode ?? (b === 'crag' ? 'rag' : b === 'hybridqa' || b === 'mmqa' ? 'program' : 'agent');

export interface RehearsalItem {
  id: string;
  question: string;
  score: number;
  answer: string | null;
  gold: string;
  quirk?: QuirkId;
  error?: string;
}

export interface RehearsalSummary extends EvaluationSummary {
  mode: string;
  mainMetric: string;
  main: number | null;
  /** Every item below 100, and every item that reached 100 only through a scorer rule, with its quirk. */
  explained: RehearsalItem[];
  /** Items below 100 that no quirk explains: defects of our path. */
  unexplained: RehearsalItem[];
}

export interface RehearsalOptions extends Omit<EvaluationOptions, 'url'> {
  /** The running service (`npm run dev` with LLM_BASE_URL pointing at the stub) and the stub's script setter. */
  service: { url: string; setScript: (script: { byQuestion: Record<string, PurposeReplies> }) => void | Promise<void> };
}

const key = (question: string) => question.normalize('NFC').trim();

/**
 * Runs a benchmark through the real service with a model stub that answers every question with its gold
 * answer at the step where the mode writes its answer, then scores it with the official metric. Anything
 * below 100 is a defect of our path or a quirk of the gold format; the summary says which, per item.
 */
export const rehearse = async (o: RehearsalOptions): Promise<RehearsalSummary> => {
  const mode = rehearsalMode(o.benchmark, o.mode);
  const language = o.language ?? 'en';
  let labels: QaldLabelTable | undefined;
  if (o.benchmark === 'qald9plus') {
    const prepared = await prepareLabelTable({ items: o.items, outDir: o.outDir, file: o.labelsFile, language, api: o.wikidataApi, fetch: o.fetch });
    if (prepared.note) o.progress?.write(`warning: ${prepared.note}\n`);
    labels = prepared.table;
  }
  const golds = new Map(o.items.map((item) => [item.id, goldAnswerText(item, labels, language)]));
  const byQuestion: Record<string, PurposeReplies> = {};
  for (const item of o.items) byQuestion[key(item.question)] = goldReplies(item, mode, golds.get(item.id)!);
  await o.service.setScript({ byQuestion });

  const summary = await runEvaluation({ ...o, url: o.service.url, mode, wikidataApi: o.wikidataApi });
  const predictions = indexPredictions(readPredictionLines(join(o.outDir, 'predictions.jsonl')) as Prediction[]);
  const scores = new Map(summary.items.map((s) => [s.id, s.score]));
  const explained: RehearsalItem[] = [];
  const unexplained: RehearsalItem[] = [];
  for (const item of o.items) {
    const p = predictions.get(item.id);
    const score = scores.get(item.id) ?? 0;
    const namesMissing = item.gold.kind === 'qald9plus' && !!labels && missingNames(labels, item.gold.answers, language);
    const quirk = quirkOf(item, p, { namesMissing });
    if (score >= 1 && !quirk) continue;
    const row: RehearsalItem = { id: item.id, question: item.question, score, answer: p?.answer ?? null, gold: golds.get(item.id)!, ...(quirk ? { quirk } : {}), ...(p?.error ? { error: p.error } : {}) };
    (quirk ? explained : unexplained).push(row);
  }
  const mainMetric = MAIN_METRIC[o.benchmark];
  return { ...summary, mode, mainMetric, main: summary.metrics[mainMetric] ?? null, explained, unexplained };
};

const missingNames = (labels: QaldLabelTable, answers: readonly string[], language: string) => {
  const ids = goldQids(answers);
  return missingFromTable(labels, ids, language).length > 0 || ids.some((q) => !labels.entities[q]?.[language]?.length);
};

export const quirkText = (id: QuirkId) => QUIRKS[id];
