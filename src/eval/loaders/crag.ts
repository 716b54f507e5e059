import * as z from 'zod';
import { checkRecords } from './validate';
import type { EvalItem } from '../types';
import { parseJsonLines, parseStringList } from './json-lines';

interface CragRecord {
  interaction_id: string;
  query: string;
  answer: string;
  alternative_answers?: unknown;
  query_time?: string;
  domain?: string;
  question_type?: string;
  static_or_dynamic?: string;
  search_results?: { page_url?: string; page_result?: string; page_last_modified?: string; page_name?: string }[];
}

/**
 * CRAG: JSON Lines with `query`, `answer`, `alternative_answers`, `query_time` and
 * `search_results[].page_result` (raw HTML), passed on as the run's `context.pages`.
 */
const RECORD = z.looseObject({ interaction_id: z.string(), query: z.string(), answer: z.string() });

export const loadCrag = (text: string): EvalItem[] =>
  checkRecords<CragRecord>(parseJsonLines(text), RECORD, 'CRAG examples (JSON Lines)', (r) => r.interaction_id).map((r) => ({
    id: r.interaction_id,
    question: r.query,
    category: r.domain,
    type: r.question_type,
    ...(r.static_or_dynamic ? { attributes: { static_or_dynamic: String(r.static_or_dynamic) } } : {}),
    gold: { kind: 'crag', answer: String(r.answer ?? ''), alternatives: parseStringList(r.alternative_answers) },
    context: {
      pages: (r.search_results ?? []).map((s) => ({
        url: s.page_url ?? '',
        html: s.page_result ?? '',
        lastModified: s.page_last_modified?.trim() || undefined,
      })),
      queryTime: r.query_time,
    },
  }));
