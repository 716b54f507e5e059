import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import { jsonSchemaOf } from '../llm/json-schema';

type InputSchema = McpTool['inputSchema'];

/** A tool's zod input schema as the JSON Schema MCP clients read (the one converter: src/tools/input-schema.ts). */
export const inputJsonSchema = (schema: z.ZodType): InputSchema => jsonSchemaOf(schema) as InputSchema;
