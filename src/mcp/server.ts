import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Config } from '../config';
import { runStub } from '../runs/stub';
import { callAnswerTool, describeAnswerTool } from './answer-tool';
import { boundedMcpResponse } from './bounded-stream';
import { callRegistry } from './call-registry';
import { callEvidenceTool, describeEvidenceTools, evidenceTools } from './evidence-tools';

/**
 * The MCP server behind /mcp: stateless Streamable HTTP (a fresh server and transport per POST, no session id), so
 * nothing has to survive between requests or Durable Object restarts. Tools: the six evidence tools and `answer`.
 * This module is imported lazily by src/api/mcp.ts: the SDK's schemas are built only when /mcp is first used.
 */

const VERSION = '0.1.0';

/**
 * The SDK validates JSON Schemas only for elicitation, which this server never asks for. Its default validator is
 * Ajv, which compiles schemas with `new Function` (refused in Workers) and adds ~40 KiB gzip; wrangler.toml aliases
 * ajv away in builds, and this one stands in, refusing plainly should the SDK ever call it.
 */
const noSchemaValidation: jsonSchemaValidator = {
  getValidator: <T>(): JsonSchemaValidator<T> => () => ({ valid: false, data: undefined, errorMessage: 'JSON Schema validation is not available on this server' }),
};

export interface McpCaller {
  env: Env;
  config: Config;
  /** The run owner (key hash), as for /v1 routes; undefined on an open server. */
  owner?: string;
  /** Who calls as auth named them (`key:<hash>`, `ip:<address>`): the politeness gates take turns by it. */
  caller?: string;
  /** Who calls, for finding a call that a later `notifications/cancelled` names (call-registry.ts). */
  callerKey: string;
  /** The Worker's `waitUntil`: a call whose client left still cancels its run. */
  waitUntil?: (p: Promise<unknown>) => void;
}

/**
 * A progress token comes back in every progress notification of its call, so its size multiplies: a 60,000-character
 * token on a long run made a 93 MB response. Clients use small numbers or UUIDs (36 characters).
 */
export const MAX_PROGRESS_TOKEN_CHARS = 256;

const checkProgressToken = (token: unknown) => {
  if (typeof token !== 'string' || token.length <= MAX_PROGRESS_TOKEN_CHARS) return;
  throw new McpError(
    ErrorCode.InvalidParams,
    `_meta.progressToken is ${token.length} characters; at most ${MAX_PROGRESS_TOKEN_CHARS} are accepted (it is repeated in every progress notification): use a number or a UUID`,
  );
};

/** `clientGone` is aborted when the POST's client goes away: its `answer` calls then cancel their runs. */
const buildServer = (caller: McpCaller, clientGone: AbortSignal) => {
  const server = new Server(
    { name: 'humaniq-answers', version: VERSION },
    {
      capabilities: { tools: {} },
      jsonSchemaValidator: noSchemaValidation,
      instructions:
        'Factual question answering over Wikipedia and Wikidata. Call `answer` for a full agent run, or the evidence tools ' +
        '(wikisearch, read, getWikidataID, generateQuery, runQuery, getLabel) to look things up yourself.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...describeEvidenceTools(), describeAnswerTool()] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    checkProgressToken(request.params._meta?.progressToken);
    if (name === 'answer') {
      return callAnswerTool({
        env: caller.env,
        ...(caller.owner ? { owner: caller.owner } : {}),
        args,
        ...(request.params._meta?.progressToken !== undefined ? { progressToken: request.params._meta.progressToken } : {}),
        notify: (n) => extra.sendNotification(n),
        // Cancelled by a `notifications/cancelled` in this POST (the SDK's signal), or the client left.
        signal: AbortSignal.any([extra.signal, clientGone]),
        ...(caller.waitUntil ? { waitUntil: caller.waitUntil } : {}),
        track: (runId) => callRegistry(caller.env.DB, caller.callerKey).started(extra.requestId, runId),
      });
    }
    const tool = evidenceTools().find((t) => t.name === name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool "${name.slice(0, 60)}"; tools: ${[...evidenceTools().map((t) => t.name), 'answer'].join(', ')}`);
    return callEvidenceTool(caller.env, caller.config, tool, args, { signal: extra.signal, ...(caller.caller ? { caller: caller.caller } : {}) });
  });
  return server;
};

/** The JSON-RPC ids that a message (or a batch) cancels with `notifications/cancelled`. */
const cancelledIds = (body: unknown): Array<string | number> =>
  (Array.isArray(body) ? body : [body]).flatMap((m) => {
    const msg = m as { method?: unknown; params?: { requestId?: unknown } } | null;
    const id = msg?.params?.requestId;
    return msg?.method === 'notifications/cancelled' && (typeof id === 'string' || typeof id === 'number') ? [id] : [];
  });

/**
 * A `notifications/cancelled` names a call made in an earlier POST, which this fresh server never saw: its run is
 * found in the registry and cancelled as DELETE /v1/runs/{id} would (the call itself then ends with that run).
 */
const cancelNamedCalls = async (caller: McpCaller, body: unknown) => {
  for (const id of cancelledIds(body).slice(0, 16)) {
    const runs = await callRegistry(caller.env.DB, caller.callerKey).runsOf(id).catch(() => []);
    await Promise.all(runs.map((runId) => runStub(caller.env, runId).cancel(caller.owner).catch(() => {})));
  }
};

/**
 * Answers one MCP POST whose JSON body was already read and parsed under the API's limits. The response streams
 * through a bounded backlog (bounded-stream.ts); the client going away (the response cancelled, or the request's own
 * signal) cancels the `answer` runs of this POST.
 */
export const handleMcpPost = async (caller: McpCaller, request: Request, parsedBody: unknown): Promise<Response> => {
  await cancelNamedCalls(caller, parsedBody);
  const gone = new AbortController();
  const leave = () => gone.abort(new Error('the MCP client went away'));
  request.signal?.addEventListener('abort', leave, { once: true });
  const server = buildServer(caller, gone.signal);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  return boundedMcpResponse(await transport.handleRequest(request, { parsedBody }), leave);
};
