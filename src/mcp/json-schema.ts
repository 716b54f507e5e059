import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';

type InputSchema = McpTool['inputSchema'];

const cache = new WeakMap<z.ZodType, InputSchema>();

/**
 * A tool's zod input schema as the JSON Schema MCP clients read, made by the converter that already writes
 * /openapi.json (OpenAPI 3.1 schema objects are JSON Schema 2020-12). zod's own z.toJSONSchema would add a second
 * converter, ~6 KiB gzip of a Worker upload with next to no headroom (npm run bench:bundle).
 */
export const inputJsonSchema = (schema: z.ZodType): InputSchema => {
  let out = cache.get(schema);
  if (!out) {
    const registry = new OpenAPIRegistry();
    registry.register('input', schema);
    out = new OpenApiGeneratorV31(registry.definitions).generateComponents().components?.schemas?.input as InputSchema;
    cache.set(schema, out);
  }
  return out;
};
