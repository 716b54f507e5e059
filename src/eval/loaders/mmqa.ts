import * as z from 'zod';
import { checkRecords } from './validate';
import type { EvalItem, MMQADocs } from '../types';
import { parseJsonOrLines } from './json-lines';

interface MMQARecord {
  qid: string;
  question: string;
  answers?: { answer: unknown; type?: string; modality?: string }[];
  metadata?: { type?: string; modalities?: string[]; table_id?: string; text_doc_ids?: string[]; image_doc_ids?: string[] };
  supporting_context?: { doc_id?: string; doc_part?: string }[];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const docsOf = (r: MMQARecord): MMQADocs => ({
  ...(typeof r.metadata?.table_id === 'string' ? { tableId: r.metadata.table_id } : {}),
  textIds: strings(r.metadata?.text_doc_ids),
  imageIds: strings(r.metadata?.image_doc_ids),
  supporting: (r.supporting_context ?? [])
    .filter((s) => typeof s?.doc_id === 'string')
    .map((s) => ({ id: s.doc_id as string, part: String(s.doc_part ?? '') })),
});

/**
 * MultiModalQA: JSON Lines (`MMQA_dev.jsonl`), one question per line with `answers[{answer,type,
 * modality}]` and `metadata.type`. Questions without answers are skipped, as the official scorer does.
 * The question's modalities and context document ids are kept for the context builder and the report.
 */
const RECORD = z.looseObject({ qid: z.string(), question: z.string(), answers: z.array(z.looseObject({ answer: z.unknown() })).optional() });

export const loadMMQA = (text: string): EvalItem[] =>
  checkRecords<MMQARecord>(parseJsonOrLines(text), RECORD, 'MultiModalQA questions (JSON Lines)', (r) => r.qid)
    .filter((r) => (r.answers?.length ?? 0) > 0)
    .map((r) => ({
      id: r.qid,
      question: r.question,
      category: r.answers?.[0]?.modality,
      type: r.metadata?.type,
      gold: {
        kind: 'mmqa',
        answers: (r.answers ?? []).map((a) => String(a.answer)),
        modality: r.answers?.[0]?.modality,
        // Older or hand-made files without metadata.modalities: the answers' own modalities are the lower bound.
        modalities: r.metadata?.modalities ? strings(r.metadata.modalities) : [...new Set(strings((r.answers ?? []).map((a) => a.modality)))],
        docs: docsOf(r),
      },
    }));
