/**
 * Reads a byte stream and stops at `cap` bytes, so an oversized body is never buffered whole: request bodies
 * (src/api/body.ts) and evidence responses (src/evidence/live/http.ts) both come from parties we do not control.
 */

export class OverCapError extends Error {
  constructor(readonly cap: number) {
    super(`over ${cap} bytes`);
    this.name = 'OverCapError';
  }
}

export const readCapped = async (body: ReadableStream<Uint8Array> | null, cap: number): Promise<Uint8Array> => {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel().catch(() => {});
      throw new OverCapError(cap);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
};

/** The first `max` bytes of a stream (fewer if it ends first); the rest is not read. For showing the start of an error page. */
export const readHead = async (body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array> => {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const c of chunks) {
    if (at >= bytes.length) break;
    const part = c.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes;
};

/**
 * The same byte cap as a pass-through stream, for readers we do not write ourselves (an SDK parsing a model's reply):
 * past `cap` bytes the source is cancelled and the stream errors with {@link OverCapError}. When `signal` aborts, the
 * source is cancelled and the stream errors with the signal's reason, whatever fetch produced the source — a body that
 * keeps arriving would otherwise outlive every timeout that only covers the headers.
 */
export const cappedStream = (body: ReadableStream<Uint8Array>, cap: number, signal?: AbortSignal): ReadableStream<Uint8Array> => {
  const reader = body.getReader();
  let size = 0;
  let onAbort: (() => void) | undefined;
  const release = () => {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (!signal) return;
      onAbort = () => {
        controller.error(signal.reason);
        reader.cancel(signal.reason).catch(() => {});
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (signal?.aborted) return;
        if (done) {
          release();
          controller.close();
          return;
        }
        size += value.byteLength;
        if (size > cap) {
          release();
          controller.error(new OverCapError(cap));
          await reader.cancel().catch(() => {});
          return;
        }
        controller.enqueue(value);
      } catch (err) {
        release();
        if (!signal?.aborted) controller.error(err);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
};
