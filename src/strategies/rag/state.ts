import { recipeOf, type Recipe } from '../../engine/recipe';
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

/** Per-request knobs from `options`, with defaults. */
export interface RagOptions {
  recipe: Recipe;
  dynamicPolicy: 'abstain' | 'answer';
  attributeSamples: number;
  calculatorSamples: number;
  topChunks: number;
  maxTables: number;
  /** Characters of tables in the reasoning prompt, all tables together. */
  tableChars: number;
  /** `rules`: the model extracts entities and rules pick the endpoints (the paper's final system); `calls`: the model writes the calls. */
  kgMode: 'rules' | 'calls';
}

/**
 * Defaults: the published system abstains on every dynamic question; ours does so for the `crag` variant (its
 * scoring punishes a wrong answer more than "I don't know") and answers elsewhere. The paper's self-consistency
 * takes five samples; ours three, for cost.
 */
export const ragOptions = (options: Record<string, unknown> | undefined, variant?: string): RagOptions => {
  const o = options ?? {};
  const recipe = recipeOf(o);
  const int = (v: unknown, fallback: number, max: number) =>
    typeof v === 'number' && Number.isInteger(v) && v >= 1 ? Math.min(v, max) : fallback;
  const abstainByDefault = recipe === 'paper' || variant === 'crag';
  return {
    recipe,
    dynamicPolicy: o.dynamicPolicy === 'abstain' || o.dynamicPolicy === 'answer' ? o.dynamicPolicy : abstainByDefault ? 'abstain' : 'answer',
    attributeSamples: int(o.attributeSamples, recipe === 'paper' ? 5 : 3, 7),
    calculatorSamples: int(o.calculatorSamples, 3, 5),
    topChunks: int(o.topChunks, 10, 30),
    maxTables: int(o.maxTables, 3, 10),
    tableChars: int(o.tableChars, 4_000, 20_000),
    kgMode: o.kgMode === 'calls' ? 'calls' : 'rules',
  };
};
