import { sendsInClear } from '../net/in-clear';
import { LLMError } from './types';

/**
 * The error for a model server whose key would travel in clear (LLM_API_KEY with a plain-http, non-loopback
 * LLM_BASE_URL), or undefined. The configuration refuses such a pair at start (src/config-credentials.ts); the
 * providers hold to it too, whatever built them: the key is never handed to the SDK, and every call fails with this.
 */
export const keyInClear = (baseURL: string, apiKey: string | undefined): LLMError | undefined =>
  apiKey && sendsInClear(baseURL)
    ? new LLMError(`refused: LLM_API_KEY is never sent over plain HTTP, and LLM_BASE_URL (${new URL(baseURL).origin}) is http; use https (or a loopback address)`, undefined, false)
    : undefined;
