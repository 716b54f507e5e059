import { createParser } from 'eventsource-parser';
import { exports } from 'cloudflare:workers';

export const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  // Strings and bytes go as they are (to test malformed bodies); anything else as JSON.
  exports.default.fetch(`http://localhost${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
  });

export const get = (path: string, headers: Record<string, string> = {}) =>
  exports.default.fetch(`http://localhost${path}`, { headers });

export interface SseEvent {
  id?: number;
  event?: string;
  data?: any;
}

/**
 * Parses a whole SSE body with the same parser the Worker uses (comments dropped, events without a type too).
 * Live `delta` events are left out unless asked for: they are never stored, so a replay has none.
 */
export const parseSse = (text: string, options: { deltas?: boolean } = {}): SseEvent[] => {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: ({ id, event, data }) => {
      if (event === 'delta' && !options.deltas) return;
      if (event) events.push({ ...(id !== undefined ? { id: Number(id) } : {}), event, data: JSON.parse(data) });
    },
  });
  parser.feed(text);
  // A body that ends without the blank line still carries its last frame.
  parser.feed('\n\n');
  return events;
};

export const readSse = async (res: Response, options: { deltas?: boolean } = {}) => parseSse(await res.text(), options);

/**
 * A Workers AI binding that streams one piece per call: the first call's stream breaks after `first` (a connection
 * reset), every later call sends `then` and ends; so a provider with one retry answers `then`.
 */
export const breaksOnce = (first: string, then: string): Ai => {
  const encoder = new TextEncoder();
  let calls = 0;
  return {
    run: async () => {
      const broken = ++calls === 1;
      let pulls = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulls++ === 0) return controller.enqueue(encoder.encode(`data: ${JSON.stringify({ response: broken ? first : then })}\n\n`));
          if (broken) controller.error(new Error('connection reset'));
          else controller.close();
        },
      });
    },
  } as unknown as Ai;
};
