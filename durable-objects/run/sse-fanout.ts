import { sseComment, sseFrame } from '../../src/engine/sse';
import type { RunEvent } from '../../src/engine/types';

/**
 * The run's live SSE subscribers. Writes are never awaited: a slow or gone client must never hold up the run, and a
 * failed write drops the subscriber. A heartbeat comment keeps idle streams open while anyone listens.
 */
export class SseFanout {
  private readonly subscribers = new Set<WritableStreamDefaultWriter<Uint8Array>>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  /** Sends the stored events to one new stream, for the replay that comes before following. */
  replay(writer: WritableStreamDefaultWriter<Uint8Array>, events: RunEvent[]) {
    for (const e of events) this.write(writer, sseFrame(e));
  }

  /** Adds a stream to the live subscribers and keeps a heartbeat going every `heartbeatMs`. */
  follow(writer: WritableStreamDefaultWriter<Uint8Array>, heartbeatMs: number) {
    this.subscribers.add(writer);
    this.write(writer, sseComment('subscribed'));
    this.heartbeat ??= setInterval(() => {
      if (this.subscribers.size === 0) return this.stopHeartbeat();
      for (const w of this.subscribers) this.write(w, sseComment('keep-alive'));
    }, heartbeatMs);
  }

  broadcast(events: RunEvent[]) {
    for (const e of events) for (const w of this.subscribers) this.write(w, sseFrame(e));
  }

  /** The run ended: every stream closes after what it was sent. */
  closeAll() {
    for (const w of this.subscribers) w.close().catch(() => {});
    this.subscribers.clear();
    this.stopHeartbeat();
  }

  private write(writer: WritableStreamDefaultWriter<Uint8Array>, chunk: Uint8Array) {
    writer.write(chunk).catch(() => this.subscribers.delete(writer));
  }

  private stopHeartbeat() {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
