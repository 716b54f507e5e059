// Bench helpers: the shared dev-server starter, an SSE reader that timestamps events, and percentiles.
import { createParser } from 'eventsource-parser';
export { freePort, startDev } from '../../tests/support/dev-server.mjs';

/** Reads an SSE response, calling onEvent(name, data, tMs) as each event arrives (the Worker's parser). */
export const consumeSse = async (res, onEvent) => {
  const parser = createParser({
    onEvent: ({ event, data }) => {
      if (event) onEvent(event, data ? JSON.parse(data) : null, performance.now());
    },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
};

export const percentile = (values, p) => {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
