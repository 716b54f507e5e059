/**
 * Reads a byte stream from a party we do not control (request bodies in src/api/body.ts, evidence in
 * src/evidence/live/http.ts, model replies in src/llm/) under two caps counted as the bytes arrive: bytes, and how
 * small its pieces are on average. Every piece costs a round trip through the runtime whatever its size (30–80 µs of
 * workerd's time here, and about 0.8 KB of its heap that it keeps for a while), so a body sent one byte per HTTP chunk
 * would take minutes and gigabytes to reach a byte cap of megabytes. What is refused is the trickle, not a count of
 * writes: once a body has come in more than MIN_PIECES pieces, its pieces must average at least `minPieceBytes`. So a
 * server may split its answer into writes however it likes (a model's event in three writes, a SPARQL binding per
 * write) as long as they are not a few bytes each, and the pieces a body may cost stay below its size over that floor.
 *
 * Memory stays near the body's own size: a byte stream (workerd's fetch and request bodies) is read with a BYOB
 * reader straight into one growing buffer, and another stream's chunks are copied into it and dropped. Keeping the
 * chunks themselves would keep what backs them: workerd hands out each chunk of a fetched body as a view on a
 * 4 KiB buffer of its own, so a body that arrived one SPARQL binding (70 bytes) per chunk held 60 times its size.
 */

/**
 * The smallest average piece of a body by default. Real answers come in pieces of kilobytes (a server's write buffer,
 * a TCP segment); a model's event stream is the exception, one event of 100–200 bytes per token, sometimes in several
 * writes, and its caller asks for a lower floor (src/llm/call-budget.ts).
 */
export const BYTES_PER_PIECE = 256;
/** Pieces any body may come in before its average is judged: a short answer in small writes is no trickle. */
export const MIN_PIECES = 1_024;

/** The first buffer of a body read whole; it doubles as the body grows (up to the cap). */
export const FIRST_BUFFER = 64 * 1024;
/** Space offered to one read: about the largest piece a socket hands over; a grown buffer is not offered whole. */
export const READ_SPACE = 64 * 1024;

/** What a body refused as a trickle had measured: its pieces, its bytes, and the average it fell under. */
export interface Trickle {
  pieces: number;
  bytes: number;
  minPieceBytes: number;
}

/** The average piece of a trickle, readable: 1.0, 12.5. */
export const averageOf = (t: Trickle) => (t.bytes / t.pieces).toFixed(1);

export class OverCapError extends Error {
  /**
   * @param cap the byte cap
   * @param trickle set when it was the pieces' average, not the bytes, that was refused
   */
  constructor(
    readonly cap: number,
    readonly trickle?: Trickle,
  ) {
    super(
      trickle === undefined
        ? `over ${cap} bytes`
        : `sent in ${trickle.pieces} pieces averaging ${averageOf(trickle)} bytes, under the ${trickle.minPieceBytes} bytes a piece must average past the first ${MIN_PIECES}`,
    );
    this.name = 'OverCapError';
  }
}

export interface CapOptions {
  /** The smallest average piece accepted once a body has come in more than MIN_PIECES pieces (default BYTES_PER_PIECE). */
  minPieceBytes?: number;
  /** Ends the reading with the signal's reason, whatever stream the body is (a fetch spy's too). */
  signal?: AbortSignal;
}

/** One read of a body: where its bytes landed (`space`'s buffer, possibly moved there by the read) and whether it ended. */
interface Piece {
  view: Uint8Array;
  done: boolean;
}

/**
 * The next pieces of a body, each read into space the caller gives. When its pieces turn out a trickle (see above),
 * or when `signal` aborts, `read` throws and the body is cancelled.
 */
export interface PieceReader {
  read(space: Uint8Array): Promise<Piece>;
  cancel(reason?: unknown): Promise<void>;
}

