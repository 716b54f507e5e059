/**
 * Reads a byte stream from a party we do not control (request bodies in src/api/body.ts, evidence in
 * src/evidence/live/http.ts, model replies in src/llm/) under two caps counted as the bytes arrive: bytes, and the
 * pieces they arrive in. Every piece costs a round trip through the runtime whatever its size (30–80 µs of workerd's
 * time here, and about 0.8 KB of its heap that it keeps for a while), so a body sent one byte per HTTP chunk would
 * take minutes and gigabytes to reach a byte cap of megabytes; the piece cap (by default one piece per 256 bytes of
 * the byte cap) ends it after a second or two instead.
 *
 * Memory stays near the body's own size: a byte stream (workerd's fetch and request bodies) is read with a BYOB
 * reader straight into one growing buffer, and another stream's chunks are copied into it and dropped. Keeping the
 * chunks themselves would keep what backs them: workerd hands out each chunk of a fetched body as a view on a
 * 4 KiB buffer of its own, so a body that arrived one SPARQL binding (70 bytes) per chunk held 60 times its size.
 */

/**
 * A body may arrive in at most one piece per this many bytes of its byte cap (and in at least MIN_PIECES). Real
 * answers come in pieces of kilobytes (a server's write buffer, a TCP segment); a model's event stream is the
 * exception, one event of ~200 bytes per token, and its caller asks for more pieces (src/llm/call-budget.ts).
 */
export const BYTES_PER_PIECE = 256;
const MIN_PIECES = 1_024;
/** The piece cap that goes with a byte cap. */
export const pieceCap = (bytes: number, bytesPerPiece = BYTES_PER_PIECE) => Math.max(MIN_PIECES, Math.floor(bytes / bytesPerPiece));

/** The first buffer of a body read whole; it doubles as the body grows (up to the cap). */
export const FIRST_BUFFER = 64 * 1024;
/** Space offered to one read: about the largest piece a socket hands over; a grown buffer is not offered whole. */
export const READ_SPACE = 64 * 1024;

export class OverCapError extends Error {
  /**
   * @param cap the byte cap
   * @param pieces set when it was the piece cap that was passed
   */
  constructor(
    readonly cap: number,
    readonly pieces?: number,
  ) {
    super(pieces === undefined ? `over ${cap} bytes` : `sent in more than ${pieces} pieces`);
    this.name = 'OverCapError';
  }
}

export interface CapOptions {
  /** Pieces the body may arrive in (default `pieceCap(cap)`). */
  pieces?: number;
  /** Ends the reading with the signal's reason, whatever stream the body is (a fetch spy's too). */
  signal?: AbortSignal;
}

/** One read of a body: where its bytes landed (`space`'s buffer, possibly moved there by the read) and whether it ended. */
interface Piece {
  view: Uint8Array;
  done: boolean;
}

/**
 * The next pieces of a body, each read into space the caller gives. Past the piece cap, or when `signal` aborts,
 * `read` throws and the body is cancelled.
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
  const maxPieces = options.pieces ?? pieceCap(cap);
  const { signal } = options;
  const byob = byobReader(body);
  const plain = byob ? undefined : body.getReader();
  let rest: Uint8Array | undefined;
  let pieces = 0;
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
      if (piece.done) signal?.removeEventListener('abort', onAbort);
      else if (++pieces > maxPieces) {
        await this.cancel();
        throw new OverCapError(cap, maxPieces);
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
 * The whole body, refused with {@link OverCapError} past `cap` bytes or past its piece cap: the rest is not read and
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
    // Past the piece cap, what came so far is still the head of the page.
    if (!(err instanceof OverCapError)) throw err;
  }
  await reader.cancel();
  return new Uint8Array(buffer, 0, size);
};
