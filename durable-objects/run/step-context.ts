import { createRunContext } from '../../src/engine/context';
import { requestForStep } from '../../src/engine/conversation';
import type { StepAttribution } from '../../src/engine/attribution/step-attribution';
import type { CallsInFlight } from '../../src/engine/calls-in-flight';
import type { Delta } from '../../src/engine/live-deltas';
import type { PromptHistory } from '../../src/engine/prompt-reuse';
import { checkSupport } from '../../src/engine/attribution/support-check';
import { redact } from '../../src/engine/redact';
import type { RunContext, StepEvent, ToolRun, Usage } from '../../src/engine/types';
import type { ReplaySource } from '../../src/evidence/recording';
import type { LLM } from '../../src/llm/types';
import { startStepTrace, tracedServices } from '../../src/telemetry/run-tracing';
import type { RunMeta, RunStore } from '../run-store';
import type { RunEvidence } from './evidence';
import type { RunLedger } from './ledger';
import type { RunSetup } from './setup';

/** What one step runs with, and what it leaves to store beside its outcome. */
export interface StepRun {
  ctx: RunContext;
  /** The run's usage, counted on by this step's calls (stored with the step). */
  usage: Usage;
  /** The step's attribution: ctx.attribute and the answer the step stores share it (claims are cited once). */
  attribution: StepAttribution;
  /** Before the step's answers are stored: a model's verdict on their citations, when the run asks for one (its trace events). */
  checkSupport(events: readonly StepEvent[]): Promise<StepEvent[]>;
  /** Sentences for the step's trace: waits at politeness gates, shortened prompts. */
  notes: string[];
  /** The step's spans, when tracing is on. */
  trace: ReturnType<typeof startStepTrace>;
  /** The run's meta with its time to first answer token, once a model call of this step streamed one. */
  timed(meta: RunMeta): RunMeta;
}

export interface StepParts {
  evidence: RunEvidence;
  ledger: RunLedger;
  /** The model calls the step waits on, for the run JSON. */
  calls: CallsInFlight;
  /** The run's last prompt per purpose, across its steps. */
  prompts: PromptHistory;
  /** Where finished tool calls are kept by key as they end. */
  store: Pick<RunStore, 'toolResult' | 'keepToolResult'>;
}

/** The context of a run's next step: its services recorded (or replayed), traced when tracing is on, its model watched. */
export const stepRun = (parts: StepParts, meta: RunMeta, setup: RunSetup, llm: LLM, replay: ReplaySource | undefined, signal: AbortSignal): StepRun => {
  const { evidence, ledger } = parts;
  const { config, limits } = setup;
  const usage = structuredClone(meta.usage);
  const notes: string[] = [];
  const note = (text: string) => void notes.push(text);
  // With tracing on, the step's model calls, tool calls and evidence requests are recorded as spans under it.
  const trace = startStepTrace(config, meta.runId, meta.steps + 1, meta.request);
  // Keys of the evidence records this step produces, so its tool calls can say what they read.
  const recorded: string[] = [];
  // The run the step's calls work for, passed once: its signal, whose calls they are at the politeness gates (which
  // serve their queues in turn across keys and runs), its usage and the step's trace.
  const scope = { signal, party: { key: meta.owner ?? 'open', run: meta.runId }, usage, note };
  const services = evidence.services(config, scope, replay, recorded, meta.startedAt + limits.maxWallMs);
  // The first piece of the answer a model call streams: the run's time to first answer token.
  let firstAnswerAt: number | undefined;
  const live = {
    listening: ledger.live.listening,
    nextCall: ledger.live.nextCall,
    send: (delta: Delta) => {
      if (delta.answer && firstAnswerAt === undefined) firstAnswerAt = Date.now();
      ledger.live.send(delta);
    },
  };
  // Attributed against the question the run answers (a chat's standalone one, once its rewrite has run).
  const attribution = evidence.attribution(requestForStep(meta.request, meta.state));
  const store = parts.store;
  const toolResults = {
    get: (key: string) => {
      const text = store.toolResult(key);
      return text === undefined ? undefined : (JSON.parse(text) as ToolRun);
    },
    put: (key: string, run: ToolRun) => store.keepToolResult(key, redact(JSON.stringify(run), config.secrets)),
  };
  const ctx = createRunContext({
    runId: meta.runId,
    request: requestForStep(meta.request, meta.state),
    options: setup.options,
    config,
    llm: parts.calls.watch(llm),
    services: trace ? tracedServices(services, trace) : services,
    recorded,
    prompts: parts.prompts,
    toolResults,
    attribution,
    tools: setup.tools,
    scope,
    llmLimits: { maxLLMCalls: limits.maxLLMCalls, maxTokens: limits.maxTokens },
    live,
    ...(trace ? { tracer: trace } : {}),
  });
  const timed = (m: RunMeta): RunMeta => (m.firstAnswerAt === undefined && firstAnswerAt !== undefined ? { ...m, firstAnswerAt } : m);
  const check = (events: readonly StepEvent[]) =>
    checkSupport(events, { question: ctx.request.question, options: setup.options, attribution, ctx, verdicts: services.verdicts(), note, signal });
  return { ctx, usage, attribution, notes, trace, timed, checkSupport: check };
};
