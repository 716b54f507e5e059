import { version as SERVICE_VERSION } from '../../package.json';
import { otlpHeaders, type Config } from '../config';
import { sendsInClear } from '../net/in-clear';
import type { SpanValue } from '../engine/trace';
import type { FinishedSpan } from './span-buffer';

/**
 * Sends spans to an OpenTelemetry collector as OTLP/HTTP with the JSON encoding (opentelemetry-proto's
 * ExportTraceServiceRequest; ids in hex, times in nanoseconds as strings). Written out here rather than through the
 * OpenTelemetry JS SDK: the whole encoder is this file, where the SDK and its exporter would cost tens of KiB of a
 * Worker upload with next to no headroom (npm run bench:bundle). A collector that is down, slow or refusing costs
 * at most EXPORT_TIMEOUT_MS of background time and a log line: it never fails a run.
 */

const EXPORT_TIMEOUT_MS = 5_000;
const SERVICE_NAME = 'humaniq-answers';

type AnyValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean } | { arrayValue: { values: AnyValue[] } };

const anyValue = (v: SpanValue): AnyValue =>
  typeof v === 'string'
    ? { stringValue: v }
    : typeof v === 'boolean'
      ? { boolValue: v }
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? { intValue: String(v) }
          : { doubleValue: v }
        : { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };

const nanos = (ms: number) => `${Math.round(ms)}000000`;

/**
 * What the spans come from, as a backend groups and filters them: the service and its release (package.json's version),
 * and the deployment's variant (its DEFAULT_VARIANT: each deploy environment serves one benchmark). A run's own
 * variant is an attribute of its run span.
 */
export const serviceResource = (config: Pick<Config, 'DEFAULT_VARIANT'>) => ({
  attributes: [
    { key: 'service.name', value: { stringValue: SERVICE_NAME } },
    { key: 'service.version', value: { stringValue: SERVICE_VERSION } },
    { key: 'humaniq.deployment.variant', value: { stringValue: config.DEFAULT_VARIANT } },
  ],
});

/** The OTLP JSON body for these spans. */
export const otlpTraceRequest = (spans: FinishedSpan[], resource: ReturnType<typeof serviceResource>) => ({
  resourceSpans: [
    {
      resource,
      scopeSpans: [
        {
          scope: { name: SERVICE_NAME },
          spans: spans.map((s) => ({
            traceId: s.traceId,
            spanId: s.spanId,
            ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
            name: s.name,
            kind: s.kind,
            startTimeUnixNano: nanos(s.startMs),
            endTimeUnixNano: nanos(Math.max(s.endMs, s.startMs)),
            attributes: Object.entries(s.attributes)
              .filter((e): e is [string, SpanValue] => e[1] !== undefined)
              .map(([key, value]) => ({ key, value: anyValue(value) })),
            // STATUS_CODE_OK = 1, STATUS_CODE_ERROR = 2
            status: s.error ? { code: 2, message: s.error } : { code: 1 },
          })),
        },
      ],
    },
  ],
});

/** `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`, as the OpenTelemetry spec builds the traces URL from the base endpoint. */
export const tracesUrl = (endpoint: string) => `${endpoint.replace(/\/+$/, '')}/v1/traces`;

/** POSTs the spans; resolves either way (a failure is logged, never thrown). */
export const exportSpans = async (config: Config, spans: FinishedSpan[]): Promise<void> => {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || !spans.length) return;
  // The collector's headers are credentials: never sent in clear (the configuration refuses such a pair at start).
  if (config.OTEL_EXPORTER_OTLP_HEADERS && sendsInClear(endpoint)) return void console.warn('trace export skipped: OTEL_EXPORTER_OTLP_HEADERS would go over plain HTTP');
  try {
    const res = await fetch(tracesUrl(endpoint), {
      method: 'POST',
      headers: { ...otlpHeaders(config.OTEL_EXPORTER_OTLP_HEADERS), 'content-type': 'application/json' },
      body: JSON.stringify(otlpTraceRequest(spans, serviceResource(config))),
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (!res.ok) console.warn('trace export refused', res.status);
  } catch (err) {
    console.warn('trace export failed', err instanceof Error ? err.name : typeof err);
  }
};
