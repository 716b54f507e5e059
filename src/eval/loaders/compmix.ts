import * as z from 'zod';
import { checkRecords, idish, parseJson } from './validate';
import type { EvalItem } from '../types';

interface CompMixRecord {
  question_id: string | number;
  question: string;
  domain?: string;
  answers: { id: string; label: string }[];
  answer_text?: string;
  answer_src?: string;
}

const RECORD = z.looseObject({ question_id: idish, question: z.string(), answers: z.array(z.looseObject({ id: z.string(), label: z.string() })) });

/** CompMix: a JSON list with `answers[{id,label}]`, `answer_text`, `domain` and `answer_src`. */
export const loadCompMix = (text: string): EvalItem[] =>
  checkRecords<CompMixRecord>(parseJson(text), RECORD, 'a JSON list of CompMix questions', (r) => r.question_id).map((r) => ({
    id: String(r.question_id),
    question: r.question,
    category: r.domain,
    type: r.answer_src || undefined,
    gold: { kind: 'compmix', answers: r.answers ?? [], answerText: r.answer_text ?? '' },
  }));
