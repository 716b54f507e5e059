import OpenAI from 'openai';
import { cappedFetch } from '../net/capped-fetch';
import { keyInClear } from './key-in-clear';

/** A batch's reply: 128 vectors of 3,072 numbers written as JSON is about 8 MB; twice that is the cap. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

export interface OpenAiEmbeddingsRequestOptions {
  baseURL: string;
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** For tests: the fetch the SDK uses. */
  fetch?: typeof fetch;
}

/**
 * The HTTP half of embeddings from an OpenAI-compatible server: one `POST /embeddings` per batch, the vectors in the
 * order of the inputs. It sits with the model providers because they, not src/embeddings/, reach the network; batching,
 * dimensions and normalisation stay in src/embeddings/openai.ts. Requests carry `x-request-purpose: embedding` so
 * gateways can attribute the cost.
 */
export const openaiEmbeddingRequests = (options: OpenAiEmbeddingsRequestOptions) => {
  const refused = keyInClear(options.baseURL, options.apiKey);
  const client = new OpenAI({
    baseURL: options.baseURL,
    // Local servers often need no key, but the SDK insists on one; a key that would travel in clear is never given.
    apiKey: (!refused && options.apiKey) || 'no-key',
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    defaultHeaders: { 'x-request-purpose': 'embedding' },
    fetch: cappedFetch(options.fetch ?? ((input, init) => fetch(input, init)), { maxBytes: MAX_REPLY_BYTES }),
  });
  return async (model: string, batch: string[]): Promise<number[][]> => {
    if (refused) throw refused;
    const res = await client.embeddings.create({ model, input: batch, encoding_format: 'float' });
    // Servers may return items out of order; `index` says where each belongs.
    return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
  };
};
