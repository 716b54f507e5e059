import { Hono } from 'hono';
import { loadConfig } from '../config';
import type { RunRequest } from '../engine/types';
import { SSE_HEADERS, sseFrame } from '../engine/sse';
import { createLLM } from '../llm';
import { availableModes, defaultMode, strategyFor } from '../strategies';
import { runScope, type CallerVariables } from './auth';
import { readJsonBody } from './body';
import { HttpError } from './errors';
import { newRunId, runEvents, runStub, waitForRun } from './run-stub';
import { checkOptions } from './options-schemas';
import { answerRequestSchema } from './schemas';

/** A stream that starts with `head` and continues with the body of a response fetched meanwhile. */
const prepend = (head: Uint8Array, rest: () => Promise<Response>) => {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  void (async () => {
    try {
      writer.write(head).catch(() => {});
      const res = await rest();
      if (!res.body) return void writer.close().catch(() => {});
      const reader = res.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        await writer.write(value);
      }
      await writer.close();
    } catch {
      // The client went away or the object restarted: the client reconnects with Last-Event-ID.
      writer.abort().catch(() => {});
    }
  })();
  return readable;
};

export const wantsEventStream = (accept: string | undefined) => /\btext\/event-stream\b/i.test(accept ?? '');

/** Validates a request and turns it into a stored run; shared by /v1/answer and the chat-completions facade. */
export const createRun = async (
  env: Env,
  body: { question: string; variant?: RunRequest['variant']; mode?: string; context?: object; options?: Record<string, unknown> },
  owner?: string,
) => {
  const config = loadConfig(env as unknown as Record<string, unknown>);
  const variant = body.variant ?? config.DEFAULT_VARIANT;
  const mode = body.mode ?? defaultMode(variant, config);
  if (!strategyFor(mode, config)) {
    throw new HttpError(400, 'unknown_mode', `mode must be one of: ${availableModes(config).join(', ')}`);
  }
  const options = checkOptions(mode, body.options);
  const llm = createLLM(config, { AI: (env as { AI?: Ai }).AI });
  if (!llm.ok) throw new HttpError(503, 'llm_unavailable', llm.reason);
  const runId = newRunId();
  const request: RunRequest = {
    question: body.question,
    variant,
    mode,
    ...(body.context ? { context: body.context as Record<string, unknown> } : {}),
    ...(options ? { options } : {}),
  };
  const stub = runStub(env, runId);
  await stub.start(runId, request, owner);
  return { runId, stub, request };
};

export const answerRoutes = new Hono<{ Bindings: Env; Variables: CallerVariables }>().post('/v1/answer', async (c) => {
  const body = await readJsonBody(c, answerRequestSchema, { allowContext: true });
  const { runId, stub, request } = await createRun(c.env, body, runScope(c));
  if (wantsEventStream(c.req.header('accept'))) {
    // The `run` event is stored by now; send it at once and follow with the object's stream from after it,
    // so the first byte does not wait for a second round trip to the object.
    const first = sseFrame({ id: 1, type: 'run', at: Date.now(), data: { runId, variant: request.variant, mode: request.mode, question: request.question } });
    return new Response(prepend(first, () => runEvents(stub, 1)), { headers: { ...SSE_HEADERS, 'x-run-id': runId } });
  }
  const view = await waitForRun(stub);
  c.header('x-run-id', runId);
  return c.json(view);
});
