import type { EvalItem, Prediction } from './types';

/**
 * How the runs of an evaluation ended. A run the service cut short (`limited`: a step, call, token or time limit)
 * or that failed still leaves a prediction — often a partial answer — and is scored like any other, so a number from
 * runs that never finished must say so: counted here, warned about, and the metrics given again over the finished ones.
 */

/** The run statuses of the service that end a run, and `error`: no run at all (the request failed). */
export const RUN_OUTCOMES = ['succeeded', 'limited', 'failed', 'cancelled', 'error'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export interface Count {
  n: number;
  /** Of the asked questions, in percent. */
  share: number;
}

export interface RunCounts {
  n: number;
  statuses: Record<RunOutcome, Count> & Record<string, Count>;
  /** Answers that say "I don't know" (any status). */
  abstained: Count;
  /** Runs that ended `succeeded`: the ones the metrics over finished runs are computed on. */
  finished: number;
  unfinished: number;
}

const IDK = /^\s*(i\s+(do\s+not|don'?t)\s+know|unknown|n\/a|no answer)?\s*[.!]?\s*$/i;

/** Whether a prediction is an answered "I don't know" (an error is not an abstention). */
export const isAbstention = (p: Prediction | undefined): boolean => !!p && !p.error && IDK.test(typeof p.answer === 'string' ? p.answer : '');

/** The outcome of one question's run: its status, or `error` when the request failed. */
export const outcomeOf = (p: Prediction | undefined): string => (!p || p.error ? 'error' : typeof p.status === 'string' && p.status ? p.status : 'succeeded');

const share = (n: number, of: number): Count => ({ n, share: of ? Math.round((1000 * n) / of) / 10 : 0 });

/** Counts per outcome (every outcome listed, zeros included), the abstentions and the finished runs. */
export const countRuns = (items: readonly EvalItem[], predictions: Map<string, Prediction>): RunCounts => {
  const tally = new Map<string, number>(RUN_OUTCOMES.map((o) => [o, 0]));
  let abstained = 0;
  for (const item of items) {
    const p = predictions.get(item.id);
    const o = outcomeOf(p);
    tally.set(o, (tally.get(o) ?? 0) + 1);
    if (isAbstention(p)) abstained++;
  }
  const n = items.length;
  const finished = tally.get('succeeded') ?? 0;
  return {
    n,
    statuses: Object.fromEntries([...tally].map(([k, v]) => [k, share(v, n)])) as RunCounts['statuses'],
    abstained: share(abstained, n),
    finished,
    unfinished: n - finished,
  };
};

/** "3 of 40 runs did not finish (limited 2, failed 1)", or undefined when all did. */
export const unfinishedText = (c: RunCounts): string | undefined => {
  if (!c.unfinished) return undefined;
  const parts = Object.entries(c.statuses)
    .filter(([k, v]) => k !== 'succeeded' && v.n > 0)
    .map(([k, v]) => `${k} ${v.n}`);
  return `${c.unfinished} of ${c.n} runs did not finish (${parts.join(', ')})`;
};

/** The warning metrics.json, the summary and the report carry when any run did not finish. */
export const unfinishedWarning = (c: RunCounts): string | undefined => {
  const text = unfinishedText(c);
  return text
    ? `${text}: their partial answers are scored as they are; read metricsFinished (over the ${c.finished} finished runs) beside the metrics, and raise the limits (GET /v1/config, "limits") to let them finish`
    : undefined;
};

/** The ids of the questions whose run finished. */
export const finishedIds = (items: readonly EvalItem[], predictions: Map<string, Prediction>): Set<string> =>
  new Set(items.filter((i) => outcomeOf(predictions.get(i.id)) === 'succeeded').map((i) => i.id));
