import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { describeIssues } from '../runs/errors';
import { HttpError } from '../runs/errors';
import { runToolByHand } from '../runs/tool-runner';
import type { Config } from '../config';
import { hqaTools } from '../tools';
import { inputJsonSchema } from './json-schema';
import type { Tool } from '../tools/types';

/**
 * The six evidence tools as MCP tools: the same zod input schema that checks a call describes it (as JSON Schema, a
 * description on every field, the tool's own description written for those fields),
 * and the observation the agent would see is the text content. A tool that failed is a result with isError, as MCP
 * asks for errors a model should read; an input that does not fit the schema is one too, naming the field.
 */

export const textResult = (text: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) });

export const evidenceTools = (): Tool[] => hqaTools();

export const describeEvidenceTools = (): McpTool[] =>
  evidenceTools().map((t) => ({
    name: t.name,
    // An MCP client sends the schema's fields, never the agent's `Action Input:` text, so it reads the tool in those terms.
    description: t.schemaDescription ?? t.description,
    inputSchema: inputJsonSchema(t.input),
    annotations: { readOnlyHint: true, openWorldHint: true },
  }));

/** `caller` is who calls as auth named them (`key:<hash>`, `ip:<address>`): the gates take turns by it. */
export const callEvidenceTool = async (env: Env, config: Config, tool: Tool, args: unknown, how: { signal?: AbortSignal; caller?: string } = {}): Promise<CallToolResult> => {
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) return textResult(`invalid arguments for ${tool.name}: ${describeIssues(parsed.error.issues)}`, true);
  try {
    const result = await runToolByHand(env, config, tool, parsed.data, how);
    return textResult(result.output, result.error === true);
  } catch (err) {
    if (err instanceof HttpError) return textResult(err.message, true);
    throw err;
  }
};
