import { Hono } from 'hono';
import * as z from 'zod';
import type { CancelOutcome, ForkSourceOutcome } from '../../durable-objects/agent-run';
import { loadConfig } from '../config';
import type { RunRequest } from '../engine/types';
import { createLLM } from '../llm';
import { readJsonBody } from './body';
import { checkOptions } from './options-schemas';
import { decodeCursor, listRuns } from '../engine/run-index';
import { SSE_HEADERS } from '../engine/sse';
import { isTerminal } from '../engine/types';
import { runScope, type CallerVariables } from './auth';
import { HttpError } from './errors';
import { newRunId, runEvents, runStub } from './run-stub';

const forkRequestSchema = z
  .object({
    fromStep: z.number({ message: 'fromStep must be a step number (see the run\'s checkpoints)' }).int().min(0).max(100_000),
    model: z.string().trim().min(1).max(200).optional(),
    options: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

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
  .get('/v1/runs/:id/evidence', async (c) => {
    const id = c.req.param('id');
    const archive = await runStub(c.env, id).evidenceArchive(runScope(c));
    if (archive === null) throw notFound(id);
    return new Response(archive, {
      headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'content-disposition': `attachment; filename="evidence-${id}.jsonl"` },
    });
  })
  .post('/v1/runs/:id/fork', async (c) => {
    const id = c.req.param('id');
    const body = await readJsonBody(c, forkRequestSchema);
    const parent = runStub(c.env, id);
    const found = (await parent.forkSource(body.fromStep, runScope(c))) as ForkSourceOutcome;
    if (!found.ok) {
      if (found.code === 'not_found') throw notFound(id);
      throw new HttpError(400, 'invalid_step', found.message);
    }
    const config = loadConfig(c.env as unknown as Record<string, unknown>);
    const llm = createLLM(config, { AI: (c.env as { AI?: Ai }).AI });
    if (!llm.ok) throw new HttpError(503, 'llm_unavailable', llm.reason);
    const merged = { ...(found.source.request.options ?? {}), ...(body.options ?? {}), ...(body.model ? { model: body.model } : {}) };
    const options = checkOptions(found.source.request.mode, merged) ?? {};
    const request: RunRequest = { ...found.source.request, ...(Object.keys(options).length ? { options } : {}) };
    const runId = newRunId();
    const link = { runId: id, fromStep: body.fromStep };
    await runStub(c.env, runId).startFork(runId, request, link, found.source, runScope(c));
    await parent.addFork({ runId, fromStep: body.fromStep });
    c.header('location', `/v1/runs/${runId}`);
    return c.json({ runId, parent: link }, 201);
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
