import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { loadConfig } from '../config';
import { createToolRegistry } from '../engine/services';
import { strategyTools } from '../strategies';
import { cappedJsonBody } from './body';
import { HttpError } from './errors';
import { toolResultSchema } from './response-schemas';
import { apiRoutes, errors, json, jsonBody } from './route-kit';
import { runToolByHand } from '../runs/tool-runner';

const toolRequestSchema = z
  .object({
    input: z
      .union([z.string().max(20_000), z.record(z.string(), z.unknown())])
      .meta({ description: 'the Action Input as the agent would write it (text), or the tool\'s structured input' }),
  })
  .strict();

const toolRoute = createRoute({
  method: 'post',
  path: '/v1/tools/{name}',
  operationId: 'runTool',
  summary: 'Run one HQA tool by hand against the configured evidence (the demonstration workbench, few-shot authoring)',
  middleware: [cappedJsonBody()],
  request: {
    params: z.object({ name: z.string().max(100).meta({ description: 'wikisearch, read, getWikidataID, generateQuery, runQuery or getLabel' }) }),
    body: jsonBody(toolRequestSchema),
  },
  responses: {
    200: { description: 'what the tool returned; a tool that failed answers 200 with error: true, as the agent would observe it', content: json(toolResultSchema) },
    ...errors(400, 404, 413, 415, 503, 504),
  },
});

export const toolRoutes = apiRoutes().openapi(toolRoute, async (c) => {
  const config = loadConfig(c.env as unknown as Record<string, unknown>);
  const tools = createToolRegistry(strategyTools(config));
  const { name } = c.req.valid('param');
  const tool = tools.get(name);
  if (!tool) throw new HttpError(404, 'unknown_tool', `no tool "${name.slice(0, 60)}"; tools: ${tools.names().join(', ')}`);
  const { input } = c.req.valid('json');
  let parsed: unknown;
  try {
    parsed = typeof input === 'string' ? tool.fromText(input) : tool.input.parse(input);
  } catch (err) {
    throw new HttpError(400, 'invalid_input', `input for ${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return c.json(await runToolByHand(c.env, config, tool, parsed, { caller: c.get('caller') }), 200);
});
