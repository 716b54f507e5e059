import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';

// The converter reads its metadata through ZodType.prototype.openapi, which the routes' @hono/zod-openapi installs; a
// strategy step or a CLI that loads no route installs it here (a second call is a no-op).
extendZodWithOpenApi({ ZodType: z.ZodType } as Parameters<typeof extendZodWithOpenApi>[0]);

export type JsonSchemaObject = Record<string, unknown>;

const cache = new WeakMap<z.ZodType, JsonSchemaObject>();

/**
 * A zod schema as a JSON Schema object, made by the converter that already writes /openapi.json (OpenAPI 3.1 schema
 * objects are JSON Schema 2020-12): what MCP clients read as a tool's input, what a model is given as a function's
 * parameters, and the reply schema of a structured step. zod's own z.toJSONSchema would add a second converter,
 * ~6 KiB gzip of a Worker upload with next to no headroom (npm run bench:bundle).
 */
export const jsonSchemaOf = (schema: z.ZodType): JsonSchemaObject => {
  let out = cache.get(schema);
  if (!out) {
    const registry = new OpenAPIRegistry();
    registry.register('input', schema);
    out = (new OpenApiGeneratorV31(registry.definitions).generateComponents().components?.schemas?.input ?? {}) as JsonSchemaObject;
    cache.set(schema, out);
  }
  return out;
};
