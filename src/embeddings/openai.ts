import OpenAI from 'openai';
import { cappedFetch } from '../net/capped-fetch';
import type { Embedder } from './types';
import { inBatches } from './normalize';

const KNOWN_DIMS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

// The OpenAI API takes up to 2048 inputs per request; smaller batches keep self-hosted servers happy.
const BATCH = 128;
/** A batch's reply: 128 vectors of 3,072 numbers written as JSON is about 8 MB; twice that is the cap. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

export interface OpenAiEmbedderOptions {
  baseURL: string;
  apiKey?: string;
  model?: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** For tests: the fetch the SDK uses. */
  fetch?: typeof fetch;
}

/**
 * Embeddings from any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp), unit-normalised.
 * Requests carry `x-request-purpose: embedding` so gateways can attribute the cost.
 * @example openaiEmbedder({ baseURL: 'http://127.0.0.1:8000/v1', model: 'bge-base' })
 */
export const openaiEmbedder = (options: OpenAiEmbedderOptions): Embedder => {
  const model = options.model ?? 'text-embedding-3-small';
  const client = new OpenAI({
    baseURL: options.baseURL,
    // Local servers often need no key, but the SDK insists on one.
    apiKey: options.apiKey ?? 'no-key',
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    defaultHeaders: { 'x-request-purpose': 'embedding' },
    fetch: cappedFetch(options.fetch ?? ((input, init) => fetch(input, init)), { maxBytes: MAX_REPLY_BYTES }),
  });
  let dims = KNOWN_DIMS[model] ?? 0;
  return {
    name: `openai:${model}`,
    get dims() {
      return dims;
    },
    embed: async (texts) => {
      const vectors = await inBatches(texts, BATCH, async (batch) => {
        const res = await client.embeddings.create({ model, input: batch, encoding_format: 'float' });
        // Servers may return items out of order; `index` says where each belongs.
        return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      });
      if (vectors.length > 0) dims = vectors[0].length;
      return vectors;
    },
  };
};
