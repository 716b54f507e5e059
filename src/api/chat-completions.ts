import { createRoute } from '@hono/zod-openapi';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import * as z from 'zod';
import type { AgentRun } from '../../durable-objects/agent-run';
import { loadConfig } from '../config';
import type { Delta } from '../engine/live-deltas';
import type { RunView } from '../engine/run-view';
import { SSE_HEADERS } from '../engine/sse';
import type { AnswerData, Citation, Confidence, EventType, RunStatus, Usage } from '../engine/types';
import { createRun, replayHeaders } from './answer';
import { runScope } from './auth';
import { cappedJsonBody } from './body';
import { conversationFrom, questionFrom, refuseClientTools } from './chat-conversation';
import { chatRequestSchema } from './chat-schema';
import { sourcesText } from './chat-sources';
import { HttpError } from './errors';
import { idempotencyHeaders, idempotentRunId } from './idempotency';
import { liveDraft } from './live-draft';
import { parseModel } from './models';
import { runEvents, runStub, waitForRun } from './run-stub';
import { chatCompletionSchema } from './response-schemas';
import { named, withModeOptions } from './openapi';
import { apiRoutes, errors, json, jsonBody } from './route-kit';
import { LIMITS_TEXT } from './schemas';

/**
 * POST /v1/chat/completions: the service behind the OpenAI chat API, so any OpenAI client or chat UI can ask it.
 * `model` picks the variant (and optionally the mode); the last user message is the question, and the turns before it
 * make it self-contained in the run's first step (./chat-conversation.ts). Unknown OpenAI parameters (temperature,
 * max_tokens, ...) are accepted and ignored; `tools` are refused.
 */

const openAIUsage = (u: Usage | undefined) => {
  const prompt = u?.promptTokens ?? 0;
  const completion = u?.completionTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
};

const MAX_OBSERVATION_CHARS = 1_500;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** One reasoning line per stored step, in the words a chat UI shows in its "thinking" panel. */
export const reasoningLine = (type: EventType, data: Record<string, unknown>): string | undefined => {
  switch (type) {
    case 'thought':
      return `${String(data.text ?? '').trim()}\n`;
    case 'action':
      return `Action: ${String(data.tool)}(${typeof data.input === 'string' ? data.input : JSON.stringify(data.input)})\n`;
    case 'observation':
      return `Observation${data.error ? ' (error)' : ''}: ${clip(String(data.output ?? ''), MAX_OBSERVATION_CHARS)}\n`;
    case 'error':
      return `Error (${String(data.code)}): ${String(data.message)}\n`;
    default:
      return undefined;
  }
};

const reasoningOf = (view: RunView) =>
  view.steps
    .map((s) => reasoningLine(s.type as EventType, s as unknown as Record<string, unknown>))
    .filter((l): l is string => !!l)
    .join('');

