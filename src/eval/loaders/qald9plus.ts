import * as z from 'zod';
import { BenchmarkFileError, checkRecords, idish, parseJson } from './validate';
import type { EvalItem } from '../types';
import { qaldQuestionType } from '../metrics/qald-types';

interface Binding {
  [variable: string]: { type?: string; value: string };
}
interface QaldAnswer {
  head?: { vars?: string[] };
  results?: { bindings?: Binding[] };
  boolean?: boolean;
}
interface QaldQuestion {
  id: string | number;
  question: { language: string; string: string }[];
  query?: { sparql?: string };
  answers?: QaldAnswer[];
  answertype?: string;
}

/**
 * QALD-9-Plus (QALD-JSON): `questions[].question[{language,string}]`, `query.sparql` and
 * `answers[]` in SPARQL 1.1 JSON results form. Every bound value of every row is an answer.
 * With `strict`, a question that has no string in `language` is left out (the `--lang` protocol);
 * otherwise it falls back to its first string.
 */
const RECORD = z.looseObject({ id: idish, question: z.array(z.looseObject({ language: z.string(), string: z.string() })) });

export const loadQald9Plus = (text: string, language = 'en', strict = false): EvalItem[] => {
  const root = parseJson(text) as { questions?: unknown };
  if (!root || typeof root !== 'object' || !Array.isArray(root.questions)) throw new BenchmarkFileError('expected a QALD document: an object with a "questions" list');
  const doc = { questions: checkRecords<QaldQuestion>(root.questions, RECORD, 'QALD questions', (r) => r.id) };
  const asked = strict ? doc.questions.filter((q) => q.question.some((s) => s.language === language && s.string?.trim())) : doc.questions;
  return asked.map((q) => {
    const localized = q.question.find((s) => s.language === language) ?? q.question[0];
    const answers: string[] = [];
    let boolean: boolean | undefined;
    for (const a of q.answers ?? []) {
      if (typeof a.boolean === 'boolean') boolean = a.boolean;
      for (const row of a.results?.bindings ?? []) for (const v of Object.values(row)) answers.push(v.value);
    }
    if (boolean !== undefined) answers.push(String(boolean));
    return {
      id: String(q.id),
      question: localized?.string ?? '',
      type: qaldQuestionType(q.query?.sparql, [...new Set(answers)], boolean),
      gold: { kind: 'qald9plus', answers: [...new Set(answers)], boolean, sparql: q.query?.sparql },
    };
  });
};
