/// <reference types="node" />
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An evaluation's identity, kept in `<out>/eval.json` so `--resume` is the same evaluation: its id makes every
 * question's Idempotency-Key, so a question still running on the service when the eval was killed, or a retried
 * request, attaches to the run already started instead of paying for a second one.
 */
export interface EvalState {
  evalId: string;
  createdAt: string;
  /** What every question is sent with; a resume that would send something else is refused (its keys would clash). */
  request: { variant: string | null; mode: string | null; options: Record<string, unknown> | null };
}

export const EVAL_STATE_FILE = 'eval.json';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The folder's evaluation when resuming one, else a new one (written before the first question). */
export const openEvalState = (outDir: string, request: EvalState['request'], resume: boolean): EvalState => {
  const file = join(outDir, EVAL_STATE_FILE);
  if (resume && existsSync(file)) {
    const prior = JSON.parse(readFileSync(file, 'utf8')) as EvalState;
    if (!same(prior.request, request)) {
      throw new Error(
        `${file}: this evaluation sent ${JSON.stringify(prior.request)}; resuming it with ${JSON.stringify(request)} would mix two setups in one folder — choose another --out`,
      );
    }
    return prior;
  }
  mkdirSync(outDir, { recursive: true });
  const state: EvalState = { evalId: randomUUID(), createdAt: new Date().toISOString(), request };
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
  return state;
};

/** A question's Idempotency-Key: the evaluation's id and a digest of the question id (ids may hold any character). */
export const idempotencyKey = (evalId: string, questionId: string): string =>
  `eval-${evalId}-${createHash('sha256').update(questionId).digest('hex').slice(0, 32)}`;
