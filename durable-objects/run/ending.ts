import { LimitError, type AnswerDraft, type RunStatus, type StepEvent, type Strategy } from '../../src/engine/types';
import type { RunMeta } from '../run-store';

/**
 * A run succeeds only with an answer: a strategy that ends with an error event, or with no answer or an empty
 * one, ends `failed` (with an error that says so), never `succeeded` with answer "". "I don't know" is an answer.
 */
export const honestEnding = <E extends StepEvent>(events: E[]): { status: RunStatus; events: E[] } => {
  const answer = [...events].reverse().find((e) => e.type === 'answer');
  const answered = answer?.type === 'answer' && answer.data.answer.trim() !== '';
  const failed = events.some((e) => e.type === 'error');
  if (answered && !failed) return { status: 'succeeded', events };
  // An empty answer is no answer: drop it rather than show "" as the run's result.
  const kept = events.filter((e) => !(e.type === 'answer' && !e.data.answer.trim()));
  if (failed) return { status: 'failed', events: kept };
  return { status: 'failed', events: [...kept, { type: 'error', data: { code: 'no_answer', message: 'the run ended without an answer' } } as E] };
};

/** The strategy's best answer so far, for a run that ends early; never lets a broken partial hide the end. */
export const partialOf = (meta: RunMeta, strategy: Strategy<unknown> | undefined): AnswerDraft | null => {
  if (meta.state === undefined) return null;
  try {
    return strategy?.partial?.(meta.state) ?? null;
  } catch {
    return null;
  }
};

export const wallTimeError = (limitMs: number, overran = false) =>
  new LimitError('wallTime', overran ? `a step ran past the run's wall-time limit of ${limitMs} ms` : `the run reached its wall-time limit of ${limitMs} ms`);

