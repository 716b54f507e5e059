import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { loadConfig, type Config } from '../config';
import type { RunRequest } from '../engine/types';
import { FIRST_EVENT_ID, runStartedFrame } from '../engine/first-event';
import { firstEventThenRun } from './first-event-stream';
import { SSE_HEADERS } from '../engine/sse';
import { createLLM } from '../llm';
import { availableModes, defaultMode, strategyFor } from '../strategies';
import { assertReplayable } from './archives';
import { runScope } from './auth';
import { cappedJsonBody } from './body';
import { traceIdFor } from '../telemetry/run-tracing';
import { HttpError } from './errors';
import { freshRunId, idempotencyHeaders, idempotentRunId, REPLAYED_HEADER, type RunIdClaim } from './idempotency';
import { newRunId, runEvents, runStub, waitForRun } from './run-stub';
import { checkOptions } from './options-schemas';
import { runSchema } from './response-schemas';
import { named, withModeOptions } from './openapi';
import { apiRoutes, errors, jsonBody } from './route-kit';
import { answerRequestSchema, LIMITS_TEXT } from './schemas';
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

type RunBody = { question: string; variant?: RunRequest['variant']; mode?: string; context?: object; options?: Record<string, unknown>; conversation?: RunRequest['conversation'] };

/**
 * Everything a run request is checked for before a run exists (mode, options, context, replay archive, a model):
 * shared by POST /v1/answer, its `/check` twin and the chat facade, so a check and a run cannot disagree.
 */
export const checkRunRequest = async (env: Env, body: RunBody, owner?: string) => {
  const config = loadConfig(env as unknown as Record<string, unknown>);
  const variant = body.variant ?? config.DEFAULT_VARIANT;
  const mode = body.mode ?? defaultMode(variant, config);
  if (!strategyFor(mode, config)) {
    throw new HttpError(400, 'unknown_mode', `mode must be one of: ${availableModes(config).join(', ')}`);
  }
  const options = checkOptions(mode, body.options);
  const contextProblem = strategyFor(mode, config)?.checkContext?.(body.context as Record<string, unknown> | undefined);
  if (contextProblem) throw new HttpError(400, 'invalid_context', contextProblem);
  await assertReplayable(env, options, owner);
  const llm = createLLM(config, env);
  if (!llm.ok) throw new HttpError(503, 'llm_unavailable', llm.reason);
  return { config, variant, mode, options };
};

/** Validates a request and turns it into a stored run; shared by /v1/answer and the chat-completions facade. */
export const createRun = async (
  env: Env,
  body: RunBody,
  owner?: string,
  claim: RunIdClaim = freshRunId,
  how: { follow?: boolean; waitUntil?: (p: Promise<unknown>) => void; explain?: (err: unknown) => Promise<string | undefined> } = {},
) => {
  const { config, variant, mode, options } = await checkRunRequest(env, body, owner);
  // Claimed after validation, so a rejected request never holds an Idempotency-Key.
  const { runId, replayed } = await claim(newRunId());
  const request: RunRequest = {
    question: body.question,
    variant,
    mode,
    ...(body.context ? { context: body.context as Record<string, unknown> } : {}),
    ...(options ? { options } : {}),
    ...(body.conversation?.length ? { conversation: body.conversation } : {}),
  };
  const stub = runStub(env, runId);
  const headers = runHeaders(config, runId, replayed);
  // On a replay the run exists and this is a no-op; it creates the run if the claiming request died before it could.
  if (how.follow && !replayed) {
    // A new run's first event is known now: it leaves before the object is set up, which goes on behind it.
    const events = firstEventThenRun(runStartedFrame(config, runId, request), () => stub.start(runId, request, owner, FIRST_EVENT_ID), how.waitUntil, how.explain);
    return { runId, stub, request, replayed, headers, events };
  }
  // `follow` on a replay: the run's event stream from its first event comes back with the same call.
  const { events } = await stub.start(runId, request, owner, how.follow ? 0 : undefined);
  return { runId, stub, request, replayed, headers, events };
};

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
  const { stub, headers, events } = await createRun(c.env, body, runScope(c), claim, { follow, waitUntil: (p) => c.executionCtx.waitUntil(p), explain });
  // The stream comes back with the start itself, from the `run` event on (a replay: the whole run so far).
  if (follow) return new Response((events ?? (await runEvents(stub, 0))).body, { headers: { ...SSE_HEADERS, ...headers } });
  const view = await waitForRun(stub);
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  return c.json(view, 200);
});
