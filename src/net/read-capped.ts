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
