/**
 * Why a model is called. Recorded in the run's usage and sent as `x-request-purpose`. The list sits beside config,
 * below the model providers, because config reads a model and a context window per purpose from the environment
 * (`LLM_MODEL_<PURPOSE>`, `LLM_CONTEXT_TOKENS_<PURPOSE>`) and must not import the providers to know the names.
 */
export const PURPOSES = [
  'agent', 'read', 'generateQuery', 'parametric', 'final', 'code', 'refine', 'simplify',
  'extract_info', 'check', 'attribute', 'calculator', 'kg', 'reasoning', 'summarize', 'judge', 'vision', 'rewrite',
  'verify',
] as const;
export type Purpose = (typeof PURPOSES)[number];
