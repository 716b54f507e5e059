import type { ChatRequest, LLM, Purpose } from './types';

/** Per-purpose model names, from `LLM_MODEL_<PURPOSE>` (parsed in src/config.ts). */
export type PurposeModels = Partial<Record<Purpose, string>>;

const hasImages = (request: ChatRequest) =>
  request.messages.some((m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url'));

/** The model a request goes to: its purpose's own model, else the vision model when it carries images, else the default. */
export const modelFor = (request: ChatRequest, models: PurposeModels): string | undefined =>
  request.model ?? models[request.purpose] ?? (hasImages(request) ? models.vision : undefined);

/**
 * Sends each request to the model configured for its purpose (HProPro's split: a strong model writes code, a cheap
 * one runs `check`; a vision model reads images). Providers that cannot read images (Workers AI flattens them to
 * text) do not start accepting them because a vision model is named.
 * @example routeByPurpose(llm, { check: 'gpt-3.5-turbo', vision: 'gpt-4o' })
 */
export const routeByPurpose = (inner: LLM, models: PurposeModels): LLM => {
  if (!Object.keys(models).length) return inner;
  return {
    provider: inner.provider,
    model: inner.model,
    acceptsImages: inner.acceptsImages || (!!models.vision && inner.provider !== 'workers-ai'),
    chat(request, scope) {
      const model = modelFor(request, models);
      return inner.chat(model ? { ...request, model } : request, scope);
    },
  };
};
