import { FIRST_BUFFER, grown, OverCapError, pieceReader, READ_SPACE, type CapOptions } from './read-capped';

/**
 * Where the last event of `bytes` ends: just after its blank line (`\n\n`, `\r\r` or `\r\n\r\n`), or 0 when none ends
 * there. Only ends at `from` or later are looked for; the bytes before were searched already.
 */
const lastEventEnd = (bytes: Uint8Array, from: number): number => {
  for (let j = bytes.length - 1; j >= Math.max(1, from); j--) {
    const b = bytes[j];
    if (b !== 10 && b !== 13) continue;
    const a = bytes[j - 1];
    if (a === b || (b === 10 && a === 13 && j >= 3 && bytes[j - 2] === 10 && bytes[j - 3] === 13)) return j + 1;
  }
  return 0;
};

/**
 * A server-sent event stream from a party we do not control, read under the byte and trickle caps of read-capped.ts
 * and handed on in whole events: each chunk ends where an event ends. A reader that parses events (the OpenAI SDK's,
 * Workers AI's below) then never holds more than one event across chunks. The SDK copies and searches all it holds
 * again on every chunk it gets, so a reply sent one byte per chunk with no blank line cost it time that grew with the
 * square of the reply's size (12.9 s of CPU in 15 s, the reply still under its cap). Past a cap the stream errors
 * with OverCapError; when `signal` aborts, with the signal's reason.
 */
export const eventStream = (body: ReadableStream<Uint8Array>, cap: number, options: CapOptions = {}): ReadableStream<Uint8Array> => {
  const reader = pieceReader(body, cap, options);
  let buffer = new ArrayBuffer(Math.min(cap + 1, FIRST_BUFFER));
  // Bytes held (an event not ended yet), bytes read in all, and how much of what is held was searched for an end.
  let held = 0;
  let total = 0;
  let searched = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          if (held === buffer.byteLength) buffer = grown(buffer, held, Math.min(cap + 1, buffer.byteLength * 2));
          const { view, done } = await reader.read(new Uint8Array(buffer, held, Math.min(READ_SPACE, buffer.byteLength - held)));
          buffer = view.buffer as ArrayBuffer;
          held += view.byteLength;
          total += view.byteLength;
          if (total > cap) {
            await reader.cancel();
            throw new OverCapError(cap);
          }
          if (done) {
            if (held) controller.enqueue(new Uint8Array(buffer.slice(0, held)));
            return controller.close();
          }
          const end = lastEventEnd(new Uint8Array(buffer, 0, held), searched);
          searched = held;
          if (!end) continue;
          controller.enqueue(new Uint8Array(buffer.slice(0, end)));
          new Uint8Array(buffer).copyWithin(0, end, held);
          held -= end;
          searched = held;
          return;
        }
      } catch (err) {
        controller.error(err);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
};
