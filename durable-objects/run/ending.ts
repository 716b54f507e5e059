import type { Config } from '../../src/config';
import { forRequest } from '../../src/engine/conversation';
import { LimitError, type AnswerDraft, type RunStatus, type StepEvent } from '../../src/engine/types';
import { strategyFor } from '../../src/strategies';
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
export const partialOf = (meta: RunMeta, config: Config): AnswerDraft | null => {
  if (meta.state === undefined) return null;
  try {
    return forRequest(strategyFor(meta.request.mode, config), meta.request)?.partial?.(meta.state) ?? null;
  } catch {
    return null;
  }
};

export const wallTimeError = (limitMs: number, overran = false) =>
  new LimitError('wallTime', overran ? `a step ran past the run's wall-time limit of ${limitMs} ms` : `the run reached its wall-time limit of ${limitMs} ms`);

