import { Hono } from 'hono';
import type { CancelOutcome } from '../../durable-objects/agent-run';
import { decodeCursor, listRuns } from '../engine/run-index';
import { SSE_HEADERS } from '../engine/sse';
import { isTerminal } from '../engine/types';
import { runScope, type CallerVariables } from './auth';
import { HttpError } from './errors';
import { runEvents, runStub } from './run-stub';

export const DEFAULT_RUNS_PAGE = 20;
export const MAX_RUNS_PAGE = 100;

const notFound = (id: string) => new HttpError(404, 'not_found', `no run with id "${id.slice(0, 80)}"`);

const pageSize = (raw: string | undefined): number => {
  if (raw === undefined) return DEFAULT_RUNS_PAGE;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_RUNS_PAGE) throw new HttpError(400, 'invalid_request', `limit must be a whole number from 1 to ${MAX_RUNS_PAGE}`);
  return n;
};

/**
 * Runs: list (scoped to the caller's key; everything on an open server), read, follow, cancel.
 * A run of another key is a 404, exactly like a run that does not exist.
 */
export const runRoutes = new Hono<{ Bindings: Env; Variables: CallerVariables }>()
  .get('/v1/runs', async (c) => {
    const limit = pageSize(c.req.query('limit'));
    const cursor = c.req.query('cursor');
    const after = cursor ? decodeCursor(cursor) : undefined;
    if (cursor && after === undefined) throw new HttpError(400, 'invalid_request', 'cursor is not one this server gave out; start again without it');
    const page = await listRuns(c.env.DB, { owner: runScope(c), limit, ...(after !== undefined ? { after } : {}) });
    // The index is written by each run as it goes; a run shown as unfinished is asked directly, in case it just ended.
    const runs = await Promise.all(
      page.runs.map(async (r) => (isTerminal(r.status) ? r : ((await runStub(c.env, r.runId).summary().catch(() => null)) ?? r))),
    );
    return c.json({ runs, nextCursor: page.nextCursor });
  })
  .get('/v1/runs/:id', async (c) => {
    const id = c.req.param('id');
    const view = await runStub(c.env, id).view(runScope(c));
    if (!view) throw notFound(id);
    return c.json(view);
  })
  .delete('/v1/runs/:id', async (c) => {
    const id = c.req.param('id');
    const result = (await runStub(c.env, id).cancel(runScope(c))) as CancelOutcome;
    if (result.outcome === 'not_found') throw notFound(id);
    if (result.outcome === 'finished') {
      throw new HttpError(409, 'run_finished', `the run already ended with status "${result.view.status}"; only a queued or running run can be cancelled`);
    }
    return c.json(result.view);
  })
  .get('/v1/runs/:id/events', async (c) => {
    const id = c.req.param('id');
    const stub = runStub(c.env, id);
    // EventSource sends Last-Event-ID on reconnect; `?after=` serves clients that cannot set headers.
    const raw = c.req.header('last-event-id') ?? c.req.query('after') ?? '0';
    const after = Number.parseInt(raw, 10);
    if (!Number.isFinite(after) || after < 0) throw new HttpError(400, 'invalid_request', 'Last-Event-ID must be a non-negative integer');
    const res = await runEvents(stub, after, runScope(c));
    if (res.status === 404) throw notFound(id);
    return new Response(res.body, { headers: SSE_HEADERS });
  });
