/**
 * The one writer of server-sent events. Every event stream the service sends is framed here and leaves with these
 * headers: a run's events from its object (durable-objects/run/sse-fanout.ts), the first event the API sends before
 * the object answers (src/runs/first-event-stream.ts), the chat facade's chunks and MCP's responses.
 */

const encoder = new TextEncoder();

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * One frame. `data` is one line of JSON text (JSON.stringify never writes a line break); `id` is what a client
 * resumes from with Last-Event-ID, so a frame that is never replayed (a live delta, a chat chunk) has none.
 */
export const sseFrame = ({ data, event, id }: { data: string; event?: string; id?: number }): Uint8Array =>
  encoder.encode(`${id !== undefined ? `id: ${id}\n` : ''}${event !== undefined ? `event: ${event}\n` : ''}data: ${data}\n\n`);

/** A comment line: readers skip it; it keeps an idle connection open and shows a dropped one on the next write. */
export const sseComment = (text: string): Uint8Array => encoder.encode(`: ${text}\n\n`);

/** An event-stream response: the SSE headers, then `extra` (a run's id, say). */
export const sseResponse = (body: ReadableStream<Uint8Array> | null, extra: Record<string, string> = {}, init: ResponseInit = {}): Response =>
  new Response(body, { ...init, headers: { ...SSE_HEADERS, ...extra } });

/**
 * A stream of frames made as its reader asks: `next` is called for each read (nothing is made ahead, so a reader that
 * stops reading stops the producer too) and answers the frames to send (it is asked again when it has none yet), or
 * null at the end; `first` goes out before the first call. `cancel` hears that the reader went away.
 */
export const pulledFrames = (next: () => Promise<Uint8Array[] | null>, cancel: () => Promise<void> | void, first: Uint8Array[] = []): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>(
    {
      start(controller) {
        for (const frame of first) controller.enqueue(frame);
      },
      async pull(controller) {
        // A pull that enqueues nothing is not called again: ask until there is something to send.
        for (;;) {
          const frames = await next();
          if (frames === null) return controller.close();
          for (const frame of frames) controller.enqueue(frame);
          if (frames.length) return;
        }
      },
      cancel: async () => {
        await cancel();
      },
    },
    { highWaterMark: 0 },
  );
