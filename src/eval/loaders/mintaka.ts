import { mintakaGoldKg, mintakaGoldText } from '../metrics/mintaka';
import * as z from 'zod';
import type { EvalItem } from '../types';
import { checkRecords, idish, parseJson } from './validate';

interface MintakaRecord {
  id: string;
  question: string;
  answer: { answerType: string; answer: unknown; mention?: string };
  category?: string;
  complexityType?: string;
}

const RECORD = z.looseObject({ id: idish, question: z.string(), answer: z.looseObject({ answerType: z.string() }) });

/** Mintaka: a JSON list of questions with entity/boolean/numerical/date/string answers. */
export const loadMintaka = (text: string): EvalItem[] =>
  checkRecords<MintakaRecord>(parseJson(text), RECORD, 'a JSON list of Mintaka questions', (r) => r.id).map((r) => ({
    id: String(r.id),
    question: r.question,
    category: r.category,
    type: r.complexityType,
    gold: {
      kind: 'mintaka',
      answerType: r.answer.answerType,
      text: mintakaGoldText(r.answer.answerType, r.answer.answer, r.answer.mention),
      kg: mintakaGoldKg(r.answer.answerType, r.answer.answer),
    },
  }));
