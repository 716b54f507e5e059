import type { Config } from '../config';
import type { Embedder } from '../embeddings/types';
import type { KnowledgeApi } from '../evidence/crag/types';
import type { Evidence } from '../evidence/types';
import type { LLM, Purpose } from '../llm/types';
import type { Tool, ToolRegistry } from '../tools/types';
import type { VectorIndex } from '../vectors/types';
import type { Confidence } from './confidence';
import type { ModeOptions, RunOptions } from './options';
import type { ProtocolChange, ProtocolUsage } from './protocol-usage';

export const VARIANTS = ['mintaka', 'qald9plus', 'compmix', 'hybridqa', 'mmqa', 'crag'] as const;
export type Variant = (typeof VARIANTS)[number];

/** One earlier turn of a chat (POST /v1/chat/completions), as the run keeps it: already bounded by the API. */
export interface ConversationTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** What the caller sends to POST /v1/answer (or the chat facade), after validation. */
export interface RunRequest {
  /** The question as asked (a chat's last user message). */
  question: string;
  variant: Variant;
  mode: string;
  context?: Record<string, unknown>;
  /** The options as the caller sent them (checked against the mode's schema); a fork merges its own over these. */
  options?: Record<string, unknown>;
  /**
   * The options the run runs with: parsed once by the run service (src/runs/create.ts), every default filled
   * in. A run stored by older code has none; its object parses `options` when it loads it (durable-objects/run/setup.ts).
   */
  resolvedOptions?: RunOptions;
  /**
   * A chat's turns before its question, oldest first. With them, the run's first step makes the question
   * self-contained (src/engine/conversation) and every later step answers that standalone question.
   */
  conversation?: ConversationTurn[];
}

/** The request as a step sees it: its options only as the run parsed them (`RunContext.options`). */
export type StepRequest = Omit<RunRequest, 'options' | 'resolvedOptions'>;

export interface Source {
  title: string;
  url?: string;
  kind: 'wikipedia' | 'wikidata' | 'web' | 'table' | 'passage' | 'kg' | 'model' | string;
}

/** Agreement between the verified sources; its levels, in order, are in ./confidence.ts. */
export type { Confidence } from './confidence';

// What strategies claim and what the engine cites (issue 40's support grade among them): ./claims.ts.
export type { Citation, Claim, ClaimReads, Support } from './claims';
import type { Citation, Claim } from './claims';

/** A Wikidata entity named by the answer (one per item of a list answer). */
export interface AnswerEntity {
  id: string;
  label: string;
}

export interface AnswerFields {
  answer: string;
  /** Each source's own answer: wikipedia, wikidata, parametric, table, web, kg, ... */
  answers: Record<string, string>;
  sources: Source[];
  /** The Wikidata entities behind the answer, when the strategy knows them (QALD scores these as IRIs). */
  entities?: AnswerEntity[];
}

/** What a strategy ends with: its answer and, per source, the evidence that answer rests on. */
export interface AnswerDraft extends AnswerFields {
  claims: Claim[];
}

/** The answer as stored and served: the draft's fields with what the engine verified (src/engine/attribution). */
export interface AnswerData extends AnswerFields {
  confidence: Confidence;
  /** The keys of `answers` whose agreement `confidence` measures: the sources with a supporting citation. */
  agreementSources: string[];
  citations: Citation[];
  /** Set when `options.abstainBelow` turned the answer into "I don't know": the level the confidence fell under. */
  abstainedBelow?: Confidence;
}

/** The events of a run, also its SSE event names. */
export type EventInput =
  | { type: 'run'; data: { runId: string; variant: Variant; mode: string; question: string } }
  | { type: 'thought'; data: { text: string; notes?: string[] } }
  | { type: 'action'; data: { tool: string; input: unknown; notes?: string[]; callId?: string } }
  | { type: 'observation'; data: { tool: string; output: string; ms: number; error?: boolean; detail?: unknown; notes?: string[]; callId?: string } }
  | { type: 'answer'; data: AnswerData }
  | { type: 'error'; data: { code: string; message: string } }
  | { type: 'done'; data: { status: RunStatus; usage: Usage; timings: Timings } };

export type RunEvent = EventInput & { id: number; at: number };
/** What a strategy step emits: the run's events, its answer still a draft the engine attributes. */
export type StepEvent = Exclude<EventInput, { type: 'answer' }> | { type: 'answer'; data: AnswerDraft };
export type EventType = EventInput['type'];

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'limited', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses a run never leaves. */
export const TERMINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'limited', 'cancelled'];
export const isTerminal = (status: RunStatus): boolean => TERMINAL_STATUSES.includes(status);

export interface PurposeUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** The model that served this purpose (its latest call, when `models` lists several). */
  model?: string;
  /** Calls per model, only when more than one model served this purpose. */
  models?: Record<string, number>;
}

