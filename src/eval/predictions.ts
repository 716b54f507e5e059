import type { Prediction } from './types';

/** A prediction's set answer: `answers` when it is a list (the per-source object is not one). */
export const predictionList = (p: Prediction | undefined): unknown[] | undefined =>
  p && Array.isArray(p.answers) ? (p.answers as unknown[]) : undefined;

/** A prediction's text answer: undefined when there is no prediction, '' when it has none. */
export const predictionText = (p: Prediction | undefined): string | undefined =>
  p === undefined ? undefined : typeof p.answer === 'string' ? p.answer : p.answer === null || p.answer === undefined ? '' : String(p.answer);

/** Indexes predictions by id; a later line for the same id wins (a resumed run's retry). */
export const indexPredictions = (predictions: Iterable<Prediction>): Map<string, Prediction> => {
  const map = new Map<string, Prediction>();
  for (const p of predictions) if (p && p.id !== undefined) map.set(String(p.id), p);
  return map;
};
