import { OpenAPIHono } from '@hono/zod-openapi';
import type * as z from 'zod';
import type { CallerVariables } from './caller';
import { describeIssues } from '../runs/errors';
import { HttpError } from './errors';
import { errorSchema } from './response-schemas';

/**
 * The pieces every route definition uses (src/api/*.ts define their routes with @hono/zod-openapi's createRoute;
 * /openapi.json is generated from those definitions).
 */

export type ApiEnv = { Bindings: Env; Variables: CallerVariables };

/**
 * Routes of one area of the API. A request whose body, query, path or headers fail the route's zod schema is a
 * 400 in the API's error shape, naming each field and why (the library's default would answer zod's raw issues).
 */
export const apiRoutes = () =>
  new OpenAPIHono<ApiEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new HttpError(400, 'invalid_request', describeIssues(result.error.issues));
    },
  });

const ERROR_TEXT = {
  400: 'invalid request (the message says which field and why)',
  401: 'missing or invalid API key',
  404: 'not found',
  405: 'this method is not offered on this path (the Allow header names the ones that are)',
  409: "conflict with the resource's state (e.g. cancelling a run that already ended)",
  413: 'request body over its size limit',
  415: 'wrong Content-Type',
  422: 'the Idempotency-Key was already used for a different request',
  429: 'rate limit reached; see the Retry-After header',
  500: 'the server failed (the message says what to fix when it is configuration)',
  502: 'the run ended without an answer',
  503: 'a dependency is not configured (no language model, no storage binding)',
  504: 'a deadline passed before the work finished (the message names the setting)',
} as const;

type ErrorStatus = keyof typeof ERROR_TEXT;

type ErrorResponses<S extends ErrorStatus> = Record<S, { description: string; content: { 'application/json': { schema: typeof errorSchema } } }>;

const errorResponses = <S extends ErrorStatus>(statuses: S[]) =>
  Object.fromEntries(
    [...new Set(statuses)].sort().map((s) => [s, { description: ERROR_TEXT[s], content: { 'application/json': { schema: errorSchema } } }]),
  ) as unknown as ErrorResponses<S>;

/** Error responses of a /v1 route, all `{error: {code, message}}`; 401 and 429 always (auth and the rate limit run first). */
export const errors = <S extends ErrorStatus>(...statuses: S[]) => errorResponses<S | 401 | 429>([...statuses, 401, 429]);

/** Error responses of an open route (no auth, no rate limit). */
export const openErrors = <S extends ErrorStatus>(...statuses: S[]) => errorResponses(statuses);

/** A JSON response or request body with this schema. */
export const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });

/**
 * The Worker's `waitUntil` for this request: work handed to it goes on after the response (a run's set-up behind its
 * first event). Without an execution context (a test calling the app directly) the promise simply runs.
 */
export const waitUntilOf =
  (c: { executionCtx: { waitUntil(p: Promise<unknown>): void } }) =>
  (p: Promise<unknown>): void => {
    try {
      c.executionCtx.waitUntil(p);
    } catch {
      // no execution context: nothing outlives the request anyway
    }
  };

/** A required JSON request body. Pair it with the route middleware `cappedJsonBody`, which enforces the byte limits first. */
export const jsonBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: json(schema),
});
