/** One purpose's native calls (src/engine/tool-protocol.ts): what was sent, what came back, what went back to text. */
export interface ProtocolUsage {
  /** Calls sent with the tools as functions, the calls the model asked for, and replies that asked for more than one. */
  native?: { calls: number; toolCalls: number; parallelTurns: number };
  /** Calls sent with a reply schema, and replies read by the text parser instead (refused, or not the schema's JSON). */
  structured?: { calls: number; textFallbacks: number };
  /** Malformed calls answered with an observation saying how to mend them (bad JSON, unknown tool, a call written as text). */
  repairs?: number;
  /** Why this purpose went back to the text protocol for the rest of the run. */
  fallback?: string;
}

/** What a strategy reports of a native call (RunContext.noteProtocol): a repair, a structured reply read as text, a fallback. */
export type ProtocolChange = { repair: true } | { textFallback: string } | { fallback: string };
