import type { Config } from '../config';
import { createEmbedder } from '../embeddings';
import type { Embedder } from '../embeddings/types';
import { createEvidence, createKnowledgeApi, type KnowledgeApi } from '../evidence';
import type { Evidence } from '../evidence/types';
import { hqaTools } from '../tools';
import { toolRegistry, type Tool, type ToolRegistry } from '../tools/types';
import { createVectorIndex } from '../vectors';
import type { VectorIndex } from '../vectors/types';
import type { Services } from './context';
import { evidenceScope, type RunScope } from './run-scope';

/** Bindings the services may use; only the modules behind them reach Cloudflare-only bindings. */
export interface ServiceBindings {
  DB: D1Database;
  AI?: Ai;
  VECTORIZE?: VectorizeIndex;
  POLITENESS_GATE?: DurableObjectNamespace;
}

const once = <T>(make: () => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};

/**
 * Evidence, the knowledge API, embeddings and vectors, each created on first use, for the run in `scope`: its signal
 * ends a wait at a politeness gate, and waits and cache lookups join its usage and its step's trace.
 */
export const createServices = (config: Config, bindings: ServiceBindings, scope: RunScope = {}): Services => {
  const requests = evidenceScope(scope);
  const gates = { DB: bindings.DB, POLITENESS_GATE: bindings.POLITENESS_GATE };
  return {
    evidence: once<Evidence>(() => createEvidence(config, gates, { scope: requests })),
    kg: once<KnowledgeApi>(() => createKnowledgeApi(config, gates, { scope: requests })),
    embedder: once<Embedder>(() => createEmbedder(config, { AI: bindings.AI })),
    vectors: once<VectorIndex>(() => createVectorIndex(config, { DB: bindings.DB, VECTORIZE: bindings.VECTORIZE })),
  };
};

/** The shared tools plus those the registered strategies add (see strategyTools in src/strategies). */
export const createToolRegistry = (added: readonly Tool[] = []): ToolRegistry => toolRegistry([...hqaTools(), ...added]);
