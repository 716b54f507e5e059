import type { Config } from '../config';
import { createEmbedder } from '../embeddings';
import type { Embedder } from '../embeddings/types';
import { createEvidence, createKnowledgeApi, type KnowledgeApi } from '../evidence';
import type { Evidence } from '../evidence/types';
import type { GateParty } from '../net/politeness/policy';
import { hqaTools } from '../tools';
import { toolRegistry, type Tool, type ToolRegistry } from '../tools/types';
import { createVectorIndex } from '../vectors';
import type { VectorIndex } from '../vectors/types';
import type { Services } from './context';
import type { Usage } from './types';
import { addCacheLookup, addGateWait } from './usage';

/** Bindings the services may use; only the modules behind them reach Cloudflare-only bindings. */
export interface ServiceBindings {
  DB: D1Database;
  AI?: Ai;
  VECTORIZE?: VectorizeIndex;
  POLITENESS_GATE?: DurableObjectNamespace;
}

/** The run the services work for: its signal ends waits at the politeness gates; its usage and trace hear of them. */
export interface ServiceCaller {
  signal?: AbortSignal;
  usage?: Usage;
  /** A sentence for the step's trace (a wait at a gate). */
  note?: (text: string) => void;
  /** Whose requests these are (API key and run): the gates serve queued requests in turn across keys and runs. */
  party?: GateParty;
}

const once = <T>(make: () => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};

/** Evidence, the knowledge API, embeddings and vectors, each created on first use. */
export const createServices = (config: Config, bindings: ServiceBindings, caller: ServiceCaller = {}): Services => {
  // Waits at a gate and cache lookups of any upstream join the run's usage and its step's trace.
  const told = {
    signal: caller.signal,
    party: caller.party,
    onWait: (text: string, ms: number) => {
      if (caller.usage) addGateWait(caller.usage, ms);
      caller.note?.(text);
    },
    onCache: (hit: boolean) => caller.usage && addCacheLookup(caller.usage, hit),
  };
  const gates = { DB: bindings.DB, POLITENESS_GATE: bindings.POLITENESS_GATE };
  return {
    evidence: once<Evidence>(() => createEvidence(config, gates, { caller: told })),
    kg: once<KnowledgeApi>(() => createKnowledgeApi(config, gates, { caller: told })),
    embedder: once<Embedder>(() => createEmbedder(config, { AI: bindings.AI })),
    vectors: once<VectorIndex>(() => createVectorIndex(config, { DB: bindings.DB, VECTORIZE: bindings.VECTORIZE })),
  };
};

/** The shared tools plus those the registered strategies add (see strategyTools in src/strategies). */
export const createToolRegistry = (added: readonly Tool[] = []): ToolRegistry => toolRegistry([...hqaTools(), ...added]);
