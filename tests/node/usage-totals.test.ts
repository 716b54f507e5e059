import { describe, expect, it } from 'vitest';
import { usageTotals } from '../../src/eval/usage-totals';

describe('evaluation usage totals', () => {
  it('sums the shared-cache lookups, gate waits (evidence and model) and shortened prompts of every run into a hit rate', () => {
    const totals = usageTotals([
      { evidence: { cacheHits: 3, cacheMisses: 1, gateWaits: 1, gateWaitMs: 1200 }, context: { trimmed: 2, retried: 1 } },
      { evidence: { cacheHits: 5, cacheMisses: 1, gateWaits: 0, gateWaitMs: 0 }, modelGate: { waits: 2, waitMs: 900 } },
      undefined,
      { llmCalls: 2 },
    ]);
    expect(totals).toEqual({ evidenceCache: { hits: 8, misses: 2, hitRate: 0.8 }, gateWaits: 1, gateWaitMs: 1200, promptsTrimmed: 2, contextRetries: 1, modelGateWaits: 2, modelGateWaitMs: 900 });
    expect(usageTotals([{ llmCalls: 1 }]).evidenceCache.hitRate).toBeNull();
  });
});
