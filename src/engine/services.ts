import type { Config } from '../config';
import { createEmbedder } from '../embeddings';
import type { Embedder } from '../embeddings/types';
import { createEvidence } from '../evidence';
import type { Evidence } from '../evidence/types';
import { hqaTools } from '../tools';
import { toolRegistry, type Tool, type ToolRegistry } from '../tools/types';
import { createVectorIndex } from '../vectors';
import type { VectorIndex } from '../vectors/types';
import type { Services } from './context';

/** Bindings the services may use; only the modules behind them reach Cloudflare-only bindings. */
export interface ServiceBindings {
  DB: D1Database;
  AI?: Ai;
  VECTORIZE?: VectorizeIndex;
}

const once = <T>(make: () => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};

/** Evidence, embeddings and vectors, each created on first use. */
export const createServices = (config: Config, bindings: ServiceBindings): Services => ({
  evidence: once<Evidence>(() => createEvidence(config, { DB: bindings.DB })),
  embedder: once<Embedder>(() => createEmbedder(config, { AI: bindings.AI })),
  vectors: once<VectorIndex>(() => createVectorIndex(config, { DB: bindings.DB, VECTORIZE: bindings.VECTORIZE })),
});

/** The shared tools plus those the registered strategies add (see strategyTools in src/strategies). */
export const createToolRegistry = (added: readonly Tool[] = []): ToolRegistry => toolRegistry([...hqaTools(), ...added]);
