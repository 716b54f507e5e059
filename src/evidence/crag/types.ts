import type { KgCall } from './endpoints';

export type { KgCall } from './endpoints';

/**
 * The CRAG mock-KG API as a run sees it: one call in, the answer's `result` out as prompt-sized JSON text
 * (./result-text.ts). Live (../live/crag-kg.ts), recorded with the run, or answered from an archive
 * (../recording.ts). Failures are EvidenceErrors: `refused` (an unknown endpoint or a malformed body, never sent; or
 * no API configured), `timeout`, `too_large`, `backoff`, `upstream` (an error status, a body that is not the API's).
 */
export interface KnowledgeApi {
  call(call: KgCall): Promise<string>;
}
