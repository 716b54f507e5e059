import type { ToolDefinition } from '../llm/types';
import { jsonSchemaOf } from '../llm/json-schema';
import type { Tool } from './types';

/**
 * The tools as functions a model may call (the native tool protocol): the same names, the description written for
 * callers that send the schema's fields (as MCP does), and the input schema the HTTP tools and MCP validate with.
 */
export const toolDefinitions = (tools: readonly Tool[]): ToolDefinition[] =>
  tools.map((t) => ({ name: t.name, description: t.schemaDescription ?? t.description, parameters: jsonSchemaOf(t.input) }));

/** Structured input as the text protocol writes it (a tool without its own form: the input's JSON, which every `fromText` reads). */
export const textInputOf = (tool: Tool | undefined, input: unknown): string => {
  if (tool?.toText) {
    try {
      return tool.toText(input);
    } catch {
      // Input that does not fit the schema is shown as the model sent it.
    }
  }
  return typeof input === 'string' ? input : JSON.stringify(input);
};
