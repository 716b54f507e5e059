import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import type { CancelOutcome } from '../../durable-objects/run-object';
import { cappedJsonBody } from './body';
import { decodeCursor, listRuns } from '../storage/run-index';
import { isTerminal } from '../engine/types';
import { sseResponse } from '../net/sse';
import { forkRun } from '../runs/fork';
import { runScope } from './auth';
import { HttpError } from './errors';
import { idempotencyHeaders, idempotentRunId, REPLAYED_HEADER } from './idempotency';
import { named } from './openapi';
import { forkCreatedSchema, runPageSchema, runSchema } from './response-schemas';
import { apiRoutes, errors, json, jsonBody } from './route-kit';
import { runEvents, runStub } from '../runs/stub';
import { traceIdFor } from '../telemetry/run-tracing';

const forkRequestSchema = z
  .object({
    fromStep: z.number({ message: 'fromStep must be a step number (see the run\'s checkpoints)' }).int().min(0).max(100_000),
    model: z.string().trim().min(1).max(200).optional(),
    options: z.record(z.string(), z.unknown()).optional().meta({ description: "merged over the parent's options; checked against the parent's mode like a new request's" }),
  })
  .strict();

export const DEFAULT_RUNS_PAGE = 20;
export const MAX_RUNS_PAGE = 100;

const notFound = (id: string) => new HttpError(404, 'not_found', `no run with id "${id.slice(0, 80)}"`);

const runIdParams = z.object({ id: z.string().max(200).meta({ description: 'the runId of POST /v1/answer (a UUID)' }) });

/** A query or header value that must be a whole number (they arrive as text), at least `min` and at most `max`. */
const wholeNumber = (name: string, min: number, max = Number.MAX_SAFE_INTEGER) => {
  const message = max === Number.MAX_SAFE_INTEGER ? `${name} must be a whole number from ${min} up` : `${name} must be a whole number from ${min} to ${max}`;
  return z.string().regex(/^\d+$/, { message }).transform(Number).pipe(z.number().min(min, { message }).max(max, { message }));
};

const listRunsRoute = createRoute({
  method: 'get',
  path: '/v1/runs',
  operationId: 'listRuns',
  summary: "Recent runs, newest first: the caller's own when the API has keys, every run on an open server",
  request: {
    query: z.object({
      limit: wholeNumber('limit', 1, MAX_RUNS_PAGE).optional().meta({ description: `runs per page (default ${DEFAULT_RUNS_PAGE})` }),
      cursor: z.string().max(500).optional().meta({ description: 'nextCursor of the previous page' }),
    }),
  },
  responses: { 200: { description: 'one page of runs; nextCursor is null on the last page', content: json(runPageSchema) }, ...errors(400) },
});

const getRunRoute = createRoute({
  method: 'get',
  path: '/v1/runs/{id}',
  operationId: 'getRun',
  summary: 'A run with its steps',
  request: { params: runIdParams },
  responses: { 200: { description: 'the run', content: json(runSchema) }, ...errors(404) },
});

const cancelRunRoute = createRoute({
  method: 'delete',
  path: '/v1/runs/{id}',
  operationId: 'cancelRun',
  summary: 'Cancel a queued or running run',
  description:
    'The step in flight is abandoned (its model or tool call is aborted, nothing of it is stored), no further step runs, and the run ends with status ' +
    '`cancelled`: an `error` event (code `cancelled`), the partial answer if there is one, and `done` with status `cancelled`. ' +
    'Cancelling a cancelled run again answers the same (idempotent); a run that ended otherwise answers 409 `run_finished`.',
  request: { params: runIdParams },
  responses: { 200: { description: 'the run, now cancelled', content: json(runSchema) }, ...errors(404, 409) },
});

const evidenceRoute = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/evidence',
  operationId: 'runEvidence',
  summary: 'Every evidence request → response the run received, as a portable JSONL archive (docs/ARCHIVE.md)',
  request: { params: runIdParams },
  responses: {
    200: {
      description: 'the archive: a header line, then one {key, request, response} record per line',
      content: { 'application/x-ndjson': { schema: { type: 'string' } } },
    },
    ...errors(404),
  },
});

