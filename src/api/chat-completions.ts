import { createRoute } from '@hono/zod-openapi';
import { loadConfig } from '../config';
import type { RunView } from '../engine/run-view';
import type { EventType } from '../engine/types';
import { sseResponse } from '../net/sse';
import { createRun } from '../runs/create';
import { LIMITS_TEXT } from '../runs/request-schema';
import { reasoningLine } from '../runs/step-lines';
import { runEvents, runStub, waitForRun } from '../runs/stub';
import { replayHeaders, runHeaders } from './answer';
import { runScope } from './auth';
import { cappedJsonBody } from './body';
import { conversationFrom, questionFrom, refuseClientTools } from './chat-conversation';
import { chatRequestSchema } from './chat-schema';
import { sourcesText } from './chat-sources';
import { chunkStream, completionId, finishReason, nowSeconds, openAIUsage, runField } from './chat-stream';
import { HttpError } from './errors';
import { idempotencyHeaders, idempotentRunId } from './idempotency';
import { parseModel } from './models';
import { named, withModeOptions } from './openapi';
import { chatCompletionSchema } from './response-schemas';
import { apiRoutes, errors, json, jsonBody, waitUntilOf } from './route-kit';

/**
 * POST /v1/chat/completions: the service behind the OpenAI chat API, so any OpenAI client or chat UI can ask it.
 * `model` picks the variant (and optionally the mode); the last user message is the question, and the turns before it
 * make it self-contained in the run's first step (./chat-conversation.ts). Unknown OpenAI parameters (temperature,
 * max_tokens, ...) are accepted and ignored; `tools` are refused.
 */

const reasoningOf = (view: RunView) =>
  view.steps
    .map((s) => reasoningLine(s.type as EventType, s as unknown as Record<string, unknown>))
    .filter((l): l is string => !!l)
    .join('');

/** What a chat says of a run that did not simply succeed: its status and the error event's code and message. */
const endOf = (view: RunView) => {
  const err = view.error as { code?: string; message?: string } | null;
  return err?.code ? { error: { code: err.code, message: err.message ?? '' } } : {};
};

const completionBody = (view: RunView, model: string, citeSources: boolean) => ({
  id: completionId(view.runId),
  object: 'chat.completion' as const,
  created: nowSeconds(),
  model,
  choices: [
    {
      index: 0,
      message: { role: 'assistant' as const, content: `${view.answer ?? ''}${citeSources && view.answer !== null ? sourcesText(view) : ''}`, reasoning_content: reasoningOf(view) },
      finish_reason: finishReason(view.status),
    },
  ],
  usage: openAIUsage(view.usage),
  run: { ...runField(view.runId, view), status: view.status, sources: view.sources, ...endOf(view) },
});

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
  const { runId, stub, replayed, events } = await createRun(c.env, runBody, runScope(c), claim, { follow: body.stream === true, waitUntil: waitUntilOf(c) }).catch((err: unknown) => {
    // The facade has nowhere to put a table or pages: say where they go instead.
    if (!(err instanceof HttpError) || err.code !== 'invalid_context') throw err;
    throw new HttpError(400, 'invalid_context', `${err.message}. Chat messages carry no context: send it with POST /v1/answer, or choose a mode that needs none, e.g. model "${choice.variant}:agent"`);
  });
  const headers = runHeaders(config, runId, replayed);
  if (body.stream) {
    const first = events ?? (await runEvents(stub, 0));
    // A fresh stub for each reopening: one that saw its object die stays broken.
    const open = (after: number) => runEvents(runStub(c.env, runId), after);
    return sseResponse(chunkStream(open, first, runId, body.model, body.cite_sources === true), headers);
  }
  const view = await waitForRun(stub);
  if (!view) throw new HttpError(500, 'internal_error', `run ${runId} was lost`);
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  // A run that hit a limit is a completion cut short (200, finish_reason "length", the partial answer or none), as
  // when it streams; only a run that failed or was cancelled without an answer is an error, in both forms.
  if (view.answer === null && view.status !== 'limited') {
    const err = view.error as { code?: string; message?: string } | null;
    throw new HttpError(502, 'run_failed', `the run ${runId} ended with status "${view.status}" and no answer${err?.message ? `: ${err.message}` : ''}`, { 'x-run-id': runId });
  }
  return c.json(completionBody(view, body.model, body.cite_sources === true), 200);
});
