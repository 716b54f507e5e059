import { OpenAPIHono } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import { ConfigError } from './config';
import { answerRoutes } from './api/answer';
import { archiveRoutes } from './api/archives';
import { requireApiKey } from './api/auth';
import { chatCompletionRoutes } from './api/chat-completions';
import { apiSecurityHeaders, corsFromConfig, refuseForeignPages } from './api/cors';
import { demonstrationRoutes } from './api/demonstrations';
import { errorBody, errorResponse, HttpError } from './api/errors';
import { healthRoutes } from './api/health';
import { documentMcp, mcpRoutes } from './api/mcp';
import { modelRoutes } from './api/models';
import { serveOpenApi } from './api/openapi';
import { rateLimit } from './api/rate-limit';
import { runRoutes } from './api/runs';
import { settingsRoutes } from './api/settings';
import { storageGone } from './api/storage-gone';
import type { ApiEnv } from './api/route-kit';
import { toolRoutes } from './api/tools';

/**
 * The Worker's HTTP surface. Middleware order: security headers (on every response, refusals included) → refusal of
 * other sites' pages unless CORS_ORIGINS names them → CORS (so preflights and error responses carry CORS headers)
 * → bearer auth on /v1/* and /mcp → per-caller rate limit on both → routes. /healthz and /openapi.json stay open.
 * Every error leaves as JSON `{error: {code, message}}`, never as an HTML page.
 */
export const buildApp = () => {
  const app = new OpenAPIHono<ApiEnv>();
  app.use('*', apiSecurityHeaders());
  app.use('*', refuseForeignPages());
  app.use('*', corsFromConfig());
  app.use('/v1/*', requireApiKey());
  app.use('/v1/*', rateLimit());
  app.use('/mcp', requireApiKey());
  app.use('/mcp', rateLimit());
  app.route('/', healthRoutes);
  app.route('/', answerRoutes);
  app.route('/', runRoutes);
  app.route('/', archiveRoutes);
  app.route('/', toolRoutes);
  app.route('/', demonstrationRoutes);
  app.route('/', chatCompletionRoutes);
  app.route('/', modelRoutes);
  app.route('/', settingsRoutes);
  app.route('/', mcpRoutes);
  documentMcp(app);
  serveOpenApi(app);
  app.notFound((c) => c.json(errorBody('not_found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404));
  app.onError(async (err, c) => {
    if (err instanceof HttpError) return errorResponse(c, err);
    // Thrown by library middleware (e.g. a media-type gate): keep its status, in our error shape.
    if (err instanceof HTTPException) return c.json(errorBody(err.status === 415 ? 'unsupported_media_type' : 'http_error', err.message), err.status);
    if (err instanceof ConfigError) return c.json(errorBody('config_error', err.message), 500);
    const gone = await storageGone(err, c.env, c.req.url);
    if (gone) return errorResponse(c, gone);
    console.error('unhandled error', err instanceof Error ? err.name : typeof err);
    return c.json(errorBody('internal_error', 'the server failed to handle this request'), 500);
  });
  return app;
};
