import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Config } from '../config';
import { callAnswerTool, describeAnswerTool } from './answer-tool';
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
}

const buildServer = (caller: McpCaller) => {
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
    if (name === 'answer') {
      return callAnswerTool({
        env: caller.env,
        ...(caller.owner ? { owner: caller.owner } : {}),
        args,
        ...(request.params._meta?.progressToken !== undefined ? { progressToken: request.params._meta.progressToken } : {}),
        notify: (n) => extra.sendNotification(n),
        signal: extra.signal,
      });
    }
    const tool = evidenceTools().find((t) => t.name === name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool "${name.slice(0, 60)}"; tools: ${[...evidenceTools().map((t) => t.name), 'answer'].join(', ')}`);
    return callEvidenceTool(caller.env, caller.config, tool, args, extra.signal);
  });
  return server;
};

/** Answers one MCP POST whose JSON body was already read and parsed under the API's limits. */
export const handleMcpPost = async (caller: McpCaller, request: Request, parsedBody: unknown): Promise<Response> => {
  const server = buildServer(caller);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody });
};
