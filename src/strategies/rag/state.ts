import type { Source } from '../../engine/types';
import type { KgCall } from './kg/client';
import type { KgEntities } from './kg/entities';

/** A piece of evidence kept for the reasoning prompt (capped; the pages themselves are never stored). */
export interface Reference {
  kind: 'web' | 'table' | 'wikipedia' | 'kg';
  title: string;
  url?: string;
  text: string;
  /** The evidence record it came from: a `context page` key, or the recorded Wikipedia page. */
  key?: string;
}

export type Phase = 'attribute' | 'retrieve' | 'calculator' | 'parametric' | 'kg' | 'kg_fetch' | 'reasoning' | 'summarize';

export interface RagState {
  phase: Phase;
  attribute?: { dynamism: 'static' | 'dynamic' | 'unknown'; domain: string; votes: Record<string, number> };
  refs: Reference[];
  sources: Source[];
  /** What page processing cut or ignored, per page, so the reasoning knows the evidence is partial. */
  pageNotes?: string[];
  calculations: { expression: string; value: string; votes: number }[];
  parametric?: { answer: string; falsePremise: boolean };
  kgCalls: KgCall[];
  /** Names the entity extractor found (rule-based KG mode); the rules turn them into calls when fetching. */
  kgEntities?: KgEntities;
  /** `key`: the recorded KG call, which the answer cites. */
  kgResults: { endpoint: string; result: string; key?: string }[];
  /** The reasoning output that did not parse, for the summariser (capped). */
  draft?: string;
}
