/** Benchmarks the harness knows, by the names the CLI and the `variant` field use. */
export const BENCHMARKS = ['mintaka', 'qald9plus', 'compmix', 'hybridqa', 'mmqa', 'crag'] as const;
export type Benchmark = (typeof BENCHMARKS)[number];

export const isBenchmark = (name: string): name is Benchmark => (BENCHMARKS as readonly string[]).includes(name);

/** Mintaka gold as the official scorer sees it (text and KG views). */
export interface MintakaGold {
  kind: 'mintaka';
  answerType: string;
  /** Gold string in text mode: entity labels joined by spaces, else `mention`, else str(answer[0]). */
  text: string | null;
  /** Gold list in KG mode: Q-ids for entities, raw values otherwise; null when no entity was linked. */
  kg: unknown[] | null;
}

export interface QaldGold {
  kind: 'qald9plus';
  /** Answer set: IRIs and literal values (or "true"/"false" for ASK questions). */
  answers: string[];
  /** Set when the question is an ASK question. */
  boolean?: boolean;
  sparql?: string;
}

export interface CompMixGold {
  kind: 'compmix';
  answers: { id: string; label: string }[];
  answerText: string;
}

export interface HybridQAGold {
  kind: 'hybridqa';
  answer: string;
  tableId: string;
}

export interface MMQAGold {
  kind: 'mmqa';
  answers: string[];
  modality?: string;
  /** The modalities the question needs (`metadata.modalities`: table, text, image). */
  modalities?: string[];
  /** The question's context documents (`metadata.table_id`, `text_doc_ids`, `image_doc_ids`) and those that hold the answer. */
  docs?: MMQADocs;
}

export interface MMQADocs {
  tableId?: string;
  textIds: string[];
  imageIds: string[];
  /** `supporting_context`: the documents the answer and intermediate answers come from. */
  supporting: { id: string; part: string }[];
}

export interface CragGold {
  kind: 'crag';
  answer: string;
  alternatives: string[];
}

export type Gold = MintakaGold | QaldGold | CompMixGold | HybridQAGold | MMQAGold | CragGold;

/** Evidence the caller supplies to the service (ARCHITECTURE.md §2 `context`). */
export type AnswerContext =
  | { table?: unknown; passages?: unknown; tableId?: string }
  | { pages: { url: string; html: string; lastModified?: string }[]; queryTime?: string };

/** One benchmark question, normalised across formats. */
export interface EvalItem {
  id: string;
  question: string;
  /** Grouping for the report (Mintaka category, CompMix domain, CRAG domain, ...). */
  category?: string;
  /** A second grouping (Mintaka complexityType, CRAG question_type, MMQA type, ...). */
  type?: string;
  gold: Gold;
  context?: AnswerContext;
  /** Further annotations of the benchmark file (CRAG: `static_or_dynamic`). */
  attributes?: Record<string, string>;
}

/** One line of predictions.jsonl. `answers` is a list for set answers, or the service's per-source object. */
export interface Prediction {
  id: string;
  answer?: string | null;
  answers?: unknown;
  /** The Wikidata entities behind the answer, as the service reports them. */
  entities?: { id: string; label?: string }[];
  /** CRAG (rag mode): the service's static/dynamic verdict for the question. */
  dynamism?: string;
  confidence?: string;
  /** The sources whose answer a supporting citation backs, and the citations themselves with their grade (docs/CONFIDENCE.md). */
  agreementSources?: string[];
  citations?: { source: string; key: string; kind: string; url?: string; quote?: string; verified: boolean; support?: 'supports' | 'mentions'; supportBy?: 'model' }[];
  usage?: Record<string, unknown>;
  timings?: Record<string, unknown>;
  runId?: string;
  error?: string;
  status?: string;
  /** The mode the service ran the question in. */
  mode?: string;
  question?: string;
  /** The run's steps as GET /v1/runs/{id} gives them: `{id, type, at, …}` for thought, action, observation, answer, error. */
  steps?: unknown[];
}

/** The score of one question, kept for the report. */
export interface ItemScore {
  id: string;
  /** 0..1: the benchmark's main per-question score (EM, P@1, F1 QALD, ...). */
  score: number;
  correct: boolean;
  missing: boolean;
  /** The gold answer set is empty (QALD: no answer is the right answer). */
  emptyGold?: boolean;
  /** Every per-question value the benchmark's metrics are built from (src/eval/scorers/). */
  values?: Record<string, number>;
}

export interface ScoreResult {
  benchmark: Benchmark;
  n: number;
  metrics: Record<string, number | null>;
  notes?: string[];
  judge?: string;
  items: ItemScore[];
}