export interface Usage {
  llmCalls: number;
  toolCalls: number;
  promptTokens: number;
  completionTokens: number;
  byPurpose: Partial<Record<Purpose, PurposeUsage>>;
  byTool: Record<string, number>;
  /** Replayed runs only: evidence requests the archive did not hold (each answered "not in the recording"). */
  replayMisses?: number;
  /** Live evidence: requests answered by the cache every run shares, requests sent, and waits at politeness gates. */
  evidence?: EvidenceUsage;
  /** Prompts shortened to fit the model's context window, and of those, retried after the server refused them. */
  context?: { trimmed: number; retried: number };
  /** Pages a search's top hit fetched in the background, and reads those pages served (src/evidence/prefetch.ts). */
  prefetch?: { pages: number; hits: number };
  /** Model calls that waited at their model's politeness gate (other runs' calls in flight, a server's Retry-After). */
  modelGate?: { waits: number; waitMs: number };
  /**
   * Per purpose, over the calls that followed another of the same purpose: characters of their prompts, those that
   * repeat the start of the previous prompt (what a provider's prefix cache can serve), and the share (src/engine/prompt-reuse.ts).
   */
  promptReuse?: Partial<Record<Purpose, PromptReuse>>;
  /** Per purpose, how the model was spoken to when not in plain text: functions, reply schemas, repairs, fallbacks. */
  toolProtocol?: Partial<Record<Purpose, ProtocolUsage>>;
}


export interface PromptReuse {
  calls: number;
  chars: number;
  repeatedChars: number;
  share: number;
}

export interface EvidenceUsage {
  cacheHits: number;
  cacheMisses: number;
  gateWaits: number;
  gateWaitMs: number;
}

export interface Timings {
  totalMs: number;
  steps: number;
  /**
   * From the run's start to the first streamed piece of its answer (a `delta` with `answer: true`), or to the answer
   * itself when it was not streamed (nobody followed the run, or no model call wrote it); null until then.
   */
  firstAnswerTokenMs?: number | null;
}

/** Everything a strategy may use. Built per step by the run engine; services are created on first use. */
export interface RunContext<O extends RunOptions = RunOptions> {
  readonly runId: string;
  /** The question, variant, mode and context; the options are `options`, parsed. */
  readonly request: StepRequest;
  /** The run's options: its mode's schema parsed once, every default filled in (src/engine/options.ts). */
  readonly options: O;
  readonly config: Config;
  /** Metered: every call is counted against the run's limits and usage. */
  readonly llm: LLM;
  evidence(): Evidence;
  embedder(): Embedder;
  vectors(): VectorIndex;
  readonly tools: ToolRegistry;
  /**
   * Aborted when the run's wall time runs out or the run is cancelled. Model and tool calls made through this
   * context already carry it; a strategy that waits on something else should pass it on.
   */
  readonly signal?: AbortSignal;
  /** The CRAG mock-KG API: its calls are recorded with the run, or answered from a replayed archive. */
  kg(): KnowledgeApi;
  /**
   * Runs a tool by name, timing it and counting it; errors become observations (error: true), never throws.
   * `records` are the keys of the evidence records the call produced (what a claim cites).
   */
  runTool(name: string, input: unknown, key?: string): Promise<ToolRun>;
  /**
   * Tells the run how a native call went (src/engine/tool-protocol.ts): a repair observation sent, a structured reply
   * read by the text parser, or the purpose gone back to text for the rest of the run (also a note in the step's trace).
   */
  noteProtocol(purpose: Purpose, change: ProtocolChange): void;
  /** Verifies claims against this run's evidence so far, as the engine will for the answer (src/engine/attribution). */
  attribute(claims: readonly Claim[]): Attribution;
}

/**
 * A tool call's result. With a `key` (unique within the run), a finished call is kept at once in the run's storage:
 * a step repeated after a crash gets it back instead of running the call again (parallel calls of one step).
 */
export interface ToolRun {
  output: string;
  ms: number;
  error: boolean;
  records: string[];
}

/** What the engine concludes from a strategy's claims. */
export interface Attribution {
  confidence: Confidence;
  agreementSources: string[];
  citations: Citation[];
}

/** What one step produced: the new state, the events to store and stream, and whether the run ended. */
export interface StepOutcome<S> {
  state: S;
  events: StepEvent[];
  done?: boolean;
}

/**
 * A resumable step machine. The engine stores `state` after every step together with its events,
 * so a step must be the unit that may be repeated after a crash: do one model call or one tool call per step.
 * State must be JSON-serialisable.
 */
export interface Strategy<S = unknown, O extends RunOptions = RunOptions> {
  readonly mode: string;
  readonly description: string;
  /** The options this mode takes (src/engine/options.ts `defineOptions`): parsed once, read as `ctx.options`. */
  readonly options: ModeOptions<O>;
  /** Tools this strategy adds beside the shared ones; the registry offers them while the strategy is registered. */
  readonly tools?: readonly Tool[];
  /**
   * Why the caller's `context` cannot be used by this mode (answered as a 400 before any run exists), or undefined
   * when it can. Modes that read no context leave it out.
   */
  checkContext?(context: Record<string, unknown> | undefined): string | undefined;
  start(ctx: RunContext<O>): Promise<S> | S;
  step(state: S, ctx: RunContext<O>): Promise<StepOutcome<S>>;
  /** The best answer from what was gathered, used when a run limit ends the run early. */
  partial?(state: S): AnswerDraft | null;
  /**
   * A state stored by older code, in the shape this code reads (any other value as it is). Run storage calls it once
   * per stored state when it migrates a run (durable-objects/run/migrations.ts), so the steps only ever see the
   * current shape, and storage needs to know no strategy's state.
   */
  upgradeState?(state: unknown): S;
}

/** The reason a step is aborted when its client cancels the run. */
export class RunCancelled extends Error {
  constructor() {
    super('the run was cancelled');
    this.name = 'RunCancelled';
  }
}

/** Thrown (by the metered LLM or the engine) when a per-run limit is reached. */
export class LimitError extends Error {
  constructor(readonly limit: 'steps' | 'llmCalls' | 'wallTime' | 'tokens', message: string) {
    super(message);
    this.name = 'LimitError';
  }
}
