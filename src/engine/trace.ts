/**
 * The seam through which a run reports what it does as spans (OpenTelemetry, src/telemetry/). The engine only sees
 * this interface; with tracing off it is `noTracer`, which runs the work and records nothing.
 */

export type SpanValue = string | number | boolean | string[];
export type SpanAttributes = Record<string, SpanValue | undefined>;

/** What the work inside a span may add: attributes learnt along the way, and a failure that is not an exception. */
export interface SpanScope {
  set(attributes: SpanAttributes): void;
  fail(message: string): void;
}

export interface Tracer {
  /** Runs `work` inside a span; a throw marks the span failed and is rethrown unchanged. */
  span<T>(name: string, attributes: SpanAttributes, work: (span: SpanScope) => Promise<T>): Promise<T>;
}

const noScope: SpanScope = { set: () => {}, fail: () => {} };

export const noTracer: Tracer = { span: (_name, _attributes, work) => work(noScope) };

/**
 * A run's trace id is its run id without dashes (a UUID is 128 bits, as a trace id is), so every step of the run —
 * in whichever Durable Object instance runs it — lands in one trace without storing anything.
 */
export const traceIdOf = (runId: string) => runId.replace(/-/g, '').toLowerCase();

/** The run span's id: the random half of the run id, so step spans name their parent without a lookup. */
export const runSpanIdOf = (runId: string) => traceIdOf(runId).slice(16);
