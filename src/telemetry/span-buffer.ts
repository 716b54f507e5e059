import { redact } from '../engine/redact';
import type { SpanAttributes, SpanScope, Tracer } from '../engine/trace';

/** One ended span, in the shape the OTLP encoder reads. Times are epoch milliseconds. */
export interface FinishedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 3 client (a call that leaves the run: model, evidence). */
  kind: 1 | 3;
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  error?: string;
}

export const newSpanId = () => [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join('');

const MAX_ATTRIBUTE_CHARS = 300;

/** Attribute text is cut short and scrubbed of configured secrets: spans leave the deployment. */
const clean = (attributes: SpanAttributes, secrets: string[]): SpanAttributes => {
  const out: SpanAttributes = {};
  for (const [k, v] of Object.entries(attributes)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'string' ? redact(v.slice(0, MAX_ATTRIBUTE_CHARS), secrets) : Array.isArray(v) ? v.map((s) => redact(s.slice(0, MAX_ATTRIBUTE_CHARS), secrets)) : v;
  }
  return out;
};

/**
 * Collects the spans of one step: the step's own span and, as its children, every model call, tool call and
 * evidence request made during it. Nothing leaves until the step is over (`end`), so tracing adds no I/O to a step.
 */
export class SpanBuffer implements Tracer {
  private readonly spans: FinishedSpan[] = [];
  readonly spanId = newSpanId();
  private readonly startMs = Date.now();

  constructor(
    private readonly traceId: string,
    private readonly parentSpanId: string,
    private readonly name: string,
    private readonly attributes: SpanAttributes,
    private readonly secrets: string[],
  ) {}

  async span<T>(name: string, attributes: SpanAttributes, work: (span: SpanScope) => Promise<T>): Promise<T> {
    const startMs = Date.now();
    const attrs: SpanAttributes = { ...attributes };
    let error: string | undefined;
    const scope: SpanScope = { set: (a) => Object.assign(attrs, a), fail: (message) => (error = message) };
    const kind = name.startsWith('execute_tool') ? 1 : 3;
    try {
      return await work(scope);
    } catch (err) {
      error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      throw err;
    } finally {
      this.spans.push({ traceId: this.traceId, spanId: newSpanId(), parentSpanId: this.spanId, name, kind, startMs, endMs: Date.now(), attributes: clean(attrs, this.secrets), ...(error ? { error: redact(error.slice(0, MAX_ATTRIBUTE_CHARS), this.secrets) } : {}) });
    }
  }

  /** Ends the step's span; returns it with every span recorded under it. */
  end(attributes: SpanAttributes = {}, error?: string): FinishedSpan[] {
    const own: FinishedSpan = {
      traceId: this.traceId,
      spanId: this.spanId,
      parentSpanId: this.parentSpanId,
      name: this.name,
      kind: 1,
      startMs: this.startMs,
      endMs: Date.now(),
      attributes: clean({ ...this.attributes, ...attributes }, this.secrets),
      ...(error ? { error: redact(error.slice(0, MAX_ATTRIBUTE_CHARS), this.secrets) } : {}),
    };
    return [own, ...this.spans.splice(0)];
  }
}
