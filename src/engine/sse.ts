import type { Delta } from './live-deltas';
import type { RunEvent } from './types';

const encoder = new TextEncoder();

/** One SSE frame: the id is the run's step sequence number, so a client can resume with Last-Event-ID. */
export const sseFrame = (event: RunEvent): Uint8Array =>
  encoder.encode(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);

/** The same frame from an event as stored (its data already JSON text): a subscriber catching up from storage. */
export const sseStoredFrame = (id: number, type: string, data: string): Uint8Array => encoder.encode(`id: ${id}\nevent: ${type}\ndata: ${data}\n\n`);

/** A live delta has no id: it is never stored, so a client's Last-Event-ID stays on the last stored event. */
export const sseDelta = (delta: Delta): Uint8Array => encoder.encode(`event: delta\ndata: ${JSON.stringify(delta)}\n\n`);

export const sseComment = (text: string): Uint8Array => encoder.encode(`: ${text}\n\n`);

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
