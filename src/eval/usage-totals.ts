/** What an evaluation's runs added up to beyond tokens: the shared evidence cache, gate waits and shortened prompts. */
export interface UsageTotals {
  evidenceCache: { hits: number; misses: number; hitRate: number | null };
  gateWaits: number;
  gateWaitMs: number;
  promptsTrimmed: number;
  contextRetries: number;
  /** Model calls held at their model's politeness gate (LLM_CONCURRENCY, a server's Retry-After), and for how long. */
  modelGateWaits: number;
  modelGateWaitMs: number;
}

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Sums the `usage.evidence`, `usage.context` and `usage.modelGate` of each run (runs without them count as zero). */
export const usageTotals = (usages: ReadonlyArray<Record<string, unknown> | undefined>): UsageTotals => {
  let hits = 0;
  let misses = 0;
  let gateWaits = 0;
  let gateWaitMs = 0;
  let promptsTrimmed = 0;
  let contextRetries = 0;
  let modelGateWaits = 0;
  let modelGateWaitMs = 0;
  for (const u of usages) {
    const e = (u?.evidence ?? {}) as Record<string, unknown>;
    const c = (u?.context ?? {}) as Record<string, unknown>;
    hits += n(e.cacheHits);
    misses += n(e.cacheMisses);
    gateWaits += n(e.gateWaits);
    gateWaitMs += n(e.gateWaitMs);
    promptsTrimmed += n(c.trimmed);
    contextRetries += n(c.retried);
    const m = (u?.modelGate ?? {}) as Record<string, unknown>;
    modelGateWaits += n(m.waits);
    modelGateWaitMs += n(m.waitMs);
  }
  const hitRate = hits + misses ? Math.round((1000 * hits) / (hits + misses)) / 1000 : null;
  return { evidenceCache: { hits, misses, hitRate }, gateWaits, gateWaitMs, promptsTrimmed, contextRetries, modelGateWaits, modelGateWaitMs };
};
