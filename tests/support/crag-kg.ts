import { inject } from 'vitest';
import type { CragKgRequest } from './crag-kg-standin.mjs';

/**
 * The CRAG mock-KG stand-in as a workerd test sees it: its URL (the server runs in Node, started by
 * tests/support/standins-setup.ts) and its control routes. Test files run at once against the one server, so a test
 * scopes faults and what it reads back by a `match` string its own requests carry (a made-up name, say).
 */
export const cragKg = () => {
  const url = inject('cragKgUrl');
  const control = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
  return {
    url,
    /** The requests whose JSON body contains `match`, oldest first. */
    requests: async (match: string): Promise<CragKgRequest[]> => (await control(`/__requests?match=${encodeURIComponent(match)}`)).json(),
    /** Matching requests get `status` (with Retry-After seconds) `count` times, or a body that never ends. */
    fault: async (fault: { match: string; status?: number; retryAfter?: number; count?: number; endless?: boolean }) => {
      const res = await control('/__faults', { method: 'POST', body: JSON.stringify(fault) });
      if (!res.ok) throw new Error(`the KG stand-in refused the fault: ${await res.text()}`);
    },
  };
};
