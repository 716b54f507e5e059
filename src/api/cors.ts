import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { loadConfig } from '../config';
import { errorBody } from './errors';

type Cors = ReturnType<typeof cors>;
const cache = new WeakMap<object, Cors>();

const configOf = (env: Env) => loadConfig(env as unknown as Record<string, unknown>);

/**
 * CORS from CORS_ORIGINS (src/config.ts: a list of origins, or `*`, which needs API_KEYS). It runs before auth, so
 * preflights (OPTIONS) are answered first and even 401/429 responses carry the headers a browser needs to read them.
 */
export const corsFromConfig = (): MiddlewareHandler<{ Bindings: Env }> => async (c, next) => {
  let handler = cache.get(c.env as object);
  if (!handler) {
    const origins = configOf(c.env).CORS_ORIGINS;
    handler = cors({
      origin: origins.includes('*') ? '*' : origins,
      allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
      allowHeaders: ['authorization', 'content-type', 'accept', 'last-event-id', 'idempotency-key', 'mcp-protocol-version', 'mcp-session-id'],
      exposeHeaders: ['x-run-id', 'idempotent-replayed', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining'],
      maxAge: 600,
    });
    cache.set(c.env as object, handler);
  }
  return handler(c, next);
};

/** What a browser says about where a request comes from; undefined when it is not another site's page. */
const foreignOrigin = (req: { url: string; header(name: string): string | undefined }): string | undefined => {
  const origin = req.header('origin');
  // Sec-Fetch-Site is set by the browser from the page's and the target's real origins, so it holds behind a proxy
  // that rewrites Host; `same-site` is another origin too (another port on localhost is the usual attacker here).
  const site = req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? undefined : (origin ?? 'another site');
  // Older browsers: Origin alone (sent on every cross-origin request and on same-origin writes). No Origin at all
  // means curl, an SDK or a server: those carry no victim's ambient access, so they are not this gate's business.
  if (origin !== undefined && origin !== new URL(req.url).origin) return origin;
  return undefined;
};

const fromBrowser = (req: { header(name: string): string | undefined }) => req.header('sec-fetch-site') !== undefined || req.header('origin') !== undefined;

/**
 * Whether an open server answers browsers at this host name. DNS rebinding makes another site's page same-origin with
 * the server (its name now resolves to 127.0.0.1), so the origin check above cannot see it; the host name can. An IP
 * address or a loopback name cannot be rebound; any other name must be one the operator listed in CORS_ORIGINS.
 */
const servesHost = (hostname: string, origins: string[]) =>
  hostname === 'localhost' ||
  hostname.endsWith('.localhost') ||
  /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) ||
  hostname.startsWith('[') ||
  origins.some((o) => o !== '*' && new URL(o).hostname === hostname);

/**
 * Refuses requests that another site's page sends, unless CORS_ORIGINS names that origin (or is `*`, allowed only
 * with API_KEYS). A browser still delivers a "simple" cross-site POST (a form, text/plain) and only hides the reply,
 * and an open server (no API_KEYS) has no key to stop it, so the refusal happens here, before any route runs and
 * whatever the method. Top-level navigations (a link to /openapi.json) pass: the user sees the page, not the site
 * that linked it. Requests without browser origin headers (curl, the OpenAI SDK) are not affected. An open server
 * also refuses browsers that reach it under a host name it does not know (servesHost: DNS rebinding).
 */
export const refuseForeignPages = (): MiddlewareHandler<{ Bindings: Env }> => async (c, next) => {
  const navigation = c.req.header('sec-fetch-mode') === 'navigate' && (c.req.method === 'GET' || c.req.method === 'HEAD');
  if (navigation) return next();
  const origin = foreignOrigin(c.req);
  const config = configOf(c.env);
  if (origin === undefined) {
    if (config.API_KEYS.length || !fromBrowser(c.req) || servesHost(new URL(c.req.url).hostname, config.CORS_ORIGINS)) return next();
    const host = new URL(c.req.url).host;
    return c.json(
      errorBody(
        'host_refused',
        `browser requests to ${host} are refused: this server has no API_KEYS, so browsers may use it only at localhost or an IP address ` +
          `(a site whose name now points at this machine could otherwise use it); to serve pages at ${host}, name its origin in CORS_ORIGINS or set API_KEYS`,
      ),
      403,
    );
  }
  if (config.CORS_ORIGINS.includes('*') || config.CORS_ORIGINS.includes(origin)) return next();
  const hint = config.API_KEYS.length
    ? 'add the origin to CORS_ORIGINS to allow it'
    : 'this server has no API_KEYS, so only its own pages may use it; name trusted origins in CORS_ORIGINS';
  return c.json(errorBody('cross_origin_refused', `requests from pages on ${origin} are refused: ${hint}`), 403);
};

/**
 * Headers for every response the Worker itself writes (JSON and SSE): no sniffing a JSON body into HTML or script,
 * no framing, no referrer. The UI's pages get theirs from public/_headers (the static assets never reach this code).
 */
export const apiSecurityHeaders = (): MiddlewareHandler => async (c, next) => {
  await next();
  const set = (headers: Headers) => {
    headers.set('x-content-type-options', 'nosniff');
    headers.set('referrer-policy', 'no-referrer');
    headers.set('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
  };
  try {
    set(c.res.headers);
  } catch {
    // A response passed through from a Durable Object or fetch has immutable headers: copy it once.
    c.res = new Response(c.res.body, c.res);
    set(c.res.headers);
  }
};
