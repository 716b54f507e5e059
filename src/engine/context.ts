import type { Config } from '../config';
import type { Embedder } from '../embeddings/types';
import type { KnowledgeApi } from '../evidence/crag/types';
import type { Evidence } from '../evidence/types';
import { modelFor, routeByPurpose } from '../llm/route';
import { contextWindow } from './context-window';
import { windowedLLM } from './windowed-llm';
import type { LLM } from '../llm/types';
import type { ToolRegistry } from '../tools/types';
import type { VectorIndex } from '../vectors/types';
import { evidenceBook, type EvidenceBook } from './attribution/attribute';
import { stepAttribution, type StepAttribution } from './attribution/step-attribution';
import { liveLLM, type LiveDeltas } from './live-deltas';
import { meteredLLM } from './metered-llm';
import { sampled, samplingOf } from './sampling';
import { PromptHistory, reuseMeter } from './prompt-reuse';
import { noTracer, type Tracer } from './trace';
import type { RunContext, RunRequest, Usage } from './types';
import { addModelWait, addPromptTrim, addToolCall } from './usage';
import type { GateParty } from '../net/politeness/policy';

export interface Services {
  evidence(): Evidence;
  embedder(): Embedder;
  vectors(): VectorIndex;
  /** The CRAG mock-KG API (rag mode's KG module), recorded or replayed with the run like evidence. */
  kg(): KnowledgeApi;
}

export interface ContextParts {
  runId: string;
  request: RunRequest;
  config: Config;
  llm: LLM;
  services: Services;
  tools: ToolRegistry;
  usage: Usage;
  /** Per-run model limits; default to the configured ones. */
  llmLimits?: { maxLLMCalls: number; maxTokens: number };
  /** Aborted on wall-time overrun or cancel; handed to every model and tool call. */
  signal?: AbortSignal;
  /** A sentence for the step's trace (a prompt shortened to fit the model's window). */
  note?: (text: string) => void;
  /** Whose calls these are (API key and run): the model's gate serves queued calls in turn across keys and runs. */
  party?: GateParty;
  /** Spans for the step's model and tool calls (OpenTelemetry export when configured). */
  tracer?: Tracer;
  /**
   * Keys of the evidence records this step's calls produced, appended by the recording as they arrive; a tool call
   * reports the ones it added. Absent: nothing is recorded, so nothing can be cited.
   */
  recorded?: string[];
  /** The run's evidence so far, for `ctx.attribute` (read when a strategy asks, not before). */
  book?: () => EvidenceBook;
  /** The step's attribution, which the engine also stores the step's answer with (cited once); default: one from `book`. */
  attribution?: StepAttribution;
  /** The run's live streams: model calls stream their text there while someone follows the run. */
  live?: LiveDeltas;
  /**
   * The run's last prompt per purpose, kept across its steps, for usage.promptReuse. Absent: a fresh one, which
   * measures the calls made through this context only.
   */
  prompts?: PromptHistory;
}

const MAX_OBSERVATION_CHARS = 8_000;

/**
 * The model as a step calls it: routed by purpose, measured for prompt reuse as sent, fitted to the model's window,
 * with waits at its politeness gate told to the step's trace and usage, metered against the run's limits, and
 * streamed to the run's live readers.
 */
const stepLLM = (parts: ContextParts): LLM => {
  const models = parts.config.LLM_MODELS ?? {};
  // Measured as sent: after routing and after any fitting to the window, so a cut that moves the prefix counts.
  const measured = reuseMeter(routeByPurpose(parts.llm, models), parts.prompts ?? new PromptHistory(), parts.usage);
  const windowed = windowedLLM(measured, {
    windowOf: (request) => contextWindow(parts.config, request.purpose, modelFor(request, models) ?? parts.llm.model),
    onTrim: (text, retried) => {
      addPromptTrim(parts.usage, retried);
      parts.note?.(text);
    },
  });
  const sampling = samplingOf(parts.request);
  const told: LLM = {
    ...windowed,
    chat: (request) =>
      windowed.chat({
        ...sampled(request, sampling),
        party: request.party ?? parts.party,
        onWait: (text, ms) => {
          addModelWait(parts.usage, ms);
          parts.note?.(text);
        },
      }),
  };
  const limits = parts.llmLimits ?? { maxLLMCalls: parts.config.MAX_LLM_CALLS, maxTokens: parts.config.MAX_TOKENS };
  return liveLLM(meteredLLM(told, parts.usage, limits, parts.signal, parts.tracer), parts.live);
};

/**
 * ctx.runTool: one tool call by name, timed and counted, in a span of its own; a failing tool is an observation the
 * agent should see and react to (error: true), not a crash of the run, unless the run's limit or abort is why.
 */
const toolRunner = (parts: ContextParts, llm: LLM, tracer: Tracer): RunContext['runTool'] => async (name, input) => {
  const tool = parts.tools.get(name);
  const started = Date.now();
  const mark = parts.recorded?.length ?? 0;
  const records = () => parts.recorded?.slice(mark) ?? [];
  if (!tool) return { output: `Unknown tool "${name}". Valid tools: ${parts.tools.names().join(', ')}.`, ms: 0, error: true, records: [] };
  parts.signal?.throwIfAborted();
  addToolCall(parts.usage, name);
  return tracer.span(`execute_tool ${name}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name }, async (span) => {
    try {
      const parsed = typeof input === 'string' ? tool.fromText(input) : tool.input.parse(input);
      // Services are created only if the tool touches them.
      const toolCtx = {
        llm,
        question: parts.request.question,
        signal: parts.signal,
        get evidence() {
          return parts.services.evidence();
        },
        get embedder() {
          return parts.services.embedder();
        },
      };
      const output = await tool.execute(toolCtx, parsed);
      return { output: clip(output), ms: Date.now() - started, error: false, records: records() };
    } catch (err) {
      if (err instanceof Error && err.name === 'LimitError') throw err;
      // An aborted run does not turn its abort into an observation for a step nobody will store.
      if (parts.signal?.aborted) throw parts.signal.reason;
      const message = `Error: ${err instanceof Error ? err.message : String(err)}`;
      span.fail(message);
      return { output: message, ms: Date.now() - started, error: true, records: records() };
    }
  });
};

/** Builds the context a strategy step sees. Shared by the Durable Object and by tests that drive a strategy directly. */
export const createRunContext = (parts: ContextParts): RunContext => {
  const llm = stepLLM(parts);
  // Without the engine's own, the claims are cited against the book as it is when asked (new records re-cite them).
  const attribution =
    parts.attribution ?? stepAttribution(parts.request, () => parts.book?.() ?? evidenceBook([], parts.request.context), () => parts.recorded?.length ?? 0);
  return {
    runId: parts.runId,
    request: parts.request,
    config: parts.config,
    llm,
    evidence: parts.services.evidence,
    embedder: parts.services.embedder,
    vectors: parts.services.vectors,
    tools: parts.tools,
    signal: parts.signal,
    kg: parts.services.kg,
    attribute: (claims) => attribution.attribute(claims),
    runTool: toolRunner(parts, llm, parts.tracer ?? noTracer),
  };
};

const clip = (text: string) =>
  text.length > MAX_OBSERVATION_CHARS ? `${text.slice(0, MAX_OBSERVATION_CHARS)}\n[... output cut at ${MAX_OBSERVATION_CHARS} characters]` : text;
