import type { ChatRequest, Purpose } from '../llm/types';
import type { RunOptions } from './options';

/**
 * How every model call of a run samples, in one place: the temperature each purpose is asked at (the steps no longer
 * write their own), and what `options.sampling` changes for one run — a seed sent with every call and a temperature
 * instead of each purpose's. GET /v1/config lists the table, so an evaluation's manifest records it.
 *
 * A purpose missing here is sent without a temperature: the model server's own default applies (it differs between
 * servers, which GET /v1/config says by `null`).
 */
export const PURPOSE_TEMPERATURES: Partial<Record<Purpose, number>> = {
  agent: 0,
  read: 0,
  generateQuery: 0,
  parametric: 0,
  final: 0,
  code: 0,
  refine: 0,
  simplify: 0,
  extract_info: 0,
  check: 0,
  kg: 0,
  reasoning: 0,
  summarize: 0,
  judge: 0,
  vision: 0,
  rewrite: 0,
  verify: 0,
  // CRAG's attribute predictor and calculator vote over several samples (self-consistency): the samples must differ.
  attribute: 0.7,
  calculator: 0.5,
};

/** What one run asks of sampling (`options.sampling`). */
export interface RunSampling {
  /** Sent as the model's `seed` with every call of the run (repeated evaluations use one per epoch). */
  seed?: number;
  /** Every call of the run at this temperature instead of its purpose's. */
  temperature?: number;
}

/** The one reader of `options.sampling` (parsed and bounded by the options schema, src/engine/options.ts). */
export const samplingOf = (options: Pick<RunOptions, 'sampling'> | undefined): RunSampling => {
  const s = options?.sampling;
  return { ...(s?.seed !== undefined ? { seed: s.seed } : {}), ...(s?.temperature !== undefined ? { temperature: s.temperature } : {}) };
};

/** The temperature a call of `purpose` goes out with in a run that asks for `run`; undefined = the server's default. */
export const temperatureFor = (purpose: Purpose, run: RunSampling = {}, asked?: number): number | undefined =>
  run.temperature ?? asked ?? PURPOSE_TEMPERATURES[purpose];

/** A model request with the run's sampling applied. */
export const sampled = (request: ChatRequest, run: RunSampling): ChatRequest => {
  const temperature = temperatureFor(request.purpose, run, request.temperature);
  return { ...request, ...(temperature !== undefined ? { temperature } : {}), ...(run.seed !== undefined ? { seed: run.seed } : {}) };
};
