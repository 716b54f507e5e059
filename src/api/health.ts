import { Hono } from 'hono';
import { loadConfig } from '../config';
import { VARIANTS } from '../engine/types';
import { createLLM } from '../llm';
import { availableModes } from '../strategies';

export const healthRoutes = new Hono<{ Bindings: Env }>().get('/healthz', (c) => {
  const config = loadConfig(c.env as unknown as Record<string, unknown>);
  const llm = createLLM(config, { AI: (c.env as { AI?: Ai }).AI });
  return c.json({
    ok: true,
    llm: llm.ok
      ? { ready: true, provider: llm.llm.provider, model: llm.llm.model, ...(Object.keys(config.LLM_MODELS).length ? { byPurpose: config.LLM_MODELS } : {}) }
      : { ready: false, provider: config.LLM_PROVIDER, message: llm.reason },
    evidence: { kind: config.EVIDENCE },
    embeddings: { provider: config.EMBEDDING_PROVIDER },
    variants: VARIANTS,
    modes: availableModes(config),
    auth: config.API_KEYS.length ? 'bearer' : 'open (API_KEYS is empty: local development only)',
  });
});
