import { isNonAnswer } from '../text/answers';
import { I_DONT_KNOW, shouldAbstain } from './attribution/attribute';
import { confidenceRank, type Confidence } from './confidence';
import type { RunOptions } from './options';
import type { AnswerData, EventInput } from './types';

/**
 * What a caller asks done with an answer once the evidence has graded it: abstain when nothing backs it
 * (`abstain`) or when it is backed less than a level (`abstainBelow`), and the wording of yes/no answers
 * (`booleanStyle`). The run's stepper applies it where answers are stored, from the options the run service
 * resolved, so these options go from the run's setup straight to here (docs/CONFIDENCE.md).
 */
export type AnswerPolicy = Pick<RunOptions, 'abstain' | 'abstainBelow' | 'booleanStyle'>;

/** The policy of a run that could not be set up: its answer stays as written. */
export const AS_WRITTEN: AnswerPolicy = { abstain: false, booleanStyle: 'yes-no' };

const YES_NO = /^\s*(yes|no)\b[\s.!]*$/i;

const asTrueFalse = (answer: string) => {
  const m = YES_NO.exec(answer);
  if (!m) return answer;
  return m[1].toLowerCase() === 'yes' ? 'True' : 'False';
};

/** `booleanStyle: "true-false"` writes a bare yes/no as True/False, the vocabulary of Mintaka's gold answers. */
const worded = (data: AnswerData, policy: AnswerPolicy): AnswerData => {
  if (policy.booleanStyle !== 'true-false') return data;
  return {
    ...data,
    answer: asTrueFalse(data.answer),
    answers: Object.fromEntries(Object.entries(data.answers).map(([k, v]) => [k, typeof v === 'string' ? asTrueFalse(v) : v])),
  };
};

/** The level `abstainBelow` sets, when the answer's confidence ranks under it. */
const thresholdMissed = (confidence: Confidence, below: Confidence | undefined): Confidence | undefined =>
  below !== undefined && confidenceRank(confidence) < confidenceRank(below) ? below : undefined;

/**
 * An attributed answer as the caller asked for it: "I don't know" when `abstain` is on and no supporting source
 * agrees (or they conflict), or when the confidence is under `abstainBelow` (recorded as `abstainedBelow`); the
 * citations and each source's answer stay, so a reader sees what was held back.
 */
export const answerAsAsked = (answer: AnswerData, policy: AnswerPolicy): AnswerData => {
  const below = isNonAnswer(answer.answer) ? undefined : thresholdMissed(answer.confidence, policy.abstainBelow);
  const abstain = below !== undefined || (policy.abstain && shouldAbstain(answer.confidence));
  return worded({ ...answer, ...(abstain ? { answer: I_DONT_KNOW } : {}), ...(below ? { abstainedBelow: below } : {}) }, policy);
};

/** A step's events as stored: each answer as asked. */
export const answersAsAsked = (events: readonly EventInput[], policy: AnswerPolicy): EventInput[] =>
  events.map((e) => (e.type === 'answer' ? { type: 'answer', data: answerAsAsked(e.data, policy) } : e));
