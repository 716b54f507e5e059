import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordingKg, replayingKg, type EvidenceRecord } from '../../src/evidence/recording';
import { callKg } from '../../src/strategies/rag/kg/client';

afterEach(() => vi.restoreAllMocks());

describe('CRAG KG calls in a recording', () => {
  it('are recorded with their result, and replayed without a request; an unrecorded call is a miss', async () => {
    const sent: string[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL) => {
      sent.push(String(input));
      return new Response(JSON.stringify({ result: { price: 187.5 } }), { headers: { 'content-type': 'application/json' } });
    });
    const records: EvidenceRecord[] = [];
    const call = { endpoint: 'finance/get_price_history', args: { ticker_name: 'AAPL' } };
    const live = await callKg('http://127.0.0.1:9999', call, 1_000, undefined, recordingKg((r) => void records.push(r)));
    expect(live).toBe('{"price":187.5}');
    expect(records).toEqual([{ key: 'kg finance/get_price_history {"ticker_name":"AAPL"}', request: { source: 'kg', ...call }, response: { body: live } }]);

    const archive = new Map(records.map((r) => [r.key, JSON.stringify(r.response)]));
    let misses = 0;
    const replay = replayingKg({ get: async (k) => archive.get(k) }, () => misses++);
    expect(await callKg('http://127.0.0.1:9999', call, 1_000, undefined, replay)).toBe(live);
    await expect(callKg('http://127.0.0.1:9999', { endpoint: 'finance/get_pe_ratio', args: { ticker_name: 'AAPL' } }, 1_000, undefined, replay)).rejects.toThrow(
      'not in the recording: kg finance/get_pe_ratio({"ticker_name":"AAPL"})',
    );
    expect(misses).toBe(1);
    expect(sent).toHaveLength(1);
  });
});
