import type { OpenAPIHono } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { loadConfig } from '../config';
import { clientAddress, runScope } from './auth';
import { cappedJsonBody } from './body';
import { HttpError } from './errors';
import { type ApiEnv, errors, waitUntilOf } from './route-kit';

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
    const { callerKey } = await import('../mcp/call-registry');
    const owner = runScope(c);
    const waitUntil = waitUntilOf(c);
    const caller = { env: c.env, config, ...(owner ? { owner } : {}), caller: c.get('caller'), callerKey: await callerKey(owner, clientAddress(c.req)), waitUntil };
    return handleMcpPost(caller, c.req.raw, parsed);
  })
  .on(['GET', 'DELETE'], '/mcp', () => {
    throw new HttpError(405, 'method_not_allowed', 'this MCP server is stateless: send JSON-RPC messages with POST', { allow: 'POST' });
  });

const JSON_RPC = { 'application/json': { schema: { type: 'object' as const, description: 'a JSON-RPC 2.0 message' } } };

/** /mcp in /openapi.json: the protocol is JSON-RPC inside, so the document says where to read about it. */
export const documentMcp = <E extends { Bindings: Env }>(app: OpenAPIHono<E>) => {
  const registry = app.openAPIRegistry;
  registry.registerPath({
    method: 'post',
    path: '/mcp',
    operationId: 'mcp',
    summary: 'Model Context Protocol (Streamable HTTP, stateless): the six evidence tools and answer (docs/MCP.md)',
    description: 'Send JSON-RPC messages with `Accept: application/json, text/event-stream`. Same bearer auth, rate limit and 64 KB body limit as /v1.',
    request: { body: { required: true, content: JSON_RPC } },
    responses: {
      200: { description: 'the JSON-RPC response, or an SSE stream with progress notifications and then the response', content: { ...JSON_RPC, 'text/event-stream': { schema: { type: 'string' } } } },
      202: { description: 'a notification or response was accepted' },
      ...errors(413, 415),
    },
  });
  for (const method of ['get', 'delete'] as const) {
    registry.registerPath({
      method,
      path: '/mcp',
      operationId: `mcp_${method}`,
      summary: 'Not offered by this stateless MCP server (405): no server-initiated stream, no session to end',
      responses: errors(405),
    });
  }
};
