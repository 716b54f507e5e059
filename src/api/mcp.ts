import { Hono } from 'hono';
import { loadConfig } from '../config';
import { runScope } from './auth';
import { cappedJsonBody } from './body';
import { HttpError } from './errors';
import type { ApiEnv } from './route-kit';

/**
 * /mcp: the Model Context Protocol over Streamable HTTP, stateless. Auth and the rate limit are the /v1 ones
 * (src/app.ts); the body passes the same 64 KB, JSON-only, nesting-depth checks as a /v1 route before the MCP SDK
 * sees it. The SDK and the server (src/mcp/server.ts) load on the first MCP request, not at Worker start.
 * A stateless server has no stream to offer on GET and no session to end on DELETE: both are 405.
 */
export const mcpRoutes = new Hono<ApiEnv>()
  .post('/mcp', cappedJsonBody(), async (c) => {
    const parsed: unknown = await c.req.json();
    const { handleMcpPost } = await import('../mcp/server');
    const config = loadConfig(c.env as unknown as Record<string, unknown>);
    const owner = runScope(c);
    return handleMcpPost({ env: c.env, config, ...(owner ? { owner } : {}) }, c.req.raw, parsed);
  })
  .on(['GET', 'DELETE'], '/mcp', () => {
    throw new HttpError(405, 'method_not_allowed', 'this MCP server is stateless: send JSON-RPC messages with POST', { allow: 'POST' });
  });
