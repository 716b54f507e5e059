import { authHeaders, ApiError, errorFrom } from './api.js';
import { readSseBody } from './sse.js';

const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000];

/** Drops for tests and manual checks: `window.humaniq.dropStream()` cuts the live connection as a network fault would. */
const live = new Set();
window.humaniq = Object.assign(window.humaniq ?? {}, {
  dropStream: () => {
    for (const c of live) c.abort(new DOMException('dropped for a test', 'NetworkError'));
    return live.size;
  },
  reconnects: 0,
});

/**
 * Follows one run's events: starts it (`start` = the POST body) or replays it (`runId`), and on a dropped
 * connection reconnects to GET /v1/runs/{id}/events with Last-Event-ID = the last id seen. Each event id
 * reaches onEvent once, however often the connection breaks. Resolves when `done` arrives.
 * Handlers: onEvent(type, data, id), onRunId(id), onStatus(text), onDelta(data) for the live pieces of model replies
 * (no id, never replayed). Call the returned stop() to leave.
 */
export const followRun = ({ start, runId, onEvent, onRunId = () => {}, onStatus = () => {}, onDelta = () => {} }) => {
  let lastId = 0;
  let id = runId ?? null;
  let stopped = false;
  let finished = false;
  let controller = null;

  const handle = (frame) => {
    if (frame.event === 'delta') {
      try {
        onDelta(JSON.parse(frame.data));
      } catch {
        // a broken delta only loses a preview; the finished step follows
      }
      return;
    }
    const n = Number(frame.id);
    if (!Number.isFinite(n) || n <= lastId) return;
    lastId = n;
    let data;
    try {
      data = JSON.parse(frame.data);
    } catch {
      return;
    }
    if (frame.event === 'run' && data.runId && !id) {
      id = data.runId;
      onRunId(id);
    }
    if (frame.event === 'done') finished = true;
    onEvent(frame.event, data, n);
  };

  const open = async () => {
    controller = new AbortController();
    live.add(controller);
    try {
      const res = id
        ? await fetch(`/v1/runs/${encodeURIComponent(id)}/events`, {
            headers: { accept: 'text/event-stream', 'last-event-id': String(lastId), ...authHeaders() },
            signal: controller.signal,
          })
        : await fetch('/v1/answer', {
            method: 'POST',
            headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...authHeaders() },
            body: JSON.stringify(start),
            signal: controller.signal,
          });
      if (!res.ok) throw await errorFrom(res);
      const headerId = res.headers.get('x-run-id');
      if (headerId && !id) {
        id = headerId;
        onRunId(id);
      }
      await readSseBody(res.body, handle);
    } finally {
      live.delete(controller);
    }
  };

  const done = (async () => {
    let attempt = 0;
    while (!stopped && !finished) {
      try {
        await open();
        attempt = 0;
        if (!finished && !stopped) throw new Error('stream ended before the run finished');
      } catch (err) {
        if (stopped) return;
        // API errors (bad request, no model, unknown run) are answers, not connection trouble: no retry.
        if (err instanceof ApiError && err.status < 500) throw err;
        if (err instanceof ApiError && err.code === 'llm_unavailable') throw err;
        if (!id) throw err instanceof ApiError ? err : new ApiError(0, 'network', String(err?.message ?? err));
        if (attempt >= RETRY_DELAYS_MS.length) throw new ApiError(0, 'network', 'lost the connection to the run and could not get it back');
        onStatus(`Connection lost; reconnecting from event ${lastId}…`);
        window.humaniq.reconnects += 1;
        await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[attempt++]));
      }
    }
    onStatus('');
  })();

  return {
    done,
    stop: () => {
      stopped = true;
      controller?.abort();
    },
  };
};
