import { openaiEmbeddingRequests, type OpenAiEmbeddingsRequestOptions } from '../llm/openai-embeddings';
import type { Embedder } from './types';
import { inBatches } from './normalize';

const KNOWN_DIMS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

// The OpenAI API takes up to 2048 inputs per request; smaller batches keep self-hosted servers happy.
const BATCH = 128;

export interface OpenAiEmbedderOptions extends OpenAiEmbeddingsRequestOptions {
  model?: string;
}

/**
 * Embeddings from any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp), unit-normalised. The requests
 * themselves are made by src/llm/openai-embeddings.ts (only the model providers reach the network).
 * @example openaiEmbedder({ baseURL: 'http://127.0.0.1:8000/v1', model: 'bge-base' })
 */
export const openaiEmbedder = (options: OpenAiEmbedderOptions): Embedder => {
  const model = options.model ?? 'text-embedding-3-small';
  const request = openaiEmbeddingRequests(options);
  let dims = KNOWN_DIMS[model] ?? 0;
  return {
    name: `openai:${model}`,
    get dims() {
      return dims;
    },
    embed: async (texts) => {
      const vectors = await inBatches(texts, BATCH, (batch) => request(model, batch));
      if (vectors.length > 0) dims = vectors[0].length;
      return vectors;
    },
  };
};
