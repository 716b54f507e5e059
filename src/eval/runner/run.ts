import type { Benchmark, EvalItem, Prediction } from '../types';
import { postAnswer, type AnswerRequest, type ClientOptions, type RunJson } from './client';

export interface RunOptions extends ClientOptions {
  url: string;
  benchmark: Benchmark;
  variant?: string;
  mode?: string;
  concurrency?: number;
  /** Ids already answered (resume): they are not asked again. */
  skip?: ReadonlySet<string>;
  /** Called with every finished prediction, in completion order (append it to predictions.jsonl). */
  onPrediction: (p: Prediction) => void | Promise<void>;
  onProgress?: (done: number, total: number, errors: number) => void;
  /** Options sent with every question (e.g. `recipe`), on top of the benchmark's own (Mintaka's booleanStyle). */
  options?: Record<string, unknown>;
  /** Builds the `context` of a request; defaults to the item's own context. */
  contextFor?: (item: EvalItem) => unknown;
  /** The Idempotency-Key of a question (the same on every retry and resume of this evaluation). */
  keyFor?: (item: EvalItem) => string;
}

/** The service's variant names: one per benchmark. */
const SERVICE_VARIANTS = new Set(['mintaka', 'qald9plus', 'compmix', 'hybridqa', 'mmqa', 'crag']);

export const defaultVariant = (b: Benchmark): string | undefined => (SERVICE_VARIANTS.has(b) ? b : undefined);

/**
 * Mintaka's gold text for a yes/no question is "True"/"False" (the official scorer compares `str(answer)`), so the
 * runner asks the service to write bare yes/no answers that way. Other benchmarks keep the service's wording.
 */
export const defaultOptions = (b: Benchmark): Record<string, unknown> | undefined =>
  b === 'mintaka' ? { booleanStyle: 'true-false' } : undefined;

/**
 * The runner never sets `dynamicPolicy`: CRAG runs use the crag variant's own default (the published final
 * system answers "I don't know" to dynamic questions), and metrics.json reports what the service did.
 */
export const RUNNER_SETS_DYNAMIC_POLICY = false;

/** CRAG questions come with web pages: the RAG pipeline reads them. Others use the service default. */
export const defaultMode = (b: Benchmark): string | undefined => (b === 'crag' ? 'rag' : undefined);

/** The rag pipeline's static/dynamic verdict, from its attribute observation (kept so the report can show the dynamic policy at work). */
const dynamismOf = (run: RunJson): string | undefined => {
  for (const s of run.steps ?? []) {
    const step = s as { type?: string; tool?: string; detail?: { dynamism?: unknown } };
    if (step.type === 'observation' && step.tool === 'attribute' && typeof step.detail?.dynamism === 'string') return step.detail.dynamism;
  }
  return undefined;
};

const toPrediction = (item: EvalItem, run: RunJson, ms: number): Prediction => ({
  id: item.id,
  question: item.question,
  answer: typeof run.answer === 'string' ? run.answer : run.answer == null ? '' : String(run.answer),
  answers: run.answers ?? undefined,
  ...(Array.isArray(run.entities) && run.entities.length ? { entities: run.entities } : {}),
  ...(dynamismOf(run) ? { dynamism: dynamismOf(run) } : {}),
  confidence: run.confidence,
  ...(Array.isArray(run.agreementSources) ? { agreementSources: run.agreementSources } : {}),
  ...(Array.isArray(run.citations) ? { citations: run.citations } : {}),
  usage: run.usage,
  timings: { ...(run.timings ?? {}), clientMs: ms },
  runId: run.runId,
  status: run.status,
  // The run's whole trace (thoughts, actions, observations, the answer with its per-source answers and citations), so
  // the report shows it with the service gone.
  ...(Array.isArray(run.steps) ? { steps: run.steps } : {}),
  ...(typeof run.mode === 'string' ? { mode: run.mode } : {}),
});

/** Every option a question is sent with: the benchmark's own (Mintaka's booleanStyle), then the caller's. */
export const optionsSent = (benchmark: Benchmark, options?: Record<string, unknown>): Record<string, unknown> | undefined => {
  const merged = { ...(defaultOptions(benchmark) ?? {}), ...(options ?? {}) };
  return Object.keys(merged).length ? merged : undefined;
};

/** The POST /v1/answer body of one question (the same on every retry, so its Idempotency-Key stays valid). */
export const requestBody = (item: EvalItem, opts: Pick<RunOptions, 'benchmark' | 'variant' | 'mode' | 'options' | 'contextFor'>): AnswerRequest => {
  const variant = opts.variant ?? defaultVariant(opts.benchmark);
  const mode = opts.mode ?? defaultMode(opts.benchmark);
  const context = opts.contextFor ? opts.contextFor(item) : item.context;
  const options = optionsSent(opts.benchmark, opts.options);
  return {
    question: item.question,
    ...(variant ? { variant } : {}),
    ...(mode ? { mode } : {}),
    ...(context ? { context } : {}),
    ...(options ? { options } : {}),
  };
};

/**
 * Sends every item not in `skip` to the service, `concurrency` at a time, and reports each
 * prediction as soon as it is known. HTTP failures become predictions with an `error` field (they
 * count as wrong and are asked again on resume). Returns the number of errors.
 */
export const runQuestions = async (items: readonly EvalItem[], opts: RunOptions): Promise<{ done: number; errors: number }> => {
  const todo = items.filter((i) => !opts.skip?.has(i.id));
  const total = items.length;
  let done = items.length - todo.length;
  let errors = 0;
  let next = 0;
  opts.onProgress?.(done, total, errors);
  const worker = async () => {
    while (next < todo.length) {
      const item = todo[next++];
      const body = requestBody(item, opts);
      const outcome = await postAnswer(opts.url, body, { ...opts, idempotencyKey: opts.keyFor?.(item) });
      let prediction: Prediction;
      if (outcome.ok) prediction = toPrediction(item, outcome.run, outcome.ms);
      else {
        errors++;
        prediction = { id: item.id, question: item.question, answer: null, error: outcome.error, timings: { clientMs: outcome.ms } };
      }
      await opts.onPrediction(prediction);
      done++;
      opts.onProgress?.(done, total, errors);
    }
  };
  const n = Math.max(1, Math.min(opts.concurrency ?? 4, todo.length || 1));
  await Promise.all(Array.from({ length: n }, worker));
  return { done, errors };
};