const completionId = (runId: string) => `chatcmpl-${runId}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** What the answer rests on, as an extension field beside OpenAI's own (docs/CONFIDENCE.md). */
const runField = (runId: string, a: { confidence: Confidence | null; agreementSources: string[]; citations: Citation[] }) => ({
  runId,
  confidence: a.confidence,
  agreementSources: a.agreementSources,
  citations: a.citations,
});

const completionBody = (view: RunView, model: string, citeSources: boolean) => ({
  id: completionId(view.runId),
  object: 'chat.completion' as const,
  created: nowSeconds(),
  model,
  choices: [
    {
      index: 0,
      message: { role: 'assistant' as const, content: `${view.answer ?? ''}${citeSources ? sourcesText(view) : ''}`, reasoning_content: reasoningOf(view) },
      finish_reason: view.status === 'limited' ? 'length' : 'stop',
    },
  ],
  usage: openAIUsage(view.usage),
  run: { ...runField(view.runId, view), status: view.status, sources: view.sources },
});

const encoder = new TextEncoder();
const RECONNECTS = 8;
/**
 * With no run event for this long we reopen the run's stream after the last event seen. Heartbeats don't count:
 * an instance that lost its object can keep beating while the run goes on elsewhere. Reopening a live stream is
 * cheap (a replay of nothing), so a long model call merely costs a reconnect every few seconds.
 */
const EVENT_IDLE_MS = 10_000;

const readWithin = async <T>(reader: ReadableStreamDefaultReader<T>, ms: number): Promise<ReadableStreamReadResult<T>> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('idle')), ms);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Turns the run's event stream into chat.completion.chunk frames. If the run's object is evicted mid-stream its
 * event stream just ends; we reopen it after the last event seen (the run resumes from storage), so the client
 * sees one uninterrupted completion.
 *
 * The model's text as it is written (the run's live `delta` events) goes out as `reasoning_content`, never as
 * `content`: a client concatenates `content`, and a call's text may be retried or differ from the answer composed
 * after it. `content` is only ever the `answer` event's text, so it ends up exactly the run's answer.
 */
const chunkStream = (freshStub: () => DurableObjectStub<AgentRun>, first: Response, runId: string, model: string, citeSources: boolean): ReadableStream<Uint8Array> => {
  const id = completionId(runId);
  const created = nowSeconds();
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    encoder.encode(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`);
  let lastId = 0;
  let answered = false;
  let finished = false;
  let reconnects = 0;
  let lastEventAt = Date.now();
  let reader: ReadableStreamDefaultReader<string> | undefined = first.body?.pipeThrough(new TextDecoderStream()).getReader();
  let pending: Uint8Array[] = [];
  const draft = liveDraft();
  const reasoning = (text: string) => (text ? [chunk({ reasoning_content: text })] : []);

  const frames = (block: EventSourceMessage): Uint8Array[] => {
    if (!block.event || !block.data) return [];
    if (block.id !== undefined) lastId = Number(block.id);
    lastEventAt = Date.now();
    if (block.event === 'delta') {
      // Text written after the answer went out would only trail it; the answer is what the client reads last.
      return answered ? [] : reasoning(draft.delta(JSON.parse(block.data) as Delta));
    }
    const type = block.event as EventType;
    const data = JSON.parse(block.data) as Record<string, unknown>;
    if (type === 'answer') {
      if (answered) return [];
      answered = true;
      const answer = data as unknown as AnswerData;
      // The answer's chunk carries what it rests on as an extension field; with cite_sources the text says it too.
      const frames = [chunk({ content: answer.answer }, { run: runField(runId, answer) })];
      if (citeSources) frames.push(chunk({ content: sourcesText(answer) }));
      return frames;
    }
    if (type === 'done') {
      finished = true;
      const status = data.status as RunStatus;
      const out: Uint8Array[] = [];
      if (!answered) {
        // The run ended without an answer (model down, limits, bad evidence): an OpenAI-style error frame,
        // which OpenAI clients raise as an APIError; the run itself stays readable at /v1/runs/{id}.
        out.push(encoder.encode(`data: ${JSON.stringify({ error: { code: 'run_failed', type: 'run_failed', message: `the run ${runId} ended with status "${status}" and no answer` } })}\n\n`));
      }
      out.push(
        encoder.encode(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: {}, finish_reason: status === 'limited' ? 'length' : 'stop' }], usage: openAIUsage(data.usage as Usage) })}\n\n`,
        ),
        encoder.encode('data: [DONE]\n\n'),
      );
      return out;
    }
    const line = reasoningLine(type, data);
    return line ? reasoning(draft.step(type, line, data)) : [];
  };

  // One parser per opened stream: a half-read frame of a broken stream must not leak into the reopened one.
  const newParser = () =>
    createParser({
      onEvent: (message) => pending.push(...frames(message)),
      onComment: () => pending.push(encoder.encode(': keep-alive\n\n')),
    });
  let parser = newParser();

  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(chunk({ role: 'assistant', content: '' }));
    },
    async pull(controller) {
      for (;;) {
        if (finished) return controller.close();
        if (!reader) {
          if (reconnects++ >= RECONNECTS) {
            controller.enqueue(encoder.encode(`data: ${JSON.stringify({ error: { code: 'stream_lost', type: 'stream_lost', message: `lost the event stream of run ${runId}; read it at /v1/runs/${runId}` } })}\n\n`));
            return controller.close();
          }
          await new Promise((r) => setTimeout(r, Math.min(2_000, 50 * 2 ** reconnects)));
          try {
            // A new stub: one that saw its object die stays broken.
            const res = await runEvents(freshStub(), lastId);
            reader = res.ok ? res.body?.pipeThrough(new TextDecoderStream()).getReader() : undefined;
            lastEventAt = Date.now();
            // Only failed reopenings count towards giving up; a quiet but live run may be reopened any number of times.
            if (reader) reconnects = 0;
          } catch {
            reader = undefined;
          }
          continue;
        }
        let read: ReadableStreamReadResult<string>;
        try {
          read = await readWithin(reader, Math.max(1, lastEventAt + EVENT_IDLE_MS - Date.now()));
        } catch {
          // Broken, or no event for too long (the object may have died): reopen after the last event.
          reader.cancel().catch(() => {});
          read = { done: true, value: undefined };
        }
        if (read.done) {
          reader = undefined;
          parser = newParser();
          for (const f of reasoning(draft.reopened())) controller.enqueue(f);
          continue;
        }
        parser.feed(read.value);
        const out = pending;
        pending = [];
        if (out.length) {
          for (const f of out) controller.enqueue(f);
          return;
        }
      }
    },
    async cancel() {
      // The client went away: stop reading the run's stream. The run itself goes on and stays readable.
      await reader?.cancel().catch(() => {});
    },
  });
};

const chatRoute = createRoute({
  method: 'post',
  path: '/v1/chat/completions',
  operationId: 'chatCompletions',
  summary: 'OpenAI-compatible chat completions: model = variant or variant:mode; the last user message is the question',
  description:
    'Earlier user and assistant turns (at most 8, 1,000 characters each, 4,000 in all) make the question self-contained first: one model call with purpose `rewrite`, shown as the run\'s first step; the run JSON keeps both `question` (as asked) and `standaloneQuestion`. ' +
    'A single user message makes no such call. `tools` (or `functions`) are refused with 400 `tools_not_supported`. ' +
    'With `stream: true`: each reasoning step, and the model\'s text as it is written (labelled per model call, a retried call marked), as `reasoning_content` deltas; ' +
    'the run\'s final answer as `content`, exactly and only once it is composed (the model\'s draft may differ from it); usage in the final chunk, then `data: [DONE]`. ' +
    LIMITS_TEXT,
  middleware: [cappedJsonBody()],
  request: { headers: idempotencyHeaders, body: jsonBody(named('ChatCompletionRequest', withModeOptions(chatRequestSchema))) },
  responses: {
    200: {
      description: 'chat.completion, or chat.completion.chunk frames when stream is true',
      headers: replayHeaders,
      content: {
        ...json(chatCompletionSchema),
        'text/event-stream': { schema: { type: 'string', description: 'chat.completion.chunk frames ending with data: [DONE]' } },
      },
    },
    ...errors(400, 404, 413, 415, 422, 500, 502, 503),
  },
});

export const chatCompletionRoutes = apiRoutes().openapi(chatRoute, async (c) => {
  const body = c.req.valid('json');
  const config = loadConfig(c.env as unknown as Record<string, unknown>);
  const choice = parseModel(body.model, config);
  refuseClientTools(body);
  const question = questionFrom(body.messages);
  const conversation = conversationFrom(body.messages);
  const claim = idempotentRunId(c, c.req.valid('header')['idempotency-key'], 'POST /v1/chat/completions', body);
  const runBody = {
    question,
    variant: choice.variant,
    ...(choice.mode ? { mode: choice.mode } : {}),
    ...(body.options ? { options: body.options } : {}),
    ...(conversation ? { conversation } : {}),
  };
  const { runId, stub, headers, events } = await createRun(c.env, runBody, runScope(c), claim, { follow: body.stream === true }).catch((err: unknown) => {
    // The facade has nowhere to put a table or pages: say where they go instead.
    if (!(err instanceof HttpError) || err.code !== 'invalid_context') throw err;
    throw new HttpError(400, 'invalid_context', `${err.message}. Chat messages carry no context: send it with POST /v1/answer, or choose a mode that needs none, e.g. model "${choice.variant}:agent"`);
  });
  if (body.stream) {
    const first = events ?? (await runEvents(stub, 0));
    return new Response(chunkStream(() => runStub(c.env, runId), first, runId, body.model, body.cite_sources === true), { headers: { ...SSE_HEADERS, ...headers } });
  }
  const view = await waitForRun(stub);
  if (!view) throw new HttpError(500, 'internal_error', `run ${runId} was lost`);
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  if (view.answer === null) {
    const err = view.error as { code?: string; message?: string } | null;
    throw new HttpError(502, 'run_failed', `the run ${runId} ended with status "${view.status}" and no answer${err?.message ? `: ${err.message}` : ''}`, { 'x-run-id': runId });
  }
  return c.json(completionBody(view, body.model, body.cite_sources === true), 200);
});
