import type { Config } from '../config';
import { runSpanIdOf, traceIdOf, type Tracer } from '../engine/trace';
import type { RunRequest, RunStatus, Usage } from '../engine/types';
import type { Evidence } from '../evidence/types';
import type { KnowledgeApi } from '../evidence/crag/types';
import { exportSpans } from './otlp';
import { SpanBuffer, type FinishedSpan } from './span-buffer';

/**
 * A run as one OpenTelemetry trace: a span for the run (sent when it ends), one per step (sent when the step is
 * over, with the step's model calls, tool calls and evidence requests as children). Everything is sent in the
 * background (`waitUntil`), after the step has stored its result. Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */

export const tracingOn = (config: Config) => !!config.OTEL_EXPORTER_OTLP_ENDPOINT;

/** The trace id of a run when tracing is on (for the run JSON and x-trace-id), else undefined. */
export const traceIdFor = (config: Config, runId: string) => (tracingOn(config) ? traceIdOf(runId) : undefined);

export const startStepTrace = (config: Config, runId: string, step: number, request: RunRequest): SpanBuffer | undefined =>
  tracingOn(config)
    ? new SpanBuffer(traceIdOf(runId), runSpanIdOf(runId), `step ${step}`, { 'humaniq.run_id': runId, 'humaniq.step': step, 'humaniq.mode': request.mode }, config.secrets)
    : undefined;

export const sendSpans = (config: Config, spans: FinishedSpan[], waitUntil: (p: Promise<unknown>) => void) => waitUntil(exportSpans(config, spans));

/** The run's own span, from its start to its end, sent once when the run ends. */
export const runSpan = (
  config: Config,
  run: { runId: string; request: RunRequest; status: RunStatus; usage: Usage; steps: number; startedAt: number; finishedAt: number },
  error?: string,
): FinishedSpan => ({
  traceId: traceIdOf(run.runId),
  spanId: runSpanIdOf(run.runId),
  name: `invoke_agent humaniq-${run.request.mode}`,
  kind: 1,
  startMs: run.startedAt,
  endMs: run.finishedAt,
  attributes: {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': `humaniq-${run.request.mode}`,
    'gen_ai.request.model': config.LLM_MODEL,
    'gen_ai.usage.input_tokens': run.usage.promptTokens,
    'gen_ai.usage.output_tokens': run.usage.completionTokens,
    'humaniq.run_id': run.runId,
    'humaniq.variant': run.request.variant,
    'humaniq.mode': run.request.mode,
    'humaniq.status': run.status,
    'humaniq.steps': run.steps,
    'humaniq.llm_calls': run.usage.llmCalls,
    'humaniq.tool_calls': run.usage.toolCalls,
  },
  ...(error ? { error } : {}),
});

const describeArgs = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a) ?? '')).join(' | ');

/** Every evidence request of the step as a span named after the request (`evidence search`, `evidence sparql`, …). */
export const tracedEvidence = (evidence: Evidence, tracer: Tracer): Evidence =>
  new Proxy(evidence, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function' || prop === 'health' || typeof prop !== 'string') return value;
      return (...args: unknown[]) =>
        tracer.span(`evidence ${prop}`, { 'humaniq.evidence.kind': target.kind, 'humaniq.evidence.request': prop, 'humaniq.evidence.input': describeArgs(args) }, () =>
          Promise.resolve((value as (...a: unknown[]) => unknown).apply(target, args)),
        );
    },
  });

/** CRAG KG API calls are evidence requests too. */
export const tracedKg = (kg: KnowledgeApi, tracer: Tracer): KnowledgeApi => ({
  call: (call) => tracer.span(`evidence kg ${call.endpoint}`, { 'humaniq.evidence.kind': 'kg', 'humaniq.evidence.request': call.endpoint }, () => kg.call(call)),
});

/** A step's services with their evidence and KG requests traced, each wrapped once, on first use. */
export const tracedServices = <S extends { evidence(): Evidence; kg(): KnowledgeApi }>(services: S, tracer: Tracer): S => {
  let evidence: Evidence | undefined;
  let kg: KnowledgeApi | undefined;
  return { ...services, evidence: () => (evidence ??= tracedEvidence(services.evidence(), tracer)), kg: () => (kg ??= tracedKg(services.kg(), tracer)) };
};