const byobReader = (body: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined => {
  try {
    return body.getReader({ mode: 'byob' });
  } catch {
    return undefined; // not a byte stream (a stream built in JavaScript): read it chunk by chunk
  }
};

export const pieceReader = (body: ReadableStream<Uint8Array>, cap: number, options: CapOptions = {}): PieceReader => {
  const minPieceBytes = options.minPieceBytes ?? BYTES_PER_PIECE;
  const { signal } = options;
  const byob = byobReader(body);
  const plain = byob ? undefined : body.getReader();
  let rest: Uint8Array | undefined;
  let pieces = 0;
  let bytes = 0;
  const cancel = (reason?: unknown) => (byob ?? plain)!.cancel(reason).catch(() => {});
  const onAbort = () => void cancel(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });

  const next = async (space: Uint8Array): Promise<Piece> => {
    if (byob) {
      const { done, value } = await byob.read(space);
      // No view back (the space's buffer gone with it): the body was cancelled under the read, by the signal.
      if (!value) {
        signal?.throwIfAborted();
        throw new Error('the body was cancelled while it was read');
      }
      return { view: value, done };
    }
    // A chunk larger than the space given is handed on in parts; only reading a new chunk counts as a piece.
    let chunk = rest;
    rest = undefined;
    if (!chunk) {
      const { done, value } = await plain!.read();
      if (done) return { view: space.subarray(0, 0), done: true };
      chunk = value;
    } else pieces--;
    const n = Math.min(chunk.byteLength, space.byteLength);
    space.set(n === chunk.byteLength ? chunk : chunk.subarray(0, n));
    if (n < chunk.byteLength) rest = chunk.subarray(n);
    return { view: space.subarray(0, n), done: false };
  };

  return {
    async read(space) {
      signal?.throwIfAborted();
      const piece = await next(space);
      signal?.throwIfAborted();
      bytes += piece.view.byteLength;
      if (piece.done) signal?.removeEventListener('abort', onAbort);
      else if (++pieces > MIN_PIECES && pieces * minPieceBytes > bytes) {
        await this.cancel();
        throw new OverCapError(cap, { pieces, bytes, minPieceBytes });
      }
      return piece;
    },
    cancel(reason) {
      signal?.removeEventListener('abort', onAbort);
      return cancel(reason);
    },
  };
};

/** A buffer of `length` bytes holding the first `size` bytes of `from`. */
export const grown = (from: ArrayBuffer, size: number, length: number): ArrayBuffer => {
  const to = new ArrayBuffer(length);
  new Uint8Array(to).set(new Uint8Array(from, 0, size));
  return to;
};

/**
 * The whole body, refused with {@link OverCapError} past `cap` bytes or as a trickle: the rest is not read and
 * the body is cancelled. The bytes come back as a view on a buffer that may be up to twice their size.
 */
export const readCapped = async (body: ReadableStream<Uint8Array> | null, cap: number, options: CapOptions = {}): Promise<Uint8Array> => {
  if (!body) return new Uint8Array(0);
  const reader = pieceReader(body, cap, options);
  // One byte more than the cap: a body that fills it is over.
  let buffer = new ArrayBuffer(Math.min(cap + 1, FIRST_BUFFER));
  let size = 0;
  for (;;) {
    if (size === buffer.byteLength) buffer = grown(buffer, size, Math.min(cap + 1, buffer.byteLength * 2));
    const { view, done } = await reader.read(new Uint8Array(buffer, size, Math.min(READ_SPACE, buffer.byteLength - size)));
    buffer = view.buffer as ArrayBuffer;
    size += view.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw new OverCapError(cap);
    }
    if (done) return new Uint8Array(buffer, 0, size);
  }
};

/** The first `max` bytes of a stream (fewer if it ends first); the rest is not read. For showing the start of an error page. */
export const readHead = async (body: ReadableStream<Uint8Array> | null, max: number, options: CapOptions = {}): Promise<Uint8Array> => {
  if (!body) return new Uint8Array(0);
  const reader = pieceReader(body, max, options);
  let buffer = new ArrayBuffer(max);
  let size = 0;
  try {
    while (size < max) {
      const { view, done } = await reader.read(new Uint8Array(buffer, size));
      buffer = view.buffer as ArrayBuffer;
      size += view.byteLength;
      if (done) break;
    }
  } catch (err) {
    // Refused as a trickle, what came so far is still the head of the page.
    if (!(err instanceof OverCapError)) throw err;
  }
  await reader.cancel();
  return new Uint8Array(buffer, 0, size);
};
