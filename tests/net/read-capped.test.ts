import { describe, expect, it } from 'vitest';
import { eventStream } from '../../src/net/event-stream';
import { MIN_PIECES, OverCapError, readCapped, readHead } from '../../src/net/read-capped';

const encoder = new TextEncoder();

/** A body built in JavaScript that hands out `piece(i)` on every pull, without end (or `count` pieces); counts what it handed out. */
const pulled = (piece: (i: number) => Uint8Array, count = Infinity) => {
  const seen = { pieces: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pieces >= count) return controller.close();
      controller.enqueue(piece(seen.pieces++));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
};

/**
 * A byte stream as workerd's fetch bodies are (readable with a BYOB reader), written `piece(i)` per write without
 * end: each write waits until it has been read, like a socket that only sends what the other side takes.
 */
const written = (piece: (i: number) => Uint8Array) => {
  const { readable, writable } = new IdentityTransformStream();
  const writer = writable.getWriter();
  const seen = { pieces: 0 };
  void (async () => {
    for (;;) await writer.write(piece(seen.pieces++));
  })().catch(() => {});
  return { body: readable, seen };
};

const oneByte = () => Uint8Array.of(97);

describe('a body read under a byte cap and a trickle cap', () => {
  it('one byte per piece without end is refused by the average of its pieces, long before its bytes reach the cap', async () => {
    for (const { body, seen } of [pulled(oneByte), written(oneByte)]) {
      const err = await readCapped(body, 1024 * 1024).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OverCapError);
      // Judged once past the first 1,024 pieces: 1 byte a piece on average, against the 256 asked.
      expect(err).toMatchObject({ cap: 1024 * 1024, trickle: { pieces: MIN_PIECES + 1, bytes: MIN_PIECES + 1, minPieceBytes: 256 } });
      expect((err as Error).message).toBe('sent in 1025 pieces averaging 1.0 bytes, under the 256 bytes a piece must average past the first 1024');
      expect(seen.pieces).toBeLessThan(MIN_PIECES + 8);
    }
  });

  it('a body up to the byte cap in many small writes passes when its pieces are no trickle, whatever their count', async () => {
    // The honest server: a streamed reply whose every event is written in three writes (~50 bytes each on
    // average), 0.9 MB in all: 18,000 pieces, more than the old cap's 16,384, but 50 bytes a piece is no trickle.
    const event = encoder.encode(`data: ${JSON.stringify({ choices: [{ delta: { content: ' token' } }], id: 'x'.repeat(80) })}\n\n`);
    const parts = [event.subarray(0, 6), event.subarray(6, event.length - 2), event.subarray(event.length - 2)];
    const events = Math.floor(900_000 / event.length);
    const { body } = pulled((i) => parts[i % 3]!, events * 3);
    const read = await readCapped(body, 1024 * 1024, { minPieceBytes: 32 });
    expect(read.byteLength).toBe(events * event.length);
    expect(events * 3).toBeGreaterThan(16_384);
  });

  it('large pieces past the byte cap are refused by their bytes, and the body is cancelled', async () => {
    const { body, seen } = pulled(() => new Uint8Array(64 * 1024));
    const err = await readCapped(body, 1024 * 1024).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OverCapError);
    expect((err as OverCapError).trickle).toBeUndefined();
    expect(seen.cancelled).toBe(true);
    expect(seen.pieces).toBeLessThanOrEqual(1024 / 64 + 2);
  });

  it('a body within both caps comes back whole, in whatever pieces it came', async () => {
    const text = 'Berlin is the capital of Germany. '.repeat(300);
    const bytes = encoder.encode(text);
    for (const size of [1, 7, 4096, bytes.length]) {
      const { body } = pulled((i) => bytes.subarray(i * size, (i + 1) * size), Math.ceil(bytes.length / size));
      const read = await readCapped(body, 1024 * 1024, { minPieceBytes: 1 });
      expect(new TextDecoder().decode(read)).toBe(text);
    }
    // Exactly at the cap is within it; one byte more is over.
    expect((await readCapped(new Response(bytes).body, bytes.length)).byteLength).toBe(bytes.length);
    await expect(readCapped(new Response(bytes).body, bytes.length - 1)).rejects.toBeInstanceOf(OverCapError);
  });

  it('the head of an error page without end is its first bytes, and the rest is not read', async () => {
    const { body, seen } = pulled(() => encoder.encode('<html>trace '));
    const head = new TextDecoder().decode(await readHead(body, 1_200));
    expect(head).toHaveLength(1_200);
    expect(head.startsWith('<html>trace <html>trace')).toBe(true);
    expect(seen.cancelled).toBe(true);
  });

  it('an aborted signal ends the reading with its reason, whatever stream the body is', async () => {
    const controller = new AbortController();
    const { body } = pulled(() => encoder.encode('x'.repeat(16)));
    setTimeout(() => controller.abort(new Error('deadline')), 20);
    // A body that keeps arriving slowly: only the signal can end it before the caps.
    const slow = body.pipeThrough(new TransformStream({ transform: async (c, out) => (await new Promise((r) => setTimeout(r, 5)), out.enqueue(c)) }));
    await expect(readCapped(slow, 1024 * 1024, { signal: controller.signal })).rejects.toThrow('deadline');
    // A byte stream that sends nothing more: the read waiting on it is cancelled.
    const quiet = new IdentityTransformStream();
    const later = new AbortController();
    setTimeout(() => later.abort(new Error('deadline')), 20);
    await expect(readCapped(quiet.readable, 1024, { signal: later.signal })).rejects.toThrow('deadline');
  });
});

describe('an event stream handed on in whole events', () => {
  const events = ['data: {"a":1}\n\n', 'data: {"b":2}\r\n\r\n', ': ping\n\n', 'data: [DONE]\n\n'];

  it('cuts a stream sent one byte per piece at the ends of its events, losing nothing', async () => {
    const bytes = encoder.encode(events.join(''));
    const { body } = pulled((i) => bytes.subarray(i, i + 1), bytes.length);
    const chunks: string[] = [];
    for await (const chunk of eventStream(body, 64 * 1024, { minPieceBytes: 1 })) chunks.push(new TextDecoder().decode(chunk));
    expect(chunks).toEqual(events);
  });

  it('an event that never ends is refused by the caps, not held', async () => {
    const { body, seen } = written(oneByte);
    const reader = eventStream(body, 128 * 1024, { minPieceBytes: 32 }).getReader();
    const err = await reader.read().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OverCapError);
    expect(err).toMatchObject({ trickle: { pieces: MIN_PIECES + 1, minPieceBytes: 32 } });
    expect(seen.pieces).toBeLessThan(MIN_PIECES + 8);
  });
});
