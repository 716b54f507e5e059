import * as z from 'zod';
import { checkRecords, jsonProblem, parseJson } from './validate';
import type { HybridQAReference } from '../metrics/hybridqa';
import type { EvalItem } from '../types';

interface HybridQARecord {
  question_id: string;
  question: string;
  table_id: string;
  'answer-text'?: string;
}

/**
 * HybridQA: a JSON list with `question_id`, `table_id` and `answer-text`. With the reference file
 * the gold answer comes from it and each question is tagged table or passage.
 */
const RECORD = z.looseObject({ question_id: z.string(), question: z.string(), table_id: z.string() });

export const loadHybridQA = (text: string, reference?: HybridQAReference): EvalItem[] => {
  const table = new Set(reference?.table ?? []);
  const passage = new Set(reference?.passage ?? []);
  return checkRecords<HybridQARecord>(parseJson(text), RECORD, 'a JSON list of HybridQA questions', (r) => r.question_id).map((r) => ({
    id: r.question_id,
    question: r.question,
    category: table.has(r.question_id) ? 'table' : passage.has(r.question_id) ? 'passage' : undefined,
    gold: { kind: 'hybridqa', answer: reference?.reference[r.question_id] ?? r['answer-text'] ?? '', tableId: r.table_id },
    context: { tableId: r.table_id },
  }));
};

export const parseHybridQAReference = (text: string): HybridQAReference => {
  let ref: HybridQAReference;
  try {
    ref = JSON.parse(text) as HybridQAReference;
  } catch (e) {
    throw new Error(`the HybridQA reference file is not valid JSON (${jsonProblem(e)})`);
  }
  if (!ref || typeof ref !== 'object' || !ref.reference || !Array.isArray(ref.table) || !Array.isArray(ref.passage)) {
    throw new Error('HybridQA reference file must have "reference", "table" and "passage"');
  }
  return ref;
};
