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
import type { RunOptions } from './options';
import type { RunContext, StepRequest, ToolRun, Usage } from './types';
import { modelScope, type RunScope } from './run-scope';
import { addPromptTrim, addProtocolChange, addToolCall } from './usage';

export interface Services {
  evidence(): Evidence;
  embedder(): Embedder;
  vectors(): VectorIndex;
  /** The CRAG mock-KG API (rag mode's KG module), recorded or replayed with the run like evidence. */
  kg(): KnowledgeApi;
}

export interface ContextParts<O extends RunOptions = RunOptions> {
  runId: string;
  request: StepRequest;
  /** The run's options, parsed once (src/engine/options.ts). */
  options: O;
  config: Config;
  llm: LLM;
  services: Services;
  tools: ToolRegistry;
  /**
   * The run the step's calls work for (src/engine/run-scope.ts): its signal (wall time, cancel) ends every model and
   * tool call, its party is theirs at the politeness gates, and its usage and trace note hear of waits and trims.
   */
  scope: StepScope;
  /** Per-run model limits; default to the configured ones. */
  llmLimits?: { maxLLMCalls: number; maxTokens: number };
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
  /**
   * Finished tool calls by key, kept in the run's storage as each one ends (RunObject keeps them in SQLite): a step
   * repeated after a crash reads a finished call back instead of running it again. Absent: calls are not kept.
   */
  toolResults?: ToolResultJournal;
}

export interface ToolResultJournal {
  get(key: string): ToolRun | undefined;
  put(key: string, run: ToolRun): void;
}

/** A step's run scope: the run's usage is always there. */
export type StepScope = RunScope & { readonly usage: Usage };

const MAX_OBSERVATION_CHARS = 8_000;

/**
 * The model as a step calls it: routed by purpose, measured for prompt reuse as sent, fitted to the model's window,
 * with waits at its politeness gate told to the step's trace and usage, metered against the run's limits, and
 * streamed to the run's live readers.
 */
const stepLLM = (parts: ContextParts): LLM => {
  const { scope } = parts;
  const models = parts.config.LLM_MODELS ?? {};
  // Measured as sent: after routing and after any fitting to the window, so a cut that moves the prefix counts.
  const measured = reuseMeter(routeByPurpose(parts.llm, models), parts.prompts ?? new PromptHistory(), scope.usage);
  const windowed = windowedLLM(measured, {
    windowOf: (request) => contextWindow(parts.config, request.purpose, modelFor(request, models) ?? parts.llm.model),
    onTrim: (text, retried) => {
      addPromptTrim(scope.usage, retried);
      scope.note?.(text);
    },
  });
  // Every call goes as the run's: its party at the model's gate, its waits there told to the run, and its sampling
  // (each purpose's temperature, the run's seed) as src/engine/sampling.ts says.
  const run = modelScope(scope);
  const sampling = samplingOf(parts.options);
  const told: LLM = {
    ...windowed,
    chat: (request, own) => windowed.chat(sampled(request, sampling), { ...own, party: own?.party ?? run.party, onWait: run.onWait }),
  };
  const limits = parts.llmLimits ?? { maxLLMCalls: parts.config.MAX_LLM_CALLS, maxTokens: parts.config.MAX_TOKENS };
  return liveLLM(meteredLLM(told, scope.usage, limits, scope.signal, parts.tracer), parts.live);
};

/**
 * ctx.runTool: one tool call by name, timed and counted, in a span of its own; a failing tool is an observation the
 * agent should see and react to (error: true), not a crash of the run, unless the run's limit or abort is why.
 */
const toolRunner = (parts: ContextParts, llm: LLM, tracer: Tracer): RunContext['runTool'] => async (name, input, key) => {
  const kept = key ? parts.toolResults?.get(key) : undefined;
  if (kept) {
    // It ran before a crash; counted again because the usage of the step it ran in was not stored.
    addToolCall(parts.scope.usage, name);
    return kept;
  }
  const run = await runOnce(parts, llm, tracer, name, input);
  if (key) parts.toolResults?.put(key, run);
  return run;
};

const runOnce = async (parts: ContextParts, llm: LLM, tracer: Tracer, name: string, input: unknown): Promise<ToolRun> => {
  const tool = parts.tools.get(name);
  const started = Date.now();
  const mark = parts.recorded?.length ?? 0;
  const records = () => parts.recorded?.slice(mark) ?? [];
  if (!tool) return { output: `Unknown tool "${name}". Valid tools: ${parts.tools.names().join(', ')}.`, ms: 0, error: true, records: [] };
  parts.scope.signal?.throwIfAborted();
  addToolCall(parts.scope.usage, name);
  return tracer.span(`execute_tool ${name}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name }, async (span) => {
    try {
      const parsed = typeof input === 'string' ? tool.fromText(input) : tool.input.parse(input);
      // Services are created only if the tool touches them.
      const toolCtx = {
        llm,
        question: parts.request.question,
        signal: parts.scope.signal,
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
      if (parts.scope.signal?.aborted) throw parts.scope.signal.reason;
      const message = `Error: ${err instanceof Error ? err.message : String(err)}`;
      span.fail(message);
      return { output: message, ms: Date.now() - started, error: true, records: records() };
    }
  });
};

/** Builds the context a strategy step sees. Shared by the Durable Object and by tests that drive a strategy directly. */
export const createRunContext = <O extends RunOptions>(parts: ContextParts<O>): RunContext<O> => {
  const llm = stepLLM(parts);
  // Without the engine's own, the claims are cited against the book as it is when asked (new records re-cite them).
  const attribution =
    parts.attribution ?? stepAttribution(() => parts.book?.() ?? evidenceBook([], parts.request.context, parts.request.question), () => parts.recorded?.length ?? 0);
  return {
    runId: parts.runId,
    request: parts.request,
    options: parts.options,
    config: parts.config,
    llm,
    evidence: parts.services.evidence,
    embedder: parts.services.embedder,
    vectors: parts.services.vectors,
    tools: parts.tools,
    signal: parts.scope.signal,
    kg: parts.services.kg,
    attribute: (claims) => attribution.attribute(claims),
    runTool: toolRunner(parts, llm, parts.tracer ?? noTracer),
    noteProtocol(purpose, change) {
      addProtocolChange(parts.scope.usage, purpose, change);
      if ('fallback' in change) parts.scope.note?.(`${purpose}: back to the text protocol for the rest of the run (${change.fallback})`);
      if ('textFallback' in change) parts.scope.note?.(`${purpose}: reply read by the text parser (${change.textFallback})`);
    },
  };
};

const clip = (text: string) =>
  text.length > MAX_OBSERVATION_CHARS ? `${text.slice(0, MAX_OBSERVATION_CHARS)}\n[... output cut at ${MAX_OBSERVATION_CHARS} characters]` : text;
