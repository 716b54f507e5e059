import { Hono } from 'hono';
import { ConfigError } from './config';
import { answerRoutes } from './api/answer';
import { archiveRoutes } from './api/archives';
import { requireApiKey, type CallerVariables } from './api/auth';
import { chatCompletionRoutes } from './api/chat-completions';
import { corsFromConfig } from './api/cors';
import { demonstrationInputSchema, demonstrationRoutes } from './api/demonstrations';
import { errorBody, errorResponse, HttpError } from './api/errors';
import { healthRoutes } from './api/health';
import { modelRoutes } from './api/models';
import { openApiDocument } from './api/openapi';
import { rateLimit } from './api/rate-limit';
import { runRoutes } from './api/runs';
import { toolRoutes } from './api/tools';

/**
 * The Worker's HTTP surface. Middleware order: CORS (so preflights and error responses carry CORS headers)
 * → bearer auth on /v1/* → per-caller rate limit on /v1/* → routes. /healthz and /openapi.json stay open.
 * Every error leaves as JSON `{error: {code, message}}`, never as an HTML page.
 */
export const buildApp = () => {
  const app = new Hono<{ Bindings: Env; Variables: CallerVariables }>();
  app.use('*', corsFromConfig());
  app.use('/v1/*', requireApiKey());
  app.use('/v1/*', rateLimit());
  app.route('/', healthRoutes);
  app.route('/', answerRoutes);
  app.route('/', runRoutes);
  app.route('/', archiveRoutes);
  app.route('/', toolRoutes);
  app.route('/', demonstrationRoutes);
  app.route('/', chatCompletionRoutes);
  app.route('/', modelRoutes);
  app.get('/openapi.json', (c) => c.json(openApiDocument(app.routes, new URL(c.req.url).origin, { DemonstrationInput: demonstrationInputSchema })));
  app.notFound((c) => c.json(errorBody('not_found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404));
  app.onError((err, c) => {
    if (err instanceof HttpError) return errorResponse(c, err);
    if (err instanceof ConfigError) return c.json(errorBody('config_error', err.message), 500);
    console.error('unhandled error', err instanceof Error ? err.name : typeof err);
    return c.json(errorBody('internal_error', 'the server failed to handle this request'), 500);
  });
  return app;
};
