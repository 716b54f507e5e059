import type { RunOptions } from './options';
import type { AnswerData } from './types';

const YES_NO = /^\s*(yes|no)\b[\s.!]*$/i;

const asTrueFalse = (answer: string) => {
  const m = YES_NO.exec(answer);
  if (!m) return answer;
  return m[1].toLowerCase() === 'yes' ? 'True' : 'False';
};

/**
 * Answer conventions a caller can ask for. `options.booleanStyle: "true-false"` writes a bare yes/no answer as
 * True/False, the vocabulary of Mintaka's gold answers; the evaluation runner asks for it on Mintaka.
 */
export const applyAnswerFormat = (data: AnswerData, options: Pick<RunOptions, 'booleanStyle'>): AnswerData => {
  if (options.booleanStyle !== 'true-false') return data;
  return {
    ...data,
    answer: asTrueFalse(data.answer),
    answers: Object.fromEntries(Object.entries(data.answers).map(([k, v]) => [k, typeof v === 'string' ? asTrueFalse(v) : v])),
  };
};
