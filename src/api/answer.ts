import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import type { Config } from '../config';
import { sseResponse } from '../net/sse';
import { checkRunRequest, createRun } from '../runs/create';
import { answerRequestSchema, LIMITS_TEXT } from '../runs/request-schema';
import { runEvents, waitForRun } from '../runs/stub';
import { traceIdFor } from '../telemetry/run-tracing';
import { runScope } from './auth';
import { cappedJsonBody } from './body';
import { idempotencyHeaders, idempotentRunId, REPLAYED_HEADER } from './idempotency';
import { named, withModeOptions } from './openapi';
import { runSchema } from './response-schemas';
import { apiRoutes, errors, jsonBody, waitUntilOf } from './route-kit';
import { storageGone } from './storage-gone';

/** Response headers of a route that starts a run: its id, and whether an Idempotency-Key replayed an earlier one. */
export const replayHeaders = z.object({
  'x-run-id': z.string(),
  'x-trace-id': z.string().optional().meta({ description: "the run's OpenTelemetry trace id, when the deployment exports traces" }),
  [REPLAYED_HEADER]: z.literal('true').optional().meta({ description: 'present when an Idempotency-Key returned the run of an earlier request' }),
});

/** x-run-id, x-trace-id when traces are exported, and idempotent-replayed when a retry got an earlier run. */
export const runHeaders = (config: Config, runId: string, replayed = false): Record<string, string> => {
  const traceId = traceIdFor(config, runId);
  return { 'x-run-id': runId, ...(traceId ? { 'x-trace-id': traceId } : {}), ...(replayed ? { [REPLAYED_HEADER]: 'true' } : {}) };
};

export const wantsEventStream = (accept: string | undefined) => /\btext\/event-stream\b/i.test(accept ?? '');

const answerRoute = createRoute({
  method: 'post',
  path: '/v1/answer',
  operationId: 'answer',
  summary: 'Answer a question (JSON run, or an SSE stream of the run when Accept: text/event-stream)',
  description: LIMITS_TEXT,
  middleware: [cappedJsonBody({ allowContext: true })],
  request: { headers: idempotencyHeaders, body: jsonBody(named('AnswerRequest', withModeOptions(answerRequestSchema))) },
  responses: {
    200: {
      description:
        'the finished run, or its event stream (events run, thought, action, observation, answer, error, done; and, live only and without an id, delta: a piece of a model call\'s reply as it is written, `{call, purpose, answer?, retry?, skipped?, text}`)',
      headers: replayHeaders,
      content: {
        'application/json': { schema: runSchema },
        'text/event-stream': { schema: { type: 'string', description: 'SSE events; each id is the step number' } },
      },
    },
    ...errors(400, 404, 413, 415, 422, 503),
  },
});

const checkRoute = createRoute({
  method: 'post',
  path: '/v1/answer/check',
  operationId: 'checkAnswerRequest',
  summary: 'Check a POST /v1/answer body without starting a run: 200 when it would start one, else the same error',
  description:
    'Runs every check POST /v1/answer makes before a run exists (mode, options, context, replay archive, a configured model) and stops there: ' +
    'no run, no model call, no Idempotency-Key used. An evaluation asks it once before its first question (docs/EVAL.md).',
  middleware: [cappedJsonBody({ allowContext: true })],
  request: { body: jsonBody(named('AnswerRequest', withModeOptions(answerRequestSchema))) },
  responses: {
    200: {
      description: 'the request would start a run; the variant and mode it would run',
      content: { 'application/json': { schema: z.object({ valid: z.literal(true), variant: z.string(), mode: z.string() }) } },
    },
    ...errors(400, 404, 413, 415, 503),
  },
});

export const answerRoutes = apiRoutes()
  .openapi(checkRoute, async (c) => {
    const { variant, mode } = await checkRunRequest(c.env, c.req.valid('json'), runScope(c));
    return c.json({ valid: true as const, variant, mode }, 200);
  })
  .openapi(answerRoute, async (c) => {
  const body = c.req.valid('json');
  const claim = idempotentRunId(c, c.req.valid('header')['idempotency-key'], 'POST /v1/answer', body);
  const follow = wantsEventStream(c.req.header('accept'));
  const explain = async (err: unknown) => (await storageGone(err, c.env, c.req.url))?.message;
  const { stub, runId, replayed, config, events } = await createRun(c.env, body, runScope(c), claim, { follow, waitUntil: waitUntilOf(c), explain });
  const headers = runHeaders(config, runId, replayed);
  // The stream comes back with the start itself, from the `run` event on (a replay: the whole run so far).
  if (follow) return sseResponse((events ?? (await runEvents(stub, 0))).body, headers);
  const view = await waitForRun(stub);
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  return c.json(view, 200);
});
