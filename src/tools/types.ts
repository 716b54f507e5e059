import type { z } from 'zod';
import type { Embedder } from '../embeddings/types';
import type { Evidence } from '../evidence/types';
import type { LLM } from '../llm/types';

export interface ToolContext {
  llm: LLM;
  evidence: Evidence;
  embedder: Embedder;
  /** The run's question, for tools that read with a purpose. */
  question?: string;
  signal?: AbortSignal;
}

/** A tool: its schema doubles as documentation; `fromText` reads what a model wrote after `Action Input:`. */
export interface Tool<I = any> {
  readonly name: string;
  /** For the agent, in its text protocol: what to write after `Action Input:` and what comes back. */
  readonly description: string;
  /** For callers that send the input schema's fields (MCP): the same tool in terms of those fields. */
  readonly schemaDescription?: string;
  readonly input: z.ZodType<I>;
  /** Lenient parse of free text (quotes, brackets, `Q42, Q5`, `Title # question`). Throws with a readable message. */
  fromText(text: string): I;
  /**
   * The text protocol's `Action Input:` for structured input (a native function call's arguments): how the trace,
   * the answer readers and a run that went back to text see the call. `fromText` reads it back to the same input.
   */
  toText?(input: I): string;
  execute(ctx: ToolContext, input: I): Promise<string>;
}

export interface ToolRegistry {
  get(name: string): Tool | undefined;
  names(): string[];
  list(): Tool[];
}

export const toolRegistry = (tools: Tool[]): ToolRegistry => {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return {
    get: (name) => byName.get(name),
    names: () => [...byName.keys()],
    list: () => [...byName.values()],
  };
};