const forkRoute = createRoute({
  method: 'post',
  path: '/v1/runs/{id}/fork',
  operationId: 'forkRun',
  summary: 'Start a new run from a stored step of this one',
  description:
    "The new run starts with this run's stored events up to `fromStep` (copied, not executed again) and the strategy state after that step, then continues — " +
    "optionally on another model (`model`) or with other options (`options`, merged over the parent's). The parent is not changed except that it lists the fork. " +
    "Valid steps are the run's `checkpoints` (0 = before the first step; the step that ended the run is not one).",
  middleware: [cappedJsonBody()],
  request: { params: runIdParams, headers: idempotencyHeaders, body: jsonBody(named('ForkRequest', forkRequestSchema)) },
  responses: {
    201: {
      description: 'the new run, started; follow it with GET /v1/runs/{runId} or its events',
      headers: z.object({
        location: z.string().meta({ description: '/v1/runs/{runId} of the new run' }),
        'x-trace-id': z.string().optional().meta({ description: "the new run's OpenTelemetry trace id, when the deployment exports traces" }),
        [REPLAYED_HEADER]: z.literal('true').optional().meta({ description: 'present when an Idempotency-Key returned the fork of an earlier request' }),
      }),
      content: json(forkCreatedSchema),
    },
    ...errors(400, 404, 413, 415, 422, 503),
  },
});

const eventsRoute = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/events',
  operationId: 'runEvents',
  summary: 'Replay and follow a run as SSE; resume with Last-Event-ID or ?after=',
  request: {
    params: runIdParams,
    // EventSource sends Last-Event-ID on reconnect; `?after=` serves clients that cannot set headers.
    headers: z.object({ 'last-event-id': wholeNumber('Last-Event-ID', 0).optional() }),
    query: z.object({ after: wholeNumber('after', 0).optional().meta({ description: 'the id of the last event already seen' }) }),
  },
  responses: {
    200: { description: 'event stream: the stored events after the given id, then live ones until done (with live `delta` events, which carry no id and are never replayed)', content: { 'text/event-stream': { schema: { type: 'string' } } } },
    ...errors(400, 404),
  },
});

/**
 * Runs: list (scoped to the caller's key; everything on an open server), read, follow, cancel, fork, export evidence.
 * A run of another key is a 404, exactly like a run that does not exist.
 */
export const runRoutes = apiRoutes()
  .openapi(listRunsRoute, async (c) => {
    const { limit = DEFAULT_RUNS_PAGE, cursor } = c.req.valid('query');
    const after = cursor ? decodeCursor(cursor) : undefined;
    if (cursor && after === undefined) throw new HttpError(400, 'invalid_request', 'cursor is not one this server gave out; start again without it');
    const page = await listRuns(c.env.DB, { owner: runScope(c), limit, ...(after !== undefined ? { after } : {}) });
    // The index is written by each run as it goes; a run shown as unfinished is asked directly, in case it just ended.
    const runs = await Promise.all(
      page.runs.map(async (r) => (isTerminal(r.status) ? r : ((await runStub(c.env, r.runId).summary().catch(() => null)) ?? r))),
    );
    return c.json({ runs, nextCursor: page.nextCursor }, 200);
  })
  .openapi(getRunRoute, async (c) => {
    const { id } = c.req.valid('param');
    const view = await runStub(c.env, id).view(runScope(c));
    if (!view) throw notFound(id);
    const traceId = (view as { traceId?: string | null }).traceId;
    if (traceId) c.header('x-trace-id', traceId);
    return c.json(view, 200);
  })
  .openapi(cancelRunRoute, async (c) => {
    const { id } = c.req.valid('param');
    const result = (await runStub(c.env, id).cancel(runScope(c))) as CancelOutcome;
    if (result.outcome === 'not_found') throw notFound(id);
    if (result.outcome === 'finished') {
      throw new HttpError(409, 'run_finished', `the run already ended with status "${result.view.status}"; only a queued or running run can be cancelled`);
    }
    return c.json(result.view, 200);
  })
  .openapi(evidenceRoute, async (c) => {
    const { id } = c.req.valid('param');
    const archive = await runStub(c.env, id).evidenceArchive(runScope(c));
    if (archive === null) throw notFound(id);
    // `as never`: the route types read "application/x-ndjson" as a JSON media type they cannot build, and refuse any value.
    return new Response(archive, {
      headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'content-disposition': `attachment; filename="evidence-${id}.jsonl"` },
    }) as never;
  })
  .openapi(forkRoute, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const claim = idempotentRunId(c, c.req.valid('header')['idempotency-key'], `POST /v1/runs/${id}/fork`, body);
    const { runId, replayed, config } = await forkRun(c.env, id, body, runScope(c), claim);
    const link = { runId: id, fromStep: body.fromStep };
    c.header('location', `/v1/runs/${runId}`);
    const traceId = traceIdFor(config, runId);
    if (traceId) c.header('x-trace-id', traceId);
    if (replayed) c.header(REPLAYED_HEADER, 'true');
    return c.json({ runId, parent: link }, 201);
  })
  .openapi(eventsRoute, async (c) => {
    const { id } = c.req.valid('param');
    const stub = runStub(c.env, id);
    const after = c.req.valid('header')['last-event-id'] ?? c.req.valid('query').after ?? 0;
    const res = await runEvents(stub, after, runScope(c));
    if (res.status === 404) throw notFound(id);
    return sseResponse(res.body);
  });
